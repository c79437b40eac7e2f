"""The ``c2fsum`` command (argparse). Nothing in the package imports this module.

c2fsum prepare    --input PATH --output DATA_DIR [--vocab-size N] [--all-highlights] [--url-lists DIR]
                  [--hf NAME] [--workers N]
c2fsum pretext    --data DATA_DIR --out DIR [--task lead|rest|mixed] [--stride S] [--skip-short]
                  [--validate-on pretext|summaries] [--with-summaries K] [--extra-train FILE]
                  [--val-holdout N]
c2fsum pairs      --data DATA_DIR --out PAIRS_DIR [--min-recall R] [--workers N]
c2fsum train      --config FILE --data DATA_DIR --out RUN_DIR [--max-steps N] [--max-minutes M]
                  [--set key=value ...] [--resume] [--device cpu|cuda] [--seed S] [--nproc N]
c2fsum summarize  --model MODEL [DECODING] [--attention-out FILE] [--lines] [--tokens] [--json] [--device cpu|cuda]
                  [FILE ...|-]
c2fsum batch      --model MODEL --input PATH ... --output DIR [--engine local|ray] [--workers N] [--address ADDR]
                  [--batch-size B] [--extract] [--format jsonl|parquet] [DECODING]
c2fsum extract    [--method ilp|lead | --model SELECTOR] [--words N] [--lines] [--tokens] [--json] [FILE ...|-]
c2fsum models     [RUN_DIR ...]            (the shipped models: what for, test scores, size, defaults)
c2fsum evaluate   --model MODEL --data DATA_DIR --split SPLIT --out DIR [DECODING] [--limit N] [--official]
                  [--rouge-clean none|ptb] [--device cpu|cuda]
                  DECODING: a flag per decoding option, made from its declaration in config.DecodeConfig
                  ([--beam K] [--max-len N] [--[no-]block-trigrams] [--read-chunks K] ...; all of them
                  in `c2fsum summarize --help`)
c2fsum baseline   first|lead3|lead|ilp|oracle|berkeley --data DATA_DIR --split SPLIT --out DIR [--budget WORDS]
                  [--limit N] [--official] [--rouge-clean none|ptb]
                  [--weights FILE] [--fit-docs N [--val-docs N] [--fit-budgets B,B] [--fit-metric M]]
                  [--no-compression] [--no-anaphora]                                   (berkeley)
c2fsum rouge      --candidates C.jsonl --references R.jsonl [--official] [--rouge-clean none|ptb]
c2fsum table      METRICS [METRICS ...]                                          (metrics.json files or folders)
c2fsum plot       attention --model RUN_DIR --data DATA_DIR --doc ID --out FILE.png [--split SPLIT] [--beam K]
                  [--max-words W] [--device cpu|cuda]
c2fsum plot       curves RUN_DIR ... --out FILE.png [--labels A,B] | reading EVAL_DIR ... --out FILE.png
                  [--labels A,B]
c2fsum compare    A B [--samples N] [--seed S] [--confidence C] [--concat] [--json] [--fields F1,F2]
                  [--rouge-clean none|ptb]
c2fsum experiment --data DATA_DIR --presets P1,P2 --out EXP_DIR --budget-minutes N|--epochs N [--max-steps N]
                  [--set KEY=VALUE ...] [--threads N] [--split SPLIT] [--eval-limit N] [--beam K]
                  [--device cpu|cuda] [--seed S] [--max-words W] [--whole-documents] [--docs ID,ID]
                  [--report-only]
c2fsum serve      --model RUN_DIR [--host 127.0.0.1] [--port 8000] [--device cpu|cuda] [--max-chars N]
                  [--max-batch N] [--max-queue N] [--timeout S] [--threads N]
c2fsum export     --model RUN_DIR --out DIR [--name NAME] [--dtype float16] [--eval DIR] [--data DATA_DIR]
                  [--notes FILE] [--which best|last] [--decode KEY=VALUE ...] [--max-mb MB]
                  [--made-by COMMAND]
c2fsum vectors    --data DATA_DIR --out FILE.safetensors [--dim 128] [--epochs 5] [--min-count N]
                  [--window N] [--workers N] [--skip-gram] [--[no-]summaries] [--seed N]

Each command is its own file, ``c2fsum/cli/NAME.py``: its function, its arguments and, at its
end, ``COMMAND``, the declaration (name, help, arguments, function) from which :func:`build_parser`
makes its parser; the options several share are defined once in ``c2fsum/cli/options.py``.
--model takes a shipped model name (cnndm-small), a run or checkpoint directory, or a Hugging Face
hub repository id owner/name[@revision] (c2fsum/pretrained/registry.py). summarize, evaluate, plot
attention and serve read documents through one path, c2fsum.pipeline.Pipeline.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import traceback
from collections.abc import Iterable

from c2fsum.cli.options import CLIError, Command, Parser

__all__ = ["CLIError", "add_commands", "build_parser", "main"]

log = logging.getLogger("c2fsum")


def build_parser() -> argparse.ArgumentParser:
    """The ``c2fsum`` parser, made from each command's declaration (``COMMAND`` at the end of
    ``c2fsum/cli/NAME.py``, a :class:`~c2fsum.cli.options.Command`) in the order ``c2fsum --help``
    lists them; those modules import nothing heavy at the top."""
    from c2fsum import __version__
    from c2fsum.cli import (
        baseline,
        batch,
        compare,
        evaluate,
        experiment,
        export,
        extract,
        models,
        pairs,
        plot,
        prepare,
        pretext,
        rouge,
        serve,
        summarize,
        table,
        train,
        vectors,
    )

    p = Parser(prog="c2fsum", description="Coarse-to-fine attention summarization toolkit.")
    p.add_argument("--version", action="version", version=f"c2fsum {__version__}")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars, warnings only")
    add_commands(
        p.add_subparsers(dest="command", required=True, metavar="COMMAND"),
        (
            prepare.COMMAND,
            pretext.COMMAND,
            pairs.COMMAND,
            train.COMMAND,
            summarize.COMMAND,
            batch.COMMAND,
            extract.COMMAND,
            models.COMMAND,
            evaluate.COMMAND,
            baseline.COMMAND,
            rouge.COMMAND,
            plot.COMMAND,
            experiment.COMMAND,
            compare.COMMAND,
            serve.COMMAND,
            export.COMMAND,
            vectors.COMMAND,
            table.COMMAND,
        ),
    )
    return p


def add_commands(subparsers: argparse._SubParsersAction, commands: Iterable[Command]) -> None:
    """A parser under ``subparsers`` for each of ``commands``: its help and description (its help
    when it has none: ``c2fsum NAME --help`` says what NAME does), its own arguments, and ``func``,
    the function :func:`main` runs; a command made of subcommands gets them the same way, chosen
    by the word after its name (``NAME_command``)."""
    for c in commands:
        s = subparsers.add_parser(c.name, help=c.help, description=c.description or c.help)
        if c.subcommands:
            add_commands(s.add_subparsers(dest=f"{c.name}_command", required=True, metavar=c.metavar), c.subcommands)
            continue
        if c.arguments is not None:
            c.arguments(s)
        s.set_defaults(func=c.run)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    a = parser.parse_args(argv)
    a.argv = list(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(
        level=logging.WARNING if a.quiet else logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    from c2fsum.cli.inputs import check_before_loading
    from c2fsum.errors import error_line, is_user_error

    try:
        check_before_loading(a)  # bad input and unknown models refused before torch is imported
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


if __name__ == "__main__":
    sys.exit(main())
