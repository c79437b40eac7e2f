"""``c2fsum extract``: a summary made of the text's own sentences, no model needed (ILP or LEAD)."""

from __future__ import annotations

import argparse
import json

from c2fsum.cli.options import CLIError, add_lines, positive_int, read_input, read_lines


def cmd_extract(a: argparse.Namespace) -> int:
    from c2fsum.pipeline import extract, has_words

    if a.lines:  # one output line per input line, always: an empty one for a line without words
        lines = read_lines(a.file)
        if not lines:
            raise CLIError(f"{a.file}: empty input")
        read = [x is not None and has_words(x) for x in lines]
        docs = [x for x, r in zip(lines, read, strict=True) if r and x is not None]
    else:
        text = read_input(a.file)
        if not has_words(text):
            raise CLIError(f"{a.file}: empty input, no words to summarize")
        read, docs = [True], [text]
    if a.model:  # learned extraction: a sentence selector's own sentences
        from c2fsum.pipeline import load

        written = iter(load(a.model).extract(docs, words=a.words) if docs else [])
    else:
        written = iter(extract(docs, method=a.method, words=a.words) if docs else [])
    for r in read:
        e = next(written) if r else None
        if a.json:
            print(json.dumps(None if e is None else {"text": e.text, "tokens": e.tokens, "sentences": e.sentences}))
        elif a.lines:
            print("" if e is None else e.text.replace("\n", " "))
        else:
            assert e is not None
            print(" ".join(e.tokens) if a.tokens else e.text)
    return 0


def add_extract_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``extract`` to the ``c2fsum`` subcommands; returns its parser."""
    s = subparsers.add_parser(
        "extract",
        help="summarize raw text with its own sentences (ILP or LEAD; no model): today the best summary "
        "of a long paper c2fsum makes",
    )
    s.add_argument("file", nargs="?", default="-", metavar="FILE|-", help="article text (default: stdin)")
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
    s.add_argument("--json", action="store_true", help="one JSON object per article: text, tokens, sentence indices")
    s.set_defaults(func=cmd_extract)
    return s
