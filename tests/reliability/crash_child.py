"""A training process for the crash-safety test, with optional faults that SIGKILL it at a
chosen point of checkpoint writing. Started by ``multiprocessing`` (forkserver), so it lives in
an importable module."""

from __future__ import annotations

import os
import signal
from pathlib import Path

CHECKPOINT_FAULTS = ("half_written_tensor_file", "before_manifest", "between_swap_renames", "while_deleting_old")


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def install_fault(fault: str, after_saves: int) -> None:
    """Kill this process at ``fault`` during the checkpoint write after ``after_saves`` complete ones."""
    import shutil

    from c2fsum.models import checkpoint as checkpoint_format
    from c2fsum.training import checkpoint
    from c2fsum.utils import io

    saves = {"n": 0}
    real_write_manifest = checkpoint.write_manifest

    def write_manifest(folder):
        if fault == "before_manifest" and saves["n"] >= after_saves:
            _die()
        real_write_manifest(folder)
        saves["n"] += 1

    checkpoint.write_manifest = write_manifest

    real_save_file = checkpoint_format.save_file  # what write_tensors calls

    def save_file(tensors, filename, metadata=None):
        real_save_file(tensors, filename, metadata)
        if fault == "half_written_tensor_file" and saves["n"] >= after_saves:
            with open(filename, "r+b") as f:
                f.truncate(os.path.getsize(filename) // 2)
            _die()

    checkpoint_format.save_file = save_file

    real_replace = os.replace

    def replace(src, dst, *a, **k):
        if (
            fault == "between_swap_renames"
            and saves["n"] > after_saves
            and Path(src).name.endswith(".tmp")
            and Path(src).is_dir()
        ):
            _die()  # the old directory is already renamed to .old, the new one not in
        return real_replace(src, dst, *a, **k)

    io.os.replace = replace

    real_rmtree = shutil.rmtree

    def rmtree(path, *a, **k):
        if fault == "while_deleting_old" and saves["n"] > after_saves and str(path).endswith(".old"):
            files = [p for p in Path(path).iterdir() if p.is_file()]
            if files:
                files[0].unlink()  # part of .old is gone
            _die()
        return real_rmtree(path, *a, **k)

    io.shutil.rmtree = rmtree


def train(
    overrides: list[str], data: str, out: str, resume: bool, fault: str | None = None, after_saves: int = 0
) -> None:
    from c2fsum.config import load_config
    from c2fsum.training.trainer import Trainer

    if fault is not None:
        install_fault(fault, after_saves)
    Trainer(load_config(None, overrides), data, out, resume=resume, progress=False).fit()
