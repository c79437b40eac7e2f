"""``c2fsum evaluate``: perplexity, decoding and ROUGE on a prepared split
(:func:`c2fsum.evaluation.evaluate.evaluate`)."""

from __future__ import annotations

import argparse

from c2fsum.cli.options import (
    Command,
    add_data,
    add_decode_options,
    add_device,
    add_model,
    add_scoring,
    add_split,
    decode_overrides,
    scoring,
)


def cmd_evaluate(a: argparse.Namespace) -> int:
    from c2fsum.evaluation.evaluate import evaluate
    from c2fsum.reports.tables import results_table

    metrics = evaluate(
        a.model,
        a.data,
        a.split,
        a.out,
        device=a.device,
        progress=not a.quiet,
        **scoring(a),
        **decode_overrides(a),
    )
    print(results_table([metrics]))
    print(f"predictions and metrics written to {a.out}")
    return 0


def _arguments(s: argparse.ArgumentParser) -> None:
    add_model(s)
    add_data(s)
    add_split(s)
    s.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="writes predictions.jsonl (candidate, readable text) and metrics.json",
    )
    add_scoring(s)
    add_decode_options(s)
    add_device(s)


COMMAND = Command(
    "evaluate",
    help="perplexity, beam search and ROUGE on a prepared split",
    run=cmd_evaluate,
    arguments=_arguments,
)
