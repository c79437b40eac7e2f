"""``c2fsum train --nproc N``: start N training processes on this machine through torchrun.

The command re-runs itself as ``python -m torch.distributed.run --standalone --nproc_per_node N
-m c2fsum train ...`` (torchrun's own launcher: a free local port, env:// rendezvous, worker
failure handling); use torchrun directly for several machines (docs/distributed.md).
"""

from __future__ import annotations

import os
import subprocess
import sys


def without_nproc(argv: list[str]) -> list[str]:
    """``argv`` minus ``--nproc N`` / ``--nproc=N``."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--nproc":
            skip = True
        elif not arg.startswith("--nproc="):
            out.append(arg)
    return out


def torchrun_command(nproc: int, argv: list[str]) -> list[str]:
    """The torchrun command line that trains ``argv`` (a ``train`` command) on ``nproc`` processes."""
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc_per_node={nproc}",
        "-m",
        "c2fsum",
        *without_nproc(argv),
    ]


def launch(nproc: int, argv: list[str]) -> int:
    """Run ``argv`` under torchrun with ``nproc`` local processes; returns torchrun's exit status."""
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // nproc)))
    return subprocess.run(torchrun_command(nproc, argv), env=env, check=False).returncode
