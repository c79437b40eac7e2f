"""``c2fsum evaluate``: perplexity, decoding and ROUGE on a prepared split
(:func:`c2fsum.evaluation.evaluate.evaluate`)."""

from __future__ import annotations

import argparse

from c2fsum.cli.options import add_data, add_decode_options, add_device, add_model, add_rouge_clean, decode_overrides


def cmd_evaluate(a: argparse.Namespace) -> int:
    from c2fsum.evaluation.evaluate import evaluate
    from c2fsum.reports.tables import results_table

    metrics = evaluate(
        a.model,
        a.data,
        a.split,
        a.out,
        limit=a.limit or 0,
        device=a.device,
        official=a.official,
        progress=not a.quiet,
        rouge_clean=a.rouge_clean,
        **decode_overrides(a),
    )
    print(results_table([metrics]))
    print(f"predictions and metrics written to {a.out}")
    return 0


def add_evaluate_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``evaluate`` to the ``c2fsum`` subcommands; returns its parser."""
    s = subparsers.add_parser("evaluate", help="perplexity, beam search and ROUGE on a prepared split")
    add_model(s)
    add_data(s)
    s.add_argument("--split", default="test", help="train, val or test (test)")
    s.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="writes predictions.jsonl (candidate, readable text) and metrics.json",
    )
    s.add_argument("--limit", type=int, help="first N documents only")
    add_decode_options(s)
    s.add_argument("--official", action="store_true", help="score with the ROUGE-1.5.5 Perl script")
    add_rouge_clean(s)
    add_device(s)
    s.set_defaults(func=cmd_evaluate)
    return s
