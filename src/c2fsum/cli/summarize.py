"""``c2fsum summarize``: summarize raw text from a file or stdin through :class:`c2fsum.pipeline.Pipeline`."""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from c2fsum.cli.options import (
    CLIError,
    add_decode_options,
    add_device,
    add_lines,
    add_model,
    decode_overrides,
    read_input,
    read_lines,
)

log = logging.getLogger(__name__)

LONG_INPUT_CHARS = 100_000
"""``summarize`` shows progress bars for an input longer than this (or for several articles)."""


def cmd_summarize(a: argparse.Namespace) -> int:
    import c2fsum
    from c2fsum.pipeline import has_words

    if a.attention_out and not Path(a.attention_out).resolve().parent.is_dir():
        raise CLIError(
            f"--attention-out {a.attention_out}: no directory {Path(a.attention_out).parent} (it is not created)"
        )
    overrides = decode_overrides(a)
    max_words = overrides.get("max_words") or 0
    if a.lines:  # one output line per input line, always: an empty one for a line without words
        lines = read_lines(a.file)
        if not lines:
            raise CLIError(f"{a.file}: empty input")
        read = [x is not None and has_words(x, max_words=max_words) for x in lines]
        docs = [x for x, r in zip(lines, read, strict=True) if r and x is not None]
    else:
        text = read_input(a.file)
        if not has_words(text, max_words=max_words):
            raise CLIError(f"{a.file}: empty input, no words to summarize")
        docs = [text]
    summaries = []
    if docs:
        model = c2fsum.load(a.model, device=a.device)
        summaries = model.summarize(
            docs,
            model.options(**overrides),
            # bars on stderr for a batch or a long input (a 2 MB paper collection takes seconds to read)
            progress=not a.quiet and (len(docs) > 1 or sum(map(len, docs)) > LONG_INPUT_CHARS),
        )
    if a.lines:
        written = iter(summaries)
        for r in read:
            s = next(written) if r else None
            print("" if s is None else (" ".join(s.tokens) if a.tokens else s.text.replace("\n", " ")))
    else:
        for s in summaries:
            print(" ".join(s.tokens) if a.tokens else s.text)
    if a.attention_out:
        from c2fsum.utils.io import atomic_write_text

        atomic_write_text(a.attention_out, json.dumps([s.to_json() for s in summaries]))
    return 0


def add_summarize_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``summarize`` to the ``c2fsum`` subcommands; returns its parser."""
    s = subparsers.add_parser("summarize", help="summarize raw text from a file or stdin")
    add_model(s)
    s.add_argument("file", nargs="?", default="-", metavar="FILE|-", help="article text (default: stdin)")
    add_lines(s)
    s.add_argument(
        "--tokens",
        action="store_true",
        help="print the model's own tokens (lowercase, PTB, digits as #: what ROUGE scores) instead of the text",
    )
    add_decode_options(s)
    s.add_argument("--attention-out", metavar="FILE", help="write each output word's attention (JSON)")
    add_device(s)
    s.set_defaults(func=cmd_summarize)
    return s
