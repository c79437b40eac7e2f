"""``c2fsum train``: train a model from a config preset (:class:`c2fsum.training.trainer.Trainer`;
several processes through :mod:`c2fsum.cli.launch`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from c2fsum.cli.options import CLIError, Command, add_data, positive_int


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


def _arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--config", required=True, metavar="FILE", help="preset, e.g. configs/model0-cpu.yaml")
    add_data(s)
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


COMMAND = Command(
    "train",
    help="train a model from a config preset",
    run=cmd_train,
    arguments=_arguments,
)
