"""``c2fsum rouge``: rOUGE of any system's predictions against references."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from c2fsum.cli.options import CLIError, Command, add_official, add_rouge_clean


def cmd_rouge(a: argparse.Namespace) -> int:
    from c2fsum.evaluation.scoring import rouge_files

    for p in (a.candidates, a.references):
        if not Path(p).exists():
            raise CLIError(f"{p}: no such file")
    scores = rouge_files(a.candidates, a.references, official=a.official, clean=a.rouge_clean)
    print(json.dumps({k: v for k, v in scores.items() if k != "per_doc"}, indent=2))
    return 0


def _arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--candidates", required=True, metavar="C.jsonl", help='lines {"id", "candidate"}')
    s.add_argument("--references", required=True, metavar="R.jsonl", help='lines {"id", "references": [..]}')
    add_official(s)
    add_rouge_clean(s)


COMMAND = Command(
    "rouge",
    help="score any system's output against references",
    run=cmd_rouge,
    arguments=_arguments,
)
