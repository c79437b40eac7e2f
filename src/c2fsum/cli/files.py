"""Several input files in one call: ``c2fsum summarize|extract A.txt B.txt ...``.

Each file is read and summarized on its own. A file that cannot be (missing, a directory, not
UTF-8, without words) is named in one error line on stderr and the others go on; the exit status
is then 2, after the last file. With one file the output is as it always was; with several,
each file's output follows a header line ``==> FILE <==`` (as ``head`` and ``tail`` print) and
a blank line separates them, or, with ``--json``, each JSON line carries ``"file"``.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Iterable

from c2fsum.cli.inputs import EMPTY
from c2fsum.cli.options import CLIError, read_input, read_lines

log = logging.getLogger(__name__)

LONG_INPUT_CHARS = 100_000
"""Progress bars on stderr for an input longer than this (or for several articles in one file)."""


def read_articles(path: str, *, lines: bool, max_words: int = 0) -> tuple[list[bool], list[str]]:
    """The articles of one input file and, for each output line, whether an article is behind it.

    ``lines`` (``--lines``): one article per line, and one output line per input line, always; a
    line not UTF-8 or without words (in its first ``max_words``; 0: all) is no article, its output
    line stays empty. Else the whole file is one article, refused (:class:`CLIError`) without words.
    """
    from c2fsum.pipeline import has_words

    if lines:
        given = read_lines(path)
        if not given:
            raise CLIError(f"{path}: empty input")
        read = [x is not None and has_words(x, max_words=max_words) for x in given]
        return read, [x for x, r in zip(given, read, strict=True) if r and x is not None]
    text = read_input(path)
    if not has_words(text, max_words=max_words):
        raise CLIError(f"{path}: {EMPTY}")
    return [True], [text]


def article_names(path: str, read: list[bool], *, lines: bool) -> list[str]:
    """What each article of :func:`read_articles` is called in warnings and errors: the file, or
    ``FILE:LINE`` with ``lines`` (``--lines``; ``read`` says which lines are articles)."""
    if not lines:
        return [path]
    return [f"{path}:{n}" for n, r in enumerate(read, 1) if r]


def refuse(path: str, line: int | None, by: str, reason: str) -> None:
    """A text that gives no summary (its ``refusal``: :func:`c2fsum.pipeline.why_no_summary`) is
    never an empty line said by nothing: one text (``line`` None) is refused with :class:`CLIError`
    naming ``path``; with ``--lines`` the line's output stays empty and a warning names
    ``FILE:LINE`` (the other lines go on). ``by``: the model or method that gave nothing."""
    if line is None:
        raise CLIError(f"{path}: no summary from {by}: {reason}")
    log.warning("%s:%d: no summary from %s: %s; its output line is empty", path, line, by, reason)


def long_work(docs: list[str]) -> bool:
    """Whether the articles of one file call for progress bars on stderr: several, or a long one
    (a 2 MB paper collection takes seconds to read)."""
    return len(docs) > 1 or sum(map(len, docs)) > LONG_INPUT_CHARS


def add_files(s: argparse.ArgumentParser) -> None:
    """The ``FILE`` arguments: one or more article files, or ``-`` (the default) for stdin."""
    s.add_argument(
        "file",
        nargs="*",
        default=["-"],
        metavar="FILE",
        help="article text files (default: - for stdin); several files: each one's output under a "
        "'==> FILE <==' line (with --json: a \"file\" field); a file that fails is named on stderr, "
        "the others go on and the exit status is 2",
    )


def header(path: str) -> str:
    """The line that opens a file's output when several files are given."""
    return f"==> {path} <=="


def each_file(
    command: str, paths: list[str], work: Callable[[str, bool], Iterable[str]], *, json_lines: bool = False
) -> int:
    """Run ``work(path, several)`` for each file and print the lines it yields.

    ``several`` tells ``work`` that more than one file was given (it adds the file's name to
    its JSON lines then, ``json_lines``; plain output gets :func:`header` here). With several
    files a user error (:func:`c2fsum.errors.is_user_error`) stops that file only: it is printed
    as ``c2fsum COMMAND: error: FILE: reason`` (after its traceback when ``C2FSUM_DEBUG=1``) and
    the status at the end is 2. With one file it is raised, as every command's; a bug always is.
    """
    import os
    import traceback

    from c2fsum.errors import error_line, is_user_error

    several, failed, first = len(paths) > 1, [], True
    for path in paths:
        try:
            lines = list(work(path, several))
        except Exception as e:
            if not several or not is_user_error(e):
                raise
            if os.environ.get("C2FSUM_DEBUG") == "1":
                traceback.print_exc()
            line = error_line(e)
            print(f"c2fsum {command}: error: {line if line.startswith(path) else f'{path}: {line}'}", file=sys.stderr)
            failed.append(path)
            continue
        if several and not json_lines:
            print(("" if first else "\n") + header(path))
        first = False
        for out in lines:
            print(out, flush=True)
    if failed:
        print(f"c2fsum {command}: {len(failed)} of {len(paths)} files failed: {', '.join(failed)}", file=sys.stderr)
    return 2 if failed else 0
