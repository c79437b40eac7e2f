"""``c2fsum batch``: summarize a corpus into sharded files, resumable, locally or on Ray (:mod:`c2fsum.batch`)."""

from __future__ import annotations

import argparse

from c2fsum.cli.options import DECODE_FLAGS, Command, add_decode_options, add_model, decode_overrides, positive_int

DECODING = tuple(f for f in DECODE_FLAGS if f != "batch_size")
"""The decoding options ``batch`` takes: all but decoding's own ``--batch-size`` (``batch``'s is the
articles per worker batch, which the model decodes in batches of its own size)."""


def cmd_batch(a: argparse.Namespace) -> int:
    from c2fsum.batch import run_batch

    report = run_batch(
        a.model,
        a.input,
        a.output,
        engine=a.engine,
        workers=a.workers,
        address=a.address,
        batch_size=a.batch_size,
        extract=a.extract,
        fmt=a.format,
        decode={k: v for k, v in decode_overrides(a).items() if k in DECODING},
        progress=not a.quiet,
    )
    print(f"c2fsum batch: {report.line()}")
    return 0


def _arguments(s: argparse.ArgumentParser) -> None:
    add_model(s)
    s.add_argument(
        "--input",
        required=True,
        nargs="+",
        action="extend",
        metavar="PATH",
        help="tables with an 'article' field and an optional 'id' (the line or row number when there is none): "
        ".jsonl, .jsonl.gz, .json, .csv, .csv.gz, .parquet, or folders of them; each file is a shard",
    )
    s.add_argument(
        "--output",
        required=True,
        metavar="DIR",
        help="one file per input shard (id, summary, sentences, model, manifest, seconds), errors.jsonl, "
        "batch.json; the same command again finishes an interrupted run",
    )
    s.add_argument(
        "--engine",
        choices=["local", "ray"],
        default="local",
        help="local (default): a pool of processes on this machine; ray: Ray Data on a Ray cluster "
        "(pip install 'c2fsum[ray]')",
    )
    s.add_argument(
        "--workers",
        type=positive_int,
        metavar="N",
        help="worker processes, each with the model loaded once and one thread (default: one per CPU; "
        "with ray, of the cluster)",
    )
    s.add_argument(
        "--address",
        metavar="ADDR",
        help="with --engine ray: the cluster to join (auto, HOST:6379); default: start a local one",
    )
    s.add_argument(
        "--batch-size", type=positive_int, default=16, metavar="B", help="articles per batch given to a worker (16)"
    )
    s.add_argument(
        "--extract",
        action="store_true",
        help="a sentence selector's picked sentences, unchanged (what `c2fsum extract --model` prints), "
        "instead of its summary",
    )
    s.add_argument("--format", choices=["jsonl", "parquet"], default="jsonl", help="the output shards' format (jsonl)")
    add_decode_options(s, flags=DECODING)


COMMAND = Command(
    "batch",
    help="summarize a corpus (JSONL, CSV, Parquet shards) into one output file per shard, resumable, "
    "on local processes or a Ray cluster",
    run=cmd_batch,
    arguments=_arguments,
)
