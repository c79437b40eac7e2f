"""``c2fsum prepare``: tokenize a corpus, build the vocabulary and statistics (:mod:`c2fsum.data.prepare`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from c2fsum.cli.options import CLIError, Command, add_workers, positive_int


def cmd_prepare(a: argparse.Namespace) -> int:
    from c2fsum.data.prepare import format_stats_table, prepare

    inputs = a.input if a.input else []
    if not inputs and not a.hf:
        raise CLIError("give --input PATH (or --hf NAME)")
    for p in inputs:
        if not Path(p).exists():
            raise CLIError(f"--input {p}: no such file or directory")
    stats = prepare(
        inputs if len(inputs) != 1 else inputs[0],
        a.output,
        vocab_size=a.vocab_size,
        all_highlights=a.all_highlights,
        workers=a.workers,
        progress=not a.quiet,
        url_lists=a.url_lists,
        hf=a.hf,
    )
    print(format_stats_table(stats))
    print(f"prepared data written to {a.output}")
    return 0


def _arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument(
        "--input",
        action="append",
        metavar="PATH",
        help="folder of .story files or of train/val/test files, or one split file "
        "(.jsonl, .jsonl.gz, .csv, .parquet); repeatable",
    )
    s.add_argument("--output", required=True, metavar="DATA_DIR", help="where to write the prepared data")
    s.add_argument("--vocab-size", type=positive_int, default=50000, help="most frequent words kept (50000)")
    s.add_argument(
        "--all-highlights", action="store_true", help="target = all highlights joined (default: the first highlight)"
    )
    s.add_argument("--url-lists", metavar="DIR", help="all_{train,val,test}.txt to split .story files")
    s.add_argument("--hf", metavar="NAME", help="load a Hugging Face dataset, e.g. cnn_dailymail (internet)")
    add_workers(s)


COMMAND = Command(
    "prepare",
    help="tokenize documents and their summaries (.story, JSONL, CSV, Parquet: CNN/DailyMail, "
    "SumPubMed, ...), "
    "build the vocabulary and statistics",
    run=cmd_prepare,
    arguments=_arguments,
)
