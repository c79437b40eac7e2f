"""``c2fsum pretext``: self-supervised pretraining data (:mod:`c2fsum.data.pretext`); its flags
are made from :class:`c2fsum.config.PretextSettings` (help, default, bounds)."""

from __future__ import annotations

import argparse
from pathlib import Path

from c2fsum.cli.options import CLIError, Command, add_data, add_settings, given_settings
from c2fsum.config import PretextSettings


def cmd_pretext(a: argparse.Namespace) -> int:
    from c2fsum.data.pretext import write_pretext

    for p in [a.data, *a.extra_train]:
        if not Path(p).exists():
            raise CLIError(f"{p}: no such file or directory")
    settings = given_settings(a, PretextSettings)
    counts = write_pretext(a.data, a.out, settings, extra_train=a.extra_train)
    print(
        f"pretext ({settings.task}): {counts['train']:,} training and {counts['val']:,} validation examples in {a.out}"
    )
    return 0


def _arguments(s: argparse.ArgumentParser) -> None:
    add_data(s)
    s.add_argument("--out", required=True, metavar="DIR", help="where to write the pretext data folder")
    add_settings(s, PretextSettings)
    s.add_argument(
        "--extra-train", action="append", default=[], metavar="FILE", help="another prepared split file to read"
    )


COMMAND = Command(
    "pretext",
    help="self-supervised pretraining data (lead copying / lead from the rest)",
    run=cmd_pretext,
    arguments=_arguments,
)
