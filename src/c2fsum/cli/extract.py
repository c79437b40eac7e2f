"""``c2fsum extract``: a summary made of the text's own sentences: ILP or LEAD (no model), or the
sentences a sentence selector picks (``--model``)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from c2fsum.cli.files import add_files, article_names, each_file, long_work, read_articles, refuse
from c2fsum.cli.options import Command, add_lines, positive_int

if TYPE_CHECKING:
    from c2fsum.pipeline import Extract


def _extract_file(a: argparse.Namespace, path: str, several: bool) -> Iterator[str]:
    """The output lines of one input file (see :func:`cmd_extract`)."""
    from c2fsum.pipeline import extract

    read, docs = read_articles(path, lines=a.lines)
    progress = not a.quiet and long_work(docs)
    names = article_names(path, read, lines=a.lines)
    if a.model:  # learned extraction: a sentence selector's own sentences
        from c2fsum.pipeline import load

        written = iter(load(a.model).extract(docs, words=a.words, names=names) if docs else [])
    else:
        written = iter(extract(docs, method=a.method, words=a.words, progress=progress, names=names) if docs else [])
    by = a.model or a.method.upper()
    out = []  # (the lines are made before any is printed: a refused text prints nothing of its file)
    for n, r in enumerate(read, 1):
        e = next(written) if r else None
        if e is not None and e.refusal:
            refuse(path, n if a.lines else None, by, e.refusal)
        if a.json:
            row = None if e is None else _row(e)
            out.append(json.dumps(row if not several else {"file": path, **(row or {"text": None})}))
        elif a.lines:
            out.append("" if e is None else e.text.replace("\n", " "))
        else:
            assert e is not None
            out.append(" ".join(e.tokens) if a.tokens else e.text)
    yield from out


def _row(e: Extract) -> dict:
    """``--json``: one extract (text None and the refusal when it gives none)."""
    if e.refusal:
        return {"text": None, "tokens": [], "sentences": [], "refusal": e.refusal}
    return {"text": e.text, "tokens": e.tokens, "sentences": e.sentences}


def cmd_extract(a: argparse.Namespace) -> int:
    return each_file("extract", a.file, lambda path, several: _extract_file(a, path, several), json_lines=a.json)


def _arguments(s: argparse.ArgumentParser) -> None:
    add_files(s)
    s.add_argument(
        "--method",
        choices=["ilp", "lead"],
        default="ilp",
        help="ilp (default): the sentences covering the text's most frequent word pairs within the budget; "
        "lead: the first sentences that fit",
    )
    s.add_argument(
        "--words",
        type=positive_int,
        default=250,
        metavar="N",
        help="most words of the summary (default 250, about a SumPubMed abstract); whole sentences only",
    )
    s.add_argument(
        "--model",
        metavar="NAME",
        help="a sentence selector (select-rewrite run or shipped name): its own picked sentences "
        "(learned extraction) instead of --method",
    )
    add_lines(s)
    s.add_argument(
        "--tokens", action="store_true", help="print c2fsum's tokens (what ROUGE scores) instead of the text"
    )
    s.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per article: text, tokens, sentence indices (and file, with several files)",
    )


COMMAND = Command(
    "extract",
    help="summarize raw text with its own sentences, as the text writes them: ILP or LEAD (no model), "
    "or those a sentence selector picks (--model pubmed-rewrite)",
    run=cmd_extract,
    arguments=_arguments,
)
