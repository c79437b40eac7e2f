"""What several ``c2fsum`` subcommands share: their options (one definition each) and their error."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from c2fsum.errors import UserError

log = logging.getLogger(__name__)


class CLIError(UserError):
    """A one-line reason to stop; printed as ``c2fsum COMMAND: error: ...`` with exit status 2."""


def non_negative_int(text: str) -> int:
    v = int(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text}")
    return v


def unit_share(text: str) -> float:
    v = float(text)
    if not 0 < v <= 1:
        raise argparse.ArgumentTypeError(f"expected a share in (0, 1], got {text}")
    return v


def positive_int(text: str) -> int:
    v = int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text}")
    return v


MODEL_HELP = (
    "shipped model name (cnndm-small, pubmed-model0, pubmed-model3; `c2fsum models` describes them), "
    "run or checkpoint directory, or hub repo id owner/name[@rev]"
)

DECODE_FLAGS = (
    "beam",
    "block_trigrams",
    "block_repeats",
    "read_budget",
    "replace_unk",
    "min_len",
    "max_len",
    "read_chunks",
    "max_words",
)
"""The decoding options a command takes (:func:`add_decode_options`), by their
:class:`c2fsum.decoding.options.DecodeOptions` names."""


def add_model(s: argparse.ArgumentParser) -> None:
    """``--model MODEL`` (summarize, evaluate, plot attention, serve, export)."""
    s.add_argument("--model", required=True, metavar="MODEL", help=MODEL_HELP)


def add_data(s: argparse.ArgumentParser) -> None:
    """``--data DATA_DIR``: a prepared data folder (train, pretext, evaluate, baseline, plot attention)."""
    s.add_argument("--data", required=True, metavar="DATA_DIR", help="a prepared data folder (c2fsum prepare)")


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
    """The decoding options of :data:`DECODE_FLAGS` (or those of ``flags``); each left out is
    None, which keeps the model's own value (:func:`decode_overrides`)."""
    if "beam" in flags:
        s.add_argument(
            "--beam",
            type=positive_int,
            metavar="K",
            help="beam size (default: the model's, 5 for cnndm-small, 4 for the PubMed models; 1 = greedy)",
        )
    if "block_trigrams" in flags:
        s.add_argument(
            "--block-trigrams",
            action=argparse.BooleanOptionalAction,
            default=None,
            help="never repeat a trigram (Paulus et al.); default: the model's (on for the shipped models)",
        )
    if "block_repeats" in flags:
        s.add_argument(
            "--block-repeats",
            action=argparse.BooleanOptionalAction,
            default=None,
            help="never write a word or word pair right after itself ('gene gene', 'to be to be'); "
            "default: the model's (on for the PubMed recipes)",
        )
    if "replace_unk" in flags:
        s.add_argument(
            "--replace-unk",
            action=argparse.BooleanOptionalAction,
            default=None,
            help="write the source word attended most in place of <unk> (default: the model's, off)",
        )
    if "min_len" in flags:
        s.add_argument(
            "--min-len",
            type=non_negative_int,
            metavar="N",
            help="fewest summary tokens before </s> (default: the model's, the 5th percentile of its training "
            "summaries' lengths; 0 allows an empty summary)",
        )
    if "max_len" in flags:
        s.add_argument(
            "--max-len",
            type=positive_int,
            metavar="N",
            help="most summary tokens (default: the model's, 40 for cnndm-small, 300 for the PubMed models)",
        )
    if "read_chunks" in flags:
        s.add_argument(
            "--read-chunks",
            type=positive_int,
            metavar="K",
            help="MODEL 3: chunks read per decoder step, the K of highest coarse weight (default: the "
            "model's decode.read_chunks, 1 = the thesis's argmax)",
        )
    if "read_budget" in flags:
        s.add_argument(
            "--read-budget",
            type=unit_share,
            metavar="SHARE",
            help="MODEL 3: once this share of a document's words was read at the word level, read "
            "again only chunks already read (default: the model's decode.read_budget, 1 = no limit)",
        )
    if "max_words" in flags:
        s.add_argument(
            "--max-words",
            type=non_negative_int,
            metavar="W",
            help="read only the first W words of each document (default and 0: the whole document; "
            "400 with the 10x40 grid reproduces the paper)",
        )


def decode_overrides(a: argparse.Namespace) -> dict:
    """The decoding options given on the command line, by name (those left out are None)."""
    return {name: getattr(a, name, None) for name in DECODE_FLAGS}


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


def read_lines(path: str) -> list[str | None]:
    """The file's lines, split on ``\n`` only (``\r`` before it dropped; a form feed, ``\x1c``,
    U+2028 and the like stay inside their line), a UTF-8 byte-order mark dropped; None for a line
    that is not UTF-8, with a warning naming ``FILE:LINE``."""
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
            log.warning(
                "%s:%d: not UTF-8 text (%s at byte %d of the line); its output line is empty",
                path,
                n,
                e.reason,
                e.start,
            )
            lines.append(None)
    return lines
