"""``c2fsum summarize``: summarize raw text from a file or stdin through :class:`c2fsum.pipeline.Pipeline`."""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from c2fsum.cli.files import add_files, article_names, each_file, long_work, read_articles, refuse
from c2fsum.cli.options import (
    CLIError,
    Command,
    add_decode_options,
    add_device,
    add_lines,
    add_model,
    decode_overrides,
)

if TYPE_CHECKING:
    from c2fsum.pipeline import Summary

log = logging.getLogger(__name__)


def cmd_summarize(a: argparse.Namespace) -> int:
    if a.attention_out and not Path(a.attention_out).resolve().parent.is_dir():
        raise CLIError(
            f"--attention-out {a.attention_out}: no directory {Path(a.attention_out).parent} (it is not created)"
        )
    overrides = decode_overrides(a)
    loaded: list = []  # the model, loaded at the first file with words, once for all files
    attention: list[dict] = []
    status = each_file(
        "summarize",
        a.file,
        lambda path, several: _summarize_file(a, path, several, overrides, loaded, attention),
        json_lines=a.json,
    )
    if a.attention_out:
        from c2fsum.utils.io import atomic_write_text

        atomic_write_text(a.attention_out, json.dumps(attention))
    return status


def _summarize_file(
    a: argparse.Namespace, path: str, several: bool, overrides: dict, loaded: list, attention: list[dict]
) -> Iterator[str]:
    """The output lines of one input file; its summaries' attention appended to ``attention``
    (with ``"file"`` when ``several``)."""
    import c2fsum

    read, docs = read_articles(path, lines=a.lines, max_words=overrides.get("max_words") or 0)
    summaries = []
    if docs:
        if not loaded:
            loaded.append(c2fsum.load(a.model, device=a.device))
        model = loaded[0]
        summaries = model.summarize(
            docs,
            model.options(**overrides),
            progress=not a.quiet and long_work(docs),
            names=article_names(path, read, lines=a.lines),
        )
    if a.attention_out:  # (every word's attention over a 100,000-word text is 900 MB of Python floats)
        attention.extend({"file": path, **s.to_json()} if several else s.to_json() for s in summaries)
    written = iter(summaries)
    out = []  # (the lines are made before any is printed: a refused text prints nothing of its file)
    for n, r in enumerate(read, 1):
        s = next(written) if r else None
        if s is not None and s.refusal:
            refuse(path, n if a.lines else None, a.model, s.refusal)
        if a.json:
            row = None if s is None else summary_row(s, a.model)
            out.append(json.dumps(row if not several else {"file": path, **(row or {"text": None})}))
        elif s is None or s.refusal:
            out.append("")
        elif a.tokens:
            out.append(" ".join(s.tokens))
        else:
            out.append(s.text.replace("\n", " ") if a.lines else s.text)
    yield from out


def summary_row(s: Summary, model: str) -> dict:
    """``--json``: one summary as a JSON object: its ``text`` (None when refused, with the
    ``refusal``), the model's ``tokens``, the ``sentences`` a sentence selector's summary was made
    of, in the summary's order (the paper's), and ``picked``, the same in pick order (None for a
    model that writes words), the ``model`` as named, its ``score``, whether
    it ended with ``</s>`` (``eos``), and the ``fine_fraction`` of the words read at the word level."""
    return {
        "text": s.text if not s.refusal else None,
        "tokens": s.tokens,
        "sentences": s.sentences,
        "picked": s.picked,
        "model": model,
        "score": round(float(s.score), 5),
        "eos": s.eos,
        "fine_fraction": round(float(s.fine_fraction), 5),
        **({"refusal": s.refusal} if s.refusal else {}),
    }


def _arguments(s: argparse.ArgumentParser) -> None:
    add_model(s)
    add_files(s)
    add_lines(s)
    s.add_argument(
        "--tokens",
        action="store_true",
        help="print the model's own tokens (lowercase, PTB, digits as #: what ROUGE scores) instead of the text",
    )
    s.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per article: text, tokens, the indices of the sentences the summary was made "
        "of in its order (the paper's) and in pick order (sentences, picked: a sentence selector; else null), "
        "model, score, eos, fine_fraction (and file, with several files; "
        "with --lines, null for a line without words, text null and the refusal for a line refused)",
    )
    add_decode_options(s)
    s.add_argument("--attention-out", metavar="FILE", help="write each output word's attention (JSON)")
    add_device(s)


COMMAND = Command(
    "summarize",
    help="summarize raw text from a file or stdin",
    run=cmd_summarize,
    arguments=_arguments,
)
