"""``c2fsum summarize``: summarize raw text from a file or stdin through :class:`c2fsum.pipeline.Pipeline`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from c2fsum.cli.options import CLIError, add_decode_options, add_device, add_model, decode_overrides

LONG_INPUT_CHARS = 100_000
"""``summarize`` shows progress bars for an input longer than this (or for several articles)."""


def _read_input(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    p = Path(path)
    if not p.exists():
        raise CLIError(f"{path}: no such file")
    if p.is_dir():
        raise CLIError(f"{path}: a directory; expected a text file (or - for stdin)")
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise CLIError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from e


def cmd_summarize(a: argparse.Namespace) -> int:
    import c2fsum

    if a.attention_out and not Path(a.attention_out).resolve().parent.is_dir():
        raise CLIError(
            f"--attention-out {a.attention_out}: no directory {Path(a.attention_out).parent} (it is not created)"
        )
    text = _read_input(a.file)
    lines = text.splitlines() if a.lines else [text]
    docs = [line for line in lines if line.strip()]  # --lines: a blank line gets an empty summary line
    if not docs:
        raise CLIError(f"{a.file}: empty input")
    model = c2fsum.load(a.model, device=a.device)
    summaries = model.summarize(
        docs,
        model.options(**decode_overrides(a)),
        # bars on stderr for a batch or a long input (a 2 MB paper collection takes seconds to read)
        progress=not a.quiet and (len(docs) > 1 or len(text) > LONG_INPUT_CHARS),
    )
    if a.lines:  # one output line per input line, always
        written = iter(summaries)
        for line in lines:
            s = next(written) if line.strip() else None
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
    s.add_argument("--lines", action="store_true", help="one article per line; one summary per line")
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
