"""``c2fsum compare A B``: paired bootstrap confidence intervals of ROUGE differences.

    c2fsum compare A B [--samples 1000] [--seed 0] [--confidence 0.95] [--json] [--rouge-clean none|ptb]
                       [--concat | --fields entropy,fine_fraction]

A and B are evaluation directories (``evaluate`` / ``baseline`` outputs) or their
``predictions.jsonl`` files, on the same documents.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from c2fsum.cli.options import Command, add_rouge_clean


def cmd_compare(a: argparse.Namespace) -> int:
    from c2fsum.evaluation.significance import COMPARED, compare_systems, format_comparison

    metrics = tuple(f"{m}_concat" for m in COMPARED) if a.concat else COMPARED
    if a.fields:
        metrics = tuple(x.strip() for x in a.fields.split(",") if x.strip())
    result = compare_systems(
        a.a, a.b, samples=a.samples, seed=a.seed, confidence=a.confidence, rouge_clean=a.rouge_clean, metrics=metrics
    )
    if a.json:
        print(json.dumps(result, indent=2))
        return 0
    name_a, name_b = Path(a.a).name or "A", Path(a.b).name or "B"
    if name_a == name_b:
        name_a, name_b = "A", "B"
    print(
        f"A = {result['a']}\nB = {result['b']}\n{result['n_docs']} documents, {a.samples} bootstrap samples, "
        f"seed {a.seed}"
    )
    print(format_comparison(result, name_a, name_b))
    return 0


def _arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("a", metavar="A", help="evaluation directory or predictions.jsonl of system A")
    s.add_argument("b", metavar="B", help="evaluation directory or predictions.jsonl of system B")
    s.add_argument("--samples", type=int, default=1000, help="bootstrap resamples (1000)")
    s.add_argument("--seed", type=int, default=0, help="seed of the resampling (0)")
    s.add_argument("--confidence", type=float, default=0.95, help="interval coverage (0.95)")
    s.add_argument("--json", action="store_true", help="print the full result as JSON")
    s.add_argument(
        "--concat",
        action="store_true",
        help="compare the concat protocol (all highlights one reference: rouge1_concat ...) instead of "
        "the best single highlight",
    )
    s.add_argument(
        "--fields",
        metavar="F1,F2",
        help="compare numbers recorded with each prediction instead of ROUGE, e.g. entropy,fine_fraction",
    )
    add_rouge_clean(s)


COMMAND = Command(
    "compare",
    help="paired bootstrap CIs of ROUGE differences between two systems",
    description="Is system A better than B? Paired bootstrap over the test documents "
    "(Koehn 2004) of the ROUGE-1/2/L difference A - B.",
    run=cmd_compare,
    arguments=_arguments,
)
