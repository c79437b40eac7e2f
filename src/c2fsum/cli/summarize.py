"""``c2fsum summarize``: summarize raw text from a file or stdin through :class:`c2fsum.pipeline.Pipeline`."""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Iterator
from pathlib import Path

from c2fsum.cli.files import LONG_INPUT_CHARS, add_files, each_file
from c2fsum.cli.options import (
    CLIError,
    Command,
    add_decode_options,
    add_device,
    add_lines,
    add_model,
    decode_overrides,
    read_input,
    read_lines,
)

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
    from c2fsum.pipeline import has_words

    max_words = overrides.get("max_words") or 0
    if a.lines:  # one output line per input line, always: an empty one for a line without words
        lines = read_lines(path)
        if not lines:
            raise CLIError(f"{path}: empty input")
        read = [x is not None and has_words(x, max_words=max_words) for x in lines]
        docs = [x for x, r in zip(lines, read, strict=True) if r and x is not None]
    else:
        text = read_input(path)
        if not has_words(text, max_words=max_words):
            raise CLIError(f"{path}: empty input, no words to summarize")
        read, docs = [True], [text]
    summaries = []
    if docs:
        if not loaded:
            loaded.append(c2fsum.load(a.model, device=a.device))
        model = loaded[0]
        summaries = model.summarize(
            docs,
            model.options(**overrides),
            # bars on stderr for a batch or a long input (a 2 MB paper collection takes seconds to read)
            progress=not a.quiet and (len(docs) > 1 or sum(map(len, docs)) > LONG_INPUT_CHARS),
        )
    attention.extend({"file": path, **s.to_json()} if several else s.to_json() for s in summaries)
    written = iter(summaries)
    for r in read:
        s = next(written) if r else None
        if s is None:
            yield ""
        elif a.tokens:
            yield " ".join(s.tokens)
        else:
            yield s.text.replace("\n", " ") if a.lines else s.text


def _arguments(s: argparse.ArgumentParser) -> None:
    add_model(s)
    add_files(s)
    add_lines(s)
    s.add_argument(
        "--tokens",
        action="store_true",
        help="print the model's own tokens (lowercase, PTB, digits as #: what ROUGE scores) instead of the text",
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
