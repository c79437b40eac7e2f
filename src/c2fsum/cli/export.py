"""``c2fsum export``: a trained model as a small checkpoint folder with a model card, for shipping.

c2fsum export --model RUN_DIR --out DIR [--name NAME] [--dtype float32|float16|bfloat16]
              [--eval EVAL_DIR] [--data DATA_DIR] [--notes FILE] [--which best|last] [--max-mb MB]
"""

from __future__ import annotations

import argparse

from c2fsum.cli.options import Command, add_model


def cmd_export(a: argparse.Namespace) -> int:
    from c2fsum.config import MAX_EXPORT_MB
    from c2fsum.reports.export import export_model

    meta = export_model(
        a.model,
        a.out,
        name=a.name,
        dtype=a.dtype,
        eval_dir=a.eval,
        data_dir=a.data,
        notes=a.notes,
        which=a.which,
        max_mb=MAX_EXPORT_MB if a.max_mb is None else a.max_mb,
        command=a.made_by,
        decode=a.decode,
    )
    print(
        f"exported {meta['source']} as {meta['name']!r} to {a.out}: {meta['bytes'] / 1e6:.2f} MB, "
        f"{meta['parameters']:,} parameters stored as {meta['weights_dtype']} "
        f"(largest rounding error {meta['max_abs_rounding_error']:.2g}); it loads by path"
        + (" or, once installed, by name" if a.out.rstrip("/").endswith(f"pretrained/{meta['name']}") else "")
    )
    return 0


def _arguments(s: argparse.ArgumentParser) -> None:
    add_model(s)
    s.add_argument("--out", required=True, metavar="DIR", help="folder to write, e.g. src/c2fsum/pretrained/NAME")
    s.add_argument("--name", help="the model's name on its card (default: the folder's name)")
    s.add_argument(
        "--dtype",
        default="float32",
        choices=["float32", "float16", "bfloat16"],
        help="storage dtype of the weights; they load back as float32 (float32)",
    )
    s.add_argument("--eval", metavar="EVAL_DIR", help="`c2fsum evaluate --out` folder: test scores with bootstrap CIs")
    s.add_argument("--data", metavar="DATA_DIR", help="`c2fsum prepare` folder: its statistics go on the card")
    s.add_argument("--notes", metavar="FILE", help="Markdown the author adds under 'Failure modes'")
    s.add_argument("--which", default="best", choices=["best", "last"], help="checkpoint of a run directory (best)")
    s.add_argument(
        "--decode",
        nargs="+",
        metavar="KEY=VALUE",
        help="decoding defaults the model ships with, e.g. --decode read_chunks=3 beam=4",
    )
    s.add_argument(
        "--max-mb", type=float, help="refuse a folder larger than this (MB; default: config.MAX_EXPORT_MB, 25)"
    )
    s.add_argument(
        "--made-by",
        metavar="COMMAND",
        help="the command that made these weights, for the card (default: none; the card names the source run)",
    )


COMMAND = Command(
    "export",
    help="write a trained model for shipping: weights only (optionally float16), manifest, model card",
    run=cmd_export,
    arguments=_arguments,
)
