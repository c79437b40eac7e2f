"""The ``c2fsum`` command (argparse). Nothing in the package imports this module.

c2fsum prepare    --input PATH --output DATA_DIR [--vocab-size N] [--all-highlights]
c2fsum pretext    --data DATA_DIR --out DIR [--task lead|rest|mixed] [--stride S] [--skip-short]
                  [--validate-on pretext|summaries] [--with-summaries K] [--extra-train FILE]
c2fsum train      --config FILE --data DATA_DIR --out RUN_DIR [--max-steps N] [--max-minutes M]
                  [--set key=value ...] [--resume] [--device cpu|cuda] [--seed S] [--nproc N]
c2fsum summarize  --model RUN_DIR [--beam K] [--[no-]block-trigrams] [--min-len N] [--attention-out FILE]
                  [--max-words W] [--lines] [--tokens] [FILE|-]
c2fsum evaluate   --model RUN_DIR --data DATA_DIR --split SPLIT --out DIR [--beam K] [--limit N] [--max-words W]
                  [--min-len N] [--official] [--rouge-clean none|ptb]
c2fsum baseline   first|lead3|lead|ilp|oracle|berkeley --data DATA_DIR --split SPLIT --out DIR [--budget WORDS]
                  [--limit N] [--official] [--rouge-clean none|ptb]
                  [--weights FILE] [--fit-docs N [--val-docs N] [--fit-budgets B,B] [--fit-metric M]]
                  [--no-compression] [--no-anaphora]                                   (berkeley)
c2fsum rouge      --candidates C.jsonl --references R.jsonl [--official] [--rouge-clean none|ptb]
c2fsum table      METRICS [METRICS ...]                                          (metrics.json files or folders)
c2fsum plot       attention --model RUN_DIR --data DATA_DIR --doc ID --out FILE.png [--max-words W]
c2fsum plot       curves RUN_DIR ... --out FILE.png | reading EVAL_DIR ... --out FILE.png  (cli/plot.py)
c2fsum compare    A B [--samples N] [--seed S] [--concat]                        (cli/compare.py)
c2fsum experiment --data DATA_DIR --presets P1,P2 --out EXP_DIR --budget-minutes N|--epochs N  (cli/experiment.py)
c2fsum serve      --model RUN_DIR [--host 127.0.0.1] [--port 8000]               (cli/serve.py)
c2fsum export     --model RUN_DIR --out DIR [--name NAME] [--dtype float16] [--eval DIR]  (cli/export.py)
c2fsum vectors    --data DATA_DIR --out FILE.safetensors [--dim 128] [--epochs 5]  (cli/vectors.py)

--model takes a shipped model name (cnndm-small), a run or checkpoint directory, or a Hugging Face
hub repository id owner/name[@revision] (c2fsum/models/registry.py). summarize, evaluate, plot
attention and serve read documents through one path, c2fsum.pipeline.Pipeline.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import traceback
from pathlib import Path

from c2fsum.cli.options import decode_overrides, positive_int
from c2fsum.errors import UserError

log = logging.getLogger("c2fsum")


class CLIError(UserError):
    """A one-line reason to stop; printed as ``c2fsum COMMAND: error: ...`` with exit status 2."""


# -- subcommands -----------------------------------------------------------------------------
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


def cmd_train(a: argparse.Namespace) -> int:
    import os

    if a.nproc and a.nproc > 1 and "WORLD_SIZE" not in os.environ:  # not yet under torchrun
        from c2fsum.cli.launch import launch

        return launch(a.nproc, a.argv)
    from c2fsum.config import load_config
    from c2fsum.training.distributed import shutdown
    from c2fsum.training.trainer import Trainer

    overrides = list(a.set or [])
    if a.max_steps is not None:
        overrides.append(f"train.max_steps={a.max_steps}")
    if a.max_minutes is not None:
        overrides.append(f"train.max_minutes={a.max_minutes}")
    if a.device:
        overrides.append(f"train.device={a.device}")
    if a.seed is not None:
        overrides.append(f"train.seed={a.seed}")
    cfg = load_config(a.config, overrides)
    if a.resume and (Path(a.out) / "config.json").exists():
        from c2fsum.config import config_from_json

        saved = config_from_json((Path(a.out) / "config.json").read_text(encoding="utf-8"))
        if saved.model != cfg.model:
            raise CLIError(f"--resume: the model section differs from {a.out}/config.json")
    trainer = Trainer(cfg, a.data, a.out, resume=a.resume, progress=not a.quiet)
    summary = trainer.fit()
    if trainer.dist.is_main:
        print(json.dumps(summary, indent=2))
    shutdown(trainer.dist)
    return 0


def _read_input(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    p = Path(path)
    if not p.exists():
        raise CLIError(f"{path}: no such file")
    if p.is_dir():
        raise CLIError(f"{path}: a directory; expected a text file (or - for stdin)")
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise CLIError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from e


LONG_INPUT_CHARS = 100_000
"""``summarize`` shows progress bars for an input longer than this (or for several articles)."""


def cmd_summarize(a: argparse.Namespace) -> int:
    import c2fsum

    if a.attention_out and not Path(a.attention_out).resolve().parent.is_dir():
        raise CLIError(
            f"--attention-out {a.attention_out}: no directory {Path(a.attention_out).parent} (it is not created)"
        )
    text = _read_input(a.file)
    lines = text.splitlines() if a.lines else [text]
    docs = [line for line in lines if line.strip()]  # --lines: a blank line gets an empty summary line
    if not docs:
        raise CLIError(f"{a.file}: empty input")
    model = c2fsum.load(a.model, device=a.device)
    summaries = model.summarize(
        docs,
        model.options(**decode_overrides(a)),
        # bars on stderr for a batch or a long input (a 2 MB paper collection takes seconds to read)
        progress=not a.quiet and (len(docs) > 1 or len(text) > LONG_INPUT_CHARS),
    )
    if a.lines:  # one output line per input line, always
        written = iter(summaries)
        for line in lines:
            s = next(written) if line.strip() else None
            print("" if s is None else (" ".join(s.tokens) if a.tokens else s.text.replace("\n", " ")))
    else:
        for s in summaries:
            print(" ".join(s.tokens) if a.tokens else s.text)
    if a.attention_out:
        from c2fsum.utils.io import atomic_write_text

        atomic_write_text(a.attention_out, json.dumps([s.to_json() for s in summaries]))
    return 0


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


def _fit_berkeley(a: argparse.Namespace) -> Path:
    """Fit BERKELEY's weights on the data's training split (``--fit-docs``), choose lambda and the
    budget on its validation split (``--val-docs``); write and return ``OUT/weights.json``."""
    from c2fsum.data.prepare import read_split
    from c2fsum.evaluation.berkeley import fit, save_weights

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


def cmd_baseline(a: argparse.Namespace) -> int:
    from c2fsum.evaluation.baselines import ILP_BUDGET, run_baseline
    from c2fsum.reports.tables import results_table

    weights = a.weights
    if a.name != "berkeley" and (a.weights or a.fit_docs is not None or a.no_compression or a.no_anaphora):
        raise CLIError("--weights, --fit-docs, --no-compression, --no-anaphora are for berkeley only")
    budget = a.budget
    if a.name == "berkeley":
        from c2fsum.evaluation.berkeley import load_weights

        if a.fit_docs is not None:
            weights = _fit_berkeley(a)
        if budget is None:
            budget = int(load_weights(weights)[1]["budget"])
    metrics = run_baseline(
        a.name,
        a.data,
        a.split,
        a.out,
        limit=a.limit or 0,
        official=a.official,
        ilp_budget=budget or ILP_BUDGET,
        rouge_clean=a.rouge_clean,
        berkeley_weights=weights,
        berkeley_compress=not a.no_compression,
        berkeley_anaphora=not a.no_anaphora,
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


def cmd_rouge(a: argparse.Namespace) -> int:
    from c2fsum.evaluation.scoring import rouge_files

    for p in (a.candidates, a.references):
        if not Path(p).exists():
            raise CLIError(f"{p}: no such file")
    scores = rouge_files(a.candidates, a.references, official=a.official, clean=a.rouge_clean)
    print(json.dumps({k: v for k, v in scores.items() if k != "per_doc"}, indent=2))
    return 0


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


# -- parser ----------------------------------------------------------------------------------
MODEL_HELP = "shipped model name (e.g. cnndm-small), run or checkpoint directory, or hub repo id owner/name[@rev]"


def build_parser() -> argparse.ArgumentParser:
    from c2fsum import __version__
    from c2fsum.cli.options import add_decode_options, add_device, add_rouge_clean

    p = argparse.ArgumentParser(prog="c2fsum", description="Coarse-to-fine attention summarization toolkit.")
    p.add_argument("--version", action="version", version=f"c2fsum {__version__}")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars, warnings only")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("prepare", help="tokenize CNN/DailyMail, build the vocabulary and statistics")
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
    s.add_argument("--workers", type=positive_int, default=2, help="processes (2)")
    s.set_defaults(func=cmd_prepare)

    s = sub.add_parser("pretext", help="self-supervised pretraining data (lead copying / lead from the rest)")
    s.add_argument("--data", required=True, metavar="DATA_DIR", help="output of `c2fsum prepare`")
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
    s.set_defaults(func=cmd_pretext)

    s = sub.add_parser("train", help="train a model from a config preset")
    s.add_argument("--config", required=True, metavar="FILE", help="preset, e.g. configs/model0-cpu.yaml")
    s.add_argument("--data", required=True, metavar="DATA_DIR", help="output of `c2fsum prepare`")
    s.add_argument("--out", required=True, metavar="RUN_DIR", help="run directory (checkpoints, logs)")
    s.add_argument("--max-steps", type=int, help="stop after N optimizer steps in all")
    s.add_argument("--max-minutes", type=float, help="stop after M minutes of training")
    s.add_argument(
        "--set",
        nargs="+",
        action="extend",
        metavar="KEY=VALUE",
        help="override config fields, e.g. --set model.hidden=256 train.lr=0.5",
    )
    s.add_argument("--resume", action="store_true", help="continue the run in RUN_DIR where it stopped")
    s.add_argument("--device", choices=["cpu", "cuda"], help="device (default: config, cpu)")
    s.add_argument("--seed", type=int, help="random seed")
    s.add_argument(
        "--nproc",
        type=positive_int,
        metavar="N",
        help="train on N local processes through torchrun (docs/distributed.md)",
    )
    s.set_defaults(func=cmd_train)

    s = sub.add_parser("summarize", help="summarize raw text from a file or stdin")
    s.add_argument("--model", required=True, metavar="MODEL", help=MODEL_HELP)
    s.add_argument("file", nargs="?", default="-", metavar="FILE|-", help="article text (default: stdin)")
    s.add_argument("--lines", action="store_true", help="one article per line; one summary per line")
    s.add_argument(
        "--tokens",
        action="store_true",
        help="print the model's own tokens (lowercase, PTB, digits as #: what ROUGE scores) instead of the text",
    )
    add_decode_options(s)
    s.add_argument("--attention-out", metavar="FILE", help="write each output word's attention (JSON)")
    add_device(s)
    s.set_defaults(func=cmd_summarize)

    s = sub.add_parser("evaluate", help="perplexity, beam search and ROUGE on a prepared split")
    s.add_argument("--model", required=True, metavar="MODEL", help=MODEL_HELP)
    s.add_argument("--data", required=True, metavar="DATA_DIR", help="a prepared data folder (c2fsum prepare)")
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

    s = sub.add_parser(
        "baseline",
        help="extractive baselines: FIRST (first sentence), LEAD-3, LEAD (first WORDS words), ILP (bigram "
        "coverage under a word budget), ORACLE (greedy ROUGE-1+2 against the reference under the budget); "
        "BERKELEY (Durrett et al. 2016: compressive ILP, anaphoricity constraints, learned unit scores)",
    )
    s.add_argument("name", choices=["first", "lead3", "lead", "ilp", "oracle", "berkeley"])
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
    s.add_argument("--data", required=True, metavar="DATA_DIR", help="a prepared data folder (c2fsum prepare)")
    s.add_argument("--split", default="test", help="train, val or test (test)")
    s.add_argument("--out", required=True, metavar="DIR", help="writes predictions.jsonl and metrics.json")
    s.add_argument("--limit", type=int, help="first N documents only")
    s.add_argument("--official", action="store_true", help="score with the ROUGE-1.5.5 Perl script")
    add_rouge_clean(s)
    s.set_defaults(func=cmd_baseline)

    s = sub.add_parser("rouge", help="score any system's output against references")
    s.add_argument("--candidates", required=True, metavar="C.jsonl", help='lines {"id", "candidate"}')
    s.add_argument("--references", required=True, metavar="R.jsonl", help='lines {"id", "references": [..]}')
    s.add_argument("--official", action="store_true", help="run the ROUGE-1.5.5 Perl script")
    add_rouge_clean(s)
    s.set_defaults(func=cmd_rouge)

    from c2fsum.cli.plot import add_plot_parser

    add_plot_parser(sub)

    from c2fsum.cli.compare import add_compare_parser
    from c2fsum.cli.experiment import add_experiment_parser
    from c2fsum.cli.export import add_export_parser
    from c2fsum.cli.serve import add_serve_parser
    from c2fsum.cli.vectors import add_vectors_parser

    add_experiment_parser(sub)
    add_compare_parser(sub)
    add_serve_parser(sub)
    add_export_parser(sub)
    add_vectors_parser(sub)

    s = sub.add_parser("table", help="print metrics.json files as one results table")
    s.add_argument("metrics", nargs="+", metavar="METRICS", help="metrics.json files or their folders")
    s.set_defaults(func=cmd_table)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    a = parser.parse_args(argv)
    a.argv = list(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(
        level=logging.WARNING if a.quiet else logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    from c2fsum.errors import is_user_error

    try:
        return a.func(a)
    except KeyboardInterrupt:
        print("c2fsum: interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        if not is_user_error(e):
            raise  # a bug: its traceback
        if os.environ.get("C2FSUM_DEBUG") == "1":
            traceback.print_exc()
        print(f"c2fsum {a.command}: error: {error_line(e)}", file=sys.stderr)
        return 2


def error_line(e: BaseException) -> str:
    """The first line of a user error's message (an OS error's reason with its file, as Python
    words it, when it has no message of its own)."""
    text = str(e)
    return text.splitlines()[0] if text.strip() else type(e).__name__


if __name__ == "__main__":
    sys.exit(main())
