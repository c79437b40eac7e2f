"""``c2fsum baseline``: the extractive baselines (:mod:`c2fsum.baselines`), scored like the models."""

from __future__ import annotations

import argparse
from pathlib import Path

from c2fsum.cli.options import CLIError, Command, add_data, add_scoring, add_split, positive_int, scoring


def _fit_berkeley(a: argparse.Namespace) -> Path:
    """Fit BERKELEY's weights on the data's training split (``--fit-docs``), choose lambda and the
    budget on its validation split (``--val-docs``); write and return ``OUT/weights.json``."""
    from c2fsum.baselines.berkeley import fit, save_weights
    from c2fsum.data.prepare import read_split

    budgets = [positive_int(b) for b in a.fit_budgets.split(",")] if a.fit_budgets else [a.budget or 25]
    train = list(read_split(a.data, "train", limit=a.fit_docs))
    val = list(read_split(a.data, "val", limit=a.val_docs))
    record = fit(train, val, budgets, metric=a.fit_metric)
    record["command"] = (
        f"c2fsum baseline berkeley --data {a.data} --fit-docs {a.fit_docs} --val-docs {a.val_docs} "
        f"--fit-budgets {','.join(map(str, budgets))} --fit-metric {a.fit_metric}"
    )
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    save_weights(out / "weights.json", record)
    print(f"berkeley: lambda {record['lambda']:g}, budget {record['budget']} chosen; weights in {out / 'weights.json'}")
    return out / "weights.json"


BASELINES = ("first", "lead3", "lead", "ilp", "oracle", "berkeley")
"""As :data:`c2fsum.baselines.extractive.BASELINES` (not imported: ``c2fsum --help`` stays light)."""


def cmd_baseline(a: argparse.Namespace) -> int:
    from c2fsum.baselines.extractive import ILP_BUDGET
    from c2fsum.evaluation.baselines import run_baseline
    from c2fsum.reports.tables import results_table

    weights = a.weights
    if a.name != "berkeley" and (a.weights or a.fit_docs is not None or a.no_compression or a.no_anaphora):
        raise CLIError("--weights, --fit-docs, --no-compression, --no-anaphora are for berkeley only")
    budget = a.budget
    if a.name == "berkeley":
        from c2fsum.baselines.berkeley import load_weights

        if a.fit_docs is not None:
            weights = _fit_berkeley(a)
        if budget is None:
            budget = int(load_weights(weights)[1]["budget"])
    metrics = run_baseline(
        a.name,
        a.data,
        a.split,
        a.out,
        ilp_budget=budget or ILP_BUDGET,
        berkeley_weights=weights,
        berkeley_compress=not a.no_compression,
        berkeley_anaphora=not a.no_anaphora,
        **scoring(a),
    )
    print(results_table([metrics]))
    if a.name == "berkeley":
        print(
            f"average length {metrics['avg_words']:.1f} words, compression {100 * metrics['compression']:.1f}% "
            f"of the chosen sentences' tokens deleted, {metrics['pronouns_rewritten']:.2f} pronouns "
            f"rewritten per summary, {metrics['dangling_pronouns']} dangling pronouns"
        )
    print(f"predictions and metrics written to {a.out}")
    return 0


def _arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("name", choices=BASELINES, help="which baseline (see above)")
    s.add_argument(
        "--budget",
        type=positive_int,
        default=None,
        help="lead, ilp, oracle, berkeley: summary length budget in words (25; berkeley: the budget "
        "chosen on validation with its weights)",
    )
    s.add_argument(
        "--weights",
        metavar="FILE",
        help="berkeley: unit weights, a weights.json or a shipped name, cnndm or pubmed (default: cnndm)",
    )
    s.add_argument("--no-compression", action="store_true", help="berkeley ablation: whole sentences only")
    s.add_argument(
        "--no-anaphora", action="store_true", help="berkeley ablation: no anaphoricity constraints, no rewriting"
    )
    s.add_argument(
        "--fit-docs",
        type=int,
        metavar="N",
        help="berkeley: first fit the weights on the first N training documents of --data (0: all), "
        "writing OUT/weights.json",
    )
    s.add_argument("--val-docs", type=positive_int, default=150, help="berkeley --fit-docs: validation documents (150)")
    s.add_argument(
        "--fit-budgets",
        metavar="B,B",
        help="berkeley --fit-docs: budgets to choose from on validation (default: --budget, or 25)",
    )
    s.add_argument(
        "--fit-metric",
        default="rouge1",
        choices=["rouge1", "rouge2", "rougeL", "rouge1_concat", "rouge2_concat", "rougeL_concat"],
        help="berkeley --fit-docs: the validation score that chooses lambda and the budget (rouge1)",
    )
    add_data(s)
    add_split(s)
    s.add_argument("--out", required=True, metavar="DIR", help="writes predictions.jsonl and metrics.json")
    add_scoring(s)


COMMAND = Command(
    "baseline",
    help="extractive baselines: FIRST (first sentence), LEAD-3, LEAD (first WORDS words), ILP (bigram "
    "coverage under a word budget), ORACLE (greedy ROUGE-1+2 against the reference under the budget); "
    "BERKELEY (Durrett et al. 2016: compressive ILP, anaphoricity constraints, learned unit scores)",
    run=cmd_baseline,
    arguments=_arguments,
)
