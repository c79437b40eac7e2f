"""``c2fsum pretext``: self-supervised pretraining data (:mod:`c2fsum.data.pretext`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from c2fsum.cli.options import CLIError, Command, add_data, positive_int


def cmd_pretext(a: argparse.Namespace) -> int:
    from c2fsum.data.pretext import write_pretext

    for p in [a.data, *a.extra_train]:
        if not Path(p).exists():
            raise CLIError(f"{p}: no such file or directory")
    counts = write_pretext(
        a.data,
        a.out,
        task=a.task,
        stride=a.stride,
        val_holdout=a.val_holdout,
        extra_train=a.extra_train,
        with_summaries=a.with_summaries,
        skip_short=a.skip_short,
        validate_on=a.validate_on,
    )
    print(f"pretext ({a.task}): {counts['train']:,} training and {counts['val']:,} validation examples in {a.out}")
    return 0


def _arguments(s: argparse.ArgumentParser) -> None:
    add_data(s)
    s.add_argument("--out", required=True, metavar="DIR", help="where to write the pretext data folder")
    s.add_argument("--task", choices=["lead", "rest", "mixed"], default="mixed", help="see c2fsum.data.pretext")
    s.add_argument("--stride", type=positive_int, default=2, help="a window every STRIDE sentences (2)")
    s.add_argument(
        "--val-holdout",
        type=int,
        default=100,
        help="the last N val documents make the pretext validation set, the rest train (100, as the CPU presets)",
    )
    s.add_argument(
        "--extra-train", action="append", default=[], metavar="FILE", help="another prepared split file to read"
    )
    s.add_argument(
        "--with-summaries",
        type=int,
        default=0,
        metavar="K",
        help="multi-task fine-tuning data: the pretext windows plus K copies of each real training "
        "document, and the real val.jsonl (0: pretext only)",
    )
    s.add_argument(
        "--skip-short",
        action="store_true",
        help="lead task: a window may start with short lines (bylines) that its target skips",
    )
    s.add_argument(
        "--validate-on",
        choices=["pretext", "summaries"],
        default="pretext",
        help="val.jsonl: pretext windows of the held-out documents, or those documents with their summaries "
        "(then train with data.val_holdout=0)",
    )


COMMAND = Command(
    "pretext",
    help="self-supervised pretraining data (lead copying / lead from the rest)",
    run=cmd_pretext,
    arguments=_arguments,
)
