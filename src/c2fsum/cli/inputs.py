"""Refuse bad input before anything heavy is imported: the files a command reads and the model it
names, checked as the command itself would check them, so a refusal comes in a fraction of a second
instead of after torch loads (issue 39; ``bench/refusal_time.py`` measures it).

Imports nothing heavy (no torch, numpy, nltk): :func:`check_before_loading` runs in
:func:`c2fsum.cli.main.main` before the command's own function. What it lets through is checked
again, in full, by the command (``summarize`` tokenizes the text to see that it has words).
"""

from __future__ import annotations

import argparse

from c2fsum.cli.options import CLIError, read_input, read_lines

EMPTY = "empty input, no words to summarize"
"""The refusal of a text without words (``summarize`` and ``extract`` word it alike)."""


def _files(a: argparse.Namespace) -> list[str]:
    """The input files a command was given (``file`` or ``files``; one name or a list), stdin left out."""
    found: list[str] = []
    for name in ("file", "files"):
        given = getattr(a, name, None)
        if isinstance(given, str):
            found.append(given)
        elif isinstance(given, list | tuple):
            found.extend(str(g) for g in given)
    return [f for f in found if f != "-"]  # stdin can be read only once: the command checks it


def check_input(path: str, *, lines: bool = False) -> None:
    """Raise :class:`CLIError` for a file ``summarize`` or ``extract`` would refuse without reading
    a word: missing, a directory, not UTF-8 (a whole text; ``--lines`` only warns per line), or
    empty (no line with ``--lines``; nothing but white space without)."""
    if lines:
        if not read_lines(path, warn=False):  # the command's own read warns of a line not UTF-8
            raise CLIError(f"{path}: empty input")
        return
    if not read_input(path).strip():
        raise CLIError(f"{path}: {EMPTY}")


def check_model(spec: str) -> None:
    """Raise :class:`~c2fsum.errors.CheckpointError` for a model name that names nothing (the
    same resolution, and the same message, as loading it: :func:`c2fsum.pretrained.registry.resolve_model`)."""
    from pathlib import Path

    from c2fsum.errors import CheckpointError
    from c2fsum.pretrained.registry import parse_hub_id, resolve_model  # torch-free

    if parse_hub_id(spec) is None or Path(spec).expanduser().exists():  # a hub repository is fetched once, by the load
        where = resolve_model(spec)
        if not where.is_dir():
            raise CheckpointError(f"{spec}: {not_a_model(where)}")


def not_a_model(path) -> str:
    """Why a path that is no directory names no model (a file, empty or not, a device, ...)."""
    what = "an empty file" if path.is_file() and path.stat().st_size == 0 else "a file, not a directory"
    return (
        f"{what}; a model is a shipped name, a run or checkpoint directory (holding model.safetensors, "
        "or best/ or last/), or a hub repository id owner/name"
    )


def check_before_loading(a: argparse.Namespace) -> None:
    """The input file of ``summarize`` / ``extract`` (when it is one file), then the ``--model`` of
    any command that loads one; raises the error the command would raise later."""
    files = _files(a)
    if a.command in ("summarize", "extract") and len(files) == 1:
        # several files: the command names each bad one and still summarizes the others
        check_input(files[0], lines=bool(getattr(a, "lines", False)))
    model = getattr(a, "model", None)
    if isinstance(model, str) and a.command in ("summarize", "batch", "extract", "evaluate", "serve", "plot"):
        check_model(model)
