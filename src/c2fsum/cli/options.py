"""What several ``c2fsum`` subcommands share: how a command is declared (:class:`Command`), their
options (one definition each) and their error."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from c2fsum.config import DecodeConfig, bounds_error, decode_fields, option_fields
from c2fsum.errors import UserError
from c2fsum.pretrained.registry import SHIPPED

log = logging.getLogger(__name__)


class CLIError(UserError):
    """A one-line reason to stop; printed as ``c2fsum COMMAND: error: ...`` with exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose error is the one line that matters: ``c2fsum summarize: error:
    argument --beam: ...`` and where the options are listed, not the usage block (ten lines for
    ``summarize``) above it. Subcommands' parsers are of the class of their parent's."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n{self.prog} --help lists the options\n")


@dataclass(frozen=True)
class Command:
    """One ``c2fsum`` subcommand as its module ``c2fsum/cli/NAME.py`` declares it, once, at its end
    (``COMMAND = Command(...)``); :func:`c2fsum.cli.main.build_parser` makes every parser from these.

    ``arguments`` adds the command's own arguments to its parser; ``run`` does the work on the
    parsed arguments and returns the exit status (an error for the user raised instead:
    :func:`c2fsum.cli.main.main` prints it and exits 2). ``help`` is its line in ``c2fsum --help``,
    ``description`` the text under its own usage line (none: ``help`` again). A command made of
    ``subcommands`` (``plot attention|curves|reading``) has neither ``arguments`` nor ``run``: the
    word after its name, shown as ``metavar`` in its usage, chooses one of them.
    """

    name: str
    help: str
    run: Callable[[argparse.Namespace], int] | None = None
    arguments: Callable[[argparse.ArgumentParser], None] | None = None
    description: str | None = None
    subcommands: tuple[Command, ...] = ()
    metavar: str = "COMMAND"

    def __post_init__(self) -> None:
        if (self.run is None) == (not self.subcommands):
            raise ValueError(f"command {self.name}: expected either run or subcommands, not both or neither")


def positive_int(text: str) -> int:
    v = int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text}")
    return v


MODEL_HELP = (
    f"shipped model name ({', '.join(SHIPPED)}; `c2fsum models` describes them), "
    "run or checkpoint directory, or hub repo id owner/name[@rev]"
)

DECODE_FLAGS = tuple(decode_fields())
"""The decoding options a command takes (:func:`add_decode_options`): every field of
:class:`c2fsum.config.DecodeConfig`, by name."""


def add_model(s: argparse.ArgumentParser) -> None:
    """``--model MODEL`` (summarize, evaluate, plot attention, serve, export)."""
    s.add_argument("--model", required=True, metavar="MODEL", help=MODEL_HELP)


def add_data(s: argparse.ArgumentParser) -> None:
    """``--data DATA_DIR``: a prepared data folder (train, pretext, evaluate, baseline, plot attention)."""
    s.add_argument("--data", required=True, metavar="DATA_DIR", help="a prepared data folder (c2fsum prepare)")


def data_folder(a: argparse.Namespace) -> str:
    """``--data`` (:func:`add_data`) as given, refused with :class:`CLIError` before any work when
    it names no folder (pairs, vectors, plot attention)."""
    if not Path(a.data).is_dir():
        raise CLIError(f"--data {a.data}: no such directory")
    return a.data


def add_split(s: argparse.ArgumentParser) -> None:
    """``--split SPLIT``: which split of ``--data`` (evaluate, baseline, plot attention, experiment)."""
    s.add_argument("--split", default="test", help="train, val or test (test)")


def add_scoring(s: argparse.ArgumentParser) -> None:
    """``--limit N``, ``--official``, ``--rouge-clean``: how much of the split is scored, and how
    (evaluate, baseline); :func:`scoring` reads them back."""
    s.add_argument("--limit", type=int, help="first N documents only")
    add_official(s)
    add_rouge_clean(s)


def scoring(a: argparse.Namespace) -> dict:
    """The options of :func:`add_scoring`, as the keyword arguments the scoring functions take
    (``limit`` 0: every document)."""
    return {"limit": a.limit or 0, "official": a.official, "rouge_clean": a.rouge_clean}


def add_workers(s: argparse.ArgumentParser) -> None:
    """``--workers N``: processes that share the work (prepare, pairs)."""
    s.add_argument("--workers", type=positive_int, default=2, help="processes (2)")


def add_device(s: argparse.ArgumentParser) -> None:
    """``--device cpu|cuda``: where a loaded model runs (summarize, evaluate, plot attention, serve)."""
    s.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="where the model runs (cpu)")


def add_lines(s: argparse.ArgumentParser) -> None:
    """``--lines``: one article per input line (summarize, extract)."""
    s.add_argument(
        "--lines",
        action="store_true",
        help="one article per line (split on \\n only); one output line per input line, empty for a line "
        "without words or not UTF-8 (named in a warning)",
    )


def add_decode_options(s: argparse.ArgumentParser, *, flags: tuple[str, ...] = DECODE_FLAGS) -> None:
    """A flag for each decoding option of ``flags`` (default: all of them), made from its declaration
    (:class:`c2fsum.config.DecodeConfig`: help, bounds, metavar): ``--beam K``, ``--block-trigrams``
    / ``--no-block-trigrams``, ... Each left out is None, which keeps the model's own value
    (:func:`decode_overrides`)."""
    declared = decode_fields()
    for name in flags:
        kind, f = declared[name]
        flag = "--" + name.replace("_", "-")
        help = f"{f.metadata['help']}; default: the model's decode.{name}"
        if kind is bool:
            s.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=help)
        else:
            s.add_argument(flag, type=_bounded(name, kind), metavar=f.metadata["metavar"], help=help)


def add_settings(s: argparse.ArgumentParser, settings: type) -> None:
    """A flag for each option of the dataclass ``settings`` (fields made by
    :func:`c2fsum.config.option`: :class:`c2fsum.config.Word2VecSettings`, ...), made from its
    declaration: ``--min-count N`` with the option's help, default, bounds and metavar; a bool
    option is ``--name`` / ``--no-name``, a text option takes one of its ``choices``.
    :func:`given_settings` reads them back."""
    for name, (kind, f) in option_fields(settings).items():
        flag = "--" + name.replace("_", "-")
        if kind is bool:
            help = f"{f.metadata['help']} ({'on' if f.default else 'off'})"
            s.add_argument(flag, action=argparse.BooleanOptionalAction, default=f.default, help=help)
            continue
        help = f"{f.metadata['help']} ({f.default})"
        if f.metadata["choices"] is not None:
            s.add_argument(flag, choices=f.metadata["choices"], default=f.default, help=help)
        else:
            parse = _bounded(name, kind, settings)
            s.add_argument(flag, type=parse, default=f.default, metavar=f.metadata["metavar"], help=help)


def given_settings(a: argparse.Namespace, settings: type) -> Any:
    """The ``settings`` dataclass of the flags :func:`add_settings` made, as given (defaults where left out)."""
    return settings(**{name: getattr(a, name) for name in option_fields(settings)})


def _bounded(name: str, kind: type, settings: type = DecodeConfig) -> Callable[[str], Any]:
    """The argparse ``type`` of the option ``name`` of ``settings`` (by default a decoding option):
    ``kind`` (int or float) within its declared bounds."""

    def parse(text: str) -> Any:
        value = kind(text)
        expected = bounds_error(name, value, settings)
        if expected:
            raise argparse.ArgumentTypeError(f"{expected}, got {text}")
        return value

    parse.__name__ = kind.__name__  # argparse names it in "invalid int value: 'x'"
    return parse


def decode_overrides(a: argparse.Namespace) -> dict:
    """The decoding options given on the command line, by name (those left out are None)."""
    return {name: getattr(a, name, None) for name in DECODE_FLAGS}


def add_official(s: argparse.ArgumentParser) -> None:
    """``--official``: ROUGE from the Perl script instead of c2fsum's own (evaluate, baseline, rouge)."""
    s.add_argument("--official", action="store_true", help="score with the ROUGE-1.5.5 Perl script")


def add_rouge_clean(s: argparse.ArgumentParser) -> None:
    """``--rouge-clean none|ptb`` (evaluate, baseline, rouge, compare)."""
    s.add_argument(
        "--rouge-clean",
        choices=["none", "ptb"],
        default="none",
        help="none (default): score the strings exactly as ROUGE-1.5.5 would; ptb: drop PTB brackets "
        "(-lrb- ...) and <pad>-like tokens, <unk> matches nothing, </s> splits sentences (recorded in "
        "metrics.json; with --official the cleaned strings go to the Perl script)",
    )


def read_bytes(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    p = Path(path)
    if not p.exists():
        raise CLIError(f"{path}: no such file")
    if p.is_dir():
        raise CLIError(f"{path}: a directory; expected a text file (or - for stdin)")
    return p.read_bytes()


def read_input(path: str) -> str:
    """The whole file as text (a UTF-8 byte-order mark dropped)."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise CLIError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from e


def read_lines(path: str, *, warn: bool = True) -> list[str | None]:
    """The file's lines, split on ``\n`` only (``\r`` before it dropped; a form feed, ``\x1c``,
    U+2028 and the like stay inside their line), a UTF-8 byte-order mark dropped; None for a line
    that is not UTF-8, with a warning naming ``FILE:LINE`` (``warn``: the read that prints; a check
    before the command reads the file passes False, so the warning is printed once)."""
    data = read_bytes(path)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    raw = data.split(b"\n")
    if raw and raw[-1] == b"":  # the newline that ends the last line
        raw.pop()
    lines: list[str | None] = []
    for n, line in enumerate(raw, 1):
        try:
            lines.append(line.removesuffix(b"\r").decode("utf-8"))
        except UnicodeDecodeError as e:
            if warn:
                log.warning(
                    "%s:%d: not UTF-8 text (%s at byte %d of the line); its output line is empty",
                    path,
                    n,
                    e.reason,
                    e.start,
                )
            lines.append(None)
    return lines
