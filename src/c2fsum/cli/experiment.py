"""``c2fsum experiment``: train presets under one budget, evaluate them and the baselines, report.

    c2fsum experiment --data DATA_DIR --presets P1,P2,... --out EXP_DIR (--budget-minutes N | --epochs N)
                      [--threads 1] [--eval-limit N] [--beam K] [--set key=value ...] [--device cpu|cuda]
                      [--max-words W] [--whole-documents] [--docs ID,...] [--report-only]

Models read the first ``--max-words`` words of each test article (default 400, the thesis's
protocol); ``--whole-documents`` adds a separate evaluation on whole articles (``eval-whole/``).

Rerunning the same command keeps finished runs and evaluations, resumes an interrupted run and
rebuilds the report (see :mod:`c2fsum.experiments.runner`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from c2fsum.cli.options import Command, add_decode_options, add_device, add_split
from c2fsum.config import PAPER_MAX_WORDS  # no torch: parsing arguments stays light
from c2fsum.errors import InputError


def _presets(text: str) -> list[str]:
    names = [x.strip() for x in text.split(",") if x.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"expected comma-separated preset names, got {text!r}")
    return names


def _print_tables(out: str) -> None:
    from c2fsum.reports.experiment import collect
    from c2fsum.reports.tables import results_table

    _, systems, _ = collect(out)
    rows = [{**s.metrics, "model": s.label} for s in systems if s.metrics is not None]
    if rows:
        print(results_table(rows))


def cmd_experiment(a: argparse.Namespace) -> int:
    from c2fsum.experiments.runner import ExperimentSettings, run_experiment

    if a.report_only:
        from c2fsum.reports.experiment import build_report

        if not (Path(a.out) / "experiment.json").exists():
            raise FileNotFoundError(f"--out {a.out}: no experiment.json (run the experiment first)")
        path = build_report(a.out, progress=not a.quiet, doc_ids=a.docs)
        _print_tables(a.out)
        print(f"report written to {path}")
        return 0
    if a.data is None or a.presets is None:
        raise InputError("experiment: --data and --presets are required (unless --report-only)")
    settings = ExperimentSettings(
        data=a.data,
        presets=a.presets,
        budget_minutes=a.budget_minutes or 0.0,
        epochs=a.epochs or 0,
        max_steps=a.max_steps or 0,
        overrides=list(a.set or []),
        threads=a.threads,
        split=a.split,
        eval_limit=a.eval_limit or 0,
        beam=a.beam,
        device=a.device,
        seed=a.seed,
        max_words=PAPER_MAX_WORDS if a.max_words is None else a.max_words,
        whole_documents=a.whole_documents,
    )
    result = run_experiment(settings, a.out, progress=not a.quiet, doc_ids=a.docs)
    _print_tables(a.out)
    for f in result["failures"]:
        print(f"failed: {f['preset']} ({f['stage']}): {f['error']}")
    print(f"report written to {result['report']}")
    return 1 if result["failures"] else 0


def _arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--data", metavar="DATA_DIR", help="output of `c2fsum prepare`")
    s.add_argument(
        "--presets",
        type=_presets,
        metavar="P1,P2,...",
        help="preset names (configs/NAME.yaml) or config files, comma-separated",
    )
    s.add_argument("--out", required=True, metavar="EXP_DIR", help="experiment directory (runs, eval, report)")
    budget = s.add_mutually_exclusive_group()
    budget.add_argument("--budget-minutes", type=float, metavar="N", help="training minutes per preset")
    budget.add_argument("--epochs", type=int, metavar="N", help="training epochs per preset")
    s.add_argument("--max-steps", type=int, metavar="N", help="also stop each run after N steps (tests)")
    s.add_argument(
        "--set", nargs="+", action="extend", metavar="KEY=VALUE", help="config overrides applied to every preset"
    )
    s.add_argument("--threads", type=int, default=1, help="torch threads per run (1)")
    add_split(s)
    s.add_argument("--eval-limit", type=int, metavar="N", help="evaluate the first N documents only")
    add_decode_options(s, flags=("beam",))
    add_device(s)
    s.add_argument("--seed", type=int, help="random seed of every run")
    s.add_argument(
        "--max-words",
        type=int,
        metavar="W",
        help="models read the first W words of each article (default: config.PAPER_MAX_WORDS, 400, the thesis's "
        "protocol, its 10x40 grid; 0: whole articles)",
    )
    s.add_argument(
        "--whole-documents",
        action="store_true",
        help="also evaluate every model on whole articles (eval-whole/, a separate table of the report)",
    )
    s.add_argument(
        "--docs",
        type=_presets,
        metavar="ID,ID,...",
        help="test documents shown side by side (default: the first 3); heatmaps use the first",
    )
    s.add_argument("--report-only", action="store_true", help="only rebuild the report of --out")


COMMAND = Command(
    "experiment",
    help="train presets under one budget, evaluate, write a report",
    description="Train each preset under the same budget (resumable), evaluate each "
    "and the FIRST / LEAD-3 / ILP / BERKELEY baselines on the test split, and write "
    "report.html and report.md (thesis Tables 6.1-6.2, Figures 6.1-6.12).",
    run=cmd_experiment,
    arguments=_arguments,
)
