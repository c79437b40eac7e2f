"""Command-line options that several ``c2fsum`` subcommands share (one definition each)."""

from __future__ import annotations

import argparse


def non_negative_int(text: str) -> int:
    v = int(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text}")
    return v


def positive_int(text: str) -> int:
    v = int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text}")
    return v


def add_min_len(s: argparse.ArgumentParser) -> None:
    """``--min-len N`` (summarize, evaluate)."""
    s.add_argument(
        "--min-len",
        type=non_negative_int,
        metavar="N",
        help="fewest summary tokens before </s> (default: the model's, the 5th percentile of its training "
        "summaries' lengths; 0 allows an empty summary)",
    )


def add_read_chunks(s: argparse.ArgumentParser) -> None:
    """``--read-chunks K`` (summarize, evaluate)."""
    s.add_argument(
        "--read-chunks",
        type=positive_int,
        metavar="K",
        help="MODEL 3: chunks read per decoder step, the K of highest coarse weight (default: the "
        "model's decode.read_chunks, 1 = the thesis's argmax)",
    )


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
