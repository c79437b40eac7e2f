"""``c2fsum table``: metrics.json files as one results table."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from c2fsum.cli.options import CLIError, Command


def cmd_table(a: argparse.Namespace) -> int:
    from c2fsum.reports.tables import results_table

    rows = []
    for p in a.metrics:
        path = Path(p)
        path = path / "metrics.json" if path.is_dir() else path
        if not path.exists():
            raise CLIError(f"{path}: no such file")
        rows.append(json.loads(path.read_text(encoding="utf-8")))
    print(results_table(rows))
    return 0


def _arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("metrics", nargs="+", metavar="METRICS", help="metrics.json files or their folders")


COMMAND = Command(
    "table",
    help="print metrics.json files as one results table",
    run=cmd_table,
    arguments=_arguments,
)
