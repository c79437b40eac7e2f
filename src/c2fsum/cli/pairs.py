"""``c2fsum pairs``: a prepared folder of (source sentence -> abstract sentence) pairs for the rewriter.

    c2fsum pairs --data DATA_DIR --out PAIRS_DIR [--min-recall R] [--workers 2]

Each abstract sentence is aligned with the paper's sentence of highest ROUGE-L recall
(:mod:`c2fsum.data.align`); pairs at or above ``--min-recall`` are written as prepared records
(:mod:`c2fsum.data.pairs`), which ``c2fsum train`` and ``c2fsum evaluate`` read like any folder.
"""

from __future__ import annotations

import argparse

from c2fsum.cli.options import Command, add_data, add_workers, data_folder


def unit_float(text: str) -> float:
    v = float(text)
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text}")
    return v


def cmd_pairs(a: argparse.Namespace) -> int:
    from c2fsum.data.pairs import MIN_RECALL, format_pairs_stats, pairs

    stats = pairs(
        data_folder(a),
        a.out,
        min_recall=MIN_RECALL if a.min_recall is None else a.min_recall,
        workers=a.workers,
        progress=not a.quiet,
    )
    print(format_pairs_stats(stats))
    print(f"pairs written to {a.out}")
    return 0


def _arguments(s: argparse.ArgumentParser) -> None:
    add_data(s)
    s.add_argument("--out", required=True, metavar="PAIRS_DIR", help="where to write the pairs (a folder of its own)")
    s.add_argument(
        "--min-recall",
        type=unit_float,
        default=None,
        metavar="R",
        help="keep pairs whose ROUGE-L recall of the abstract sentence is at least R "
        "(default: c2fsum.data.pairs.MIN_RECALL, chosen from the recall distribution; stats.json records it)",
    )
    add_workers(s)


COMMAND = Command(
    "pairs",
    help="align abstract sentences to paper sentences: a prepared folder of sentence pairs for a rewriter",
    run=cmd_pairs,
    arguments=_arguments,
)
