"""A run's log: ``metrics.jsonl`` (one row per log or validation event) and TensorBoard (``tb/``).

Only the main process writes; every process counts the rows, which each checkpoint saves, so
that a resumed run cuts ``metrics.jsonl`` back to what its checkpoint had seen
(:func:`c2fsum.training.checkpoint.truncate_log`) and never validates a step twice.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from c2fsum.training.checkpoint import rewind_log, truncate_log
from c2fsum.training.distributed import DistContext
from c2fsum.utils.io import append_jsonl

log = logging.getLogger(__name__)


class RunLog:
    """The rows of ``out/metrics.jsonl`` and their TensorBoard scalars (``out/tb``, opened on the
    first row). ``rows``: written by this run and the ones it resumes; ``last_val``: the last
    validation row."""

    def __init__(self, out: Path, *, main: bool):
        self.path, self.tb_dir, self.main = out / "metrics.jsonl", out / "tb", main
        self.rows = 0
        self.last_val: dict | None = None
        self._tb: Any = None  # None: not opened yet; False: tensorboard missing

    def start(self) -> None:
        """A new run: an empty ``metrics.jsonl``."""
        if self.main:
            self.path.write_text("", encoding="utf-8")

    def resume(self, written: dict | None, step: int) -> None:
        """Back to what a checkpoint saw: its ``state()`` (``written``), or for checkpoints written
        before that was recorded, the rows up to its ``step``."""
        if written is not None:
            self.rows, self.last_val = written["rows"], written["last_val"]
        if self.main:
            if written is not None:
                truncate_log(self.path, self.rows)
            else:
                self.rows = rewind_log(self.path, step)

    def state(self) -> dict:
        """What a checkpoint saves of the log (``trainer.json["log"]``)."""
        return {"rows": self.rows, "last_val": self.last_val}

    def write(self, row: dict) -> None:
        """One row (``split``, ``step``, figures); a ``val`` row becomes :attr:`last_val`."""
        self.rows += 1
        if row["split"] == "val":
            self.last_val = row
        if not self.main:
            return
        append_jsonl(self.path, row)
        tb = self._writer()
        if tb is not None:
            for k, v in row.items():
                if isinstance(v, int | float) and k not in ("step", "epoch"):
                    tb.add_scalar(f"{row['split']}/{k}", v, row["step"])

    def write_train(self, window: Window, pos: Any, *, lr: float, rewards: tuple | None, dist: DistContext) -> dict:
        """The ``train`` row of the steps of ``window`` at position ``pos`` (its NLL summed over
        every rank first; with MODEL 3's last self-critical ``rewards``, sampled and greedy);
        returns it, with ``loss`` (NLL per target token) for the progress bar."""
        if dist.enabled:
            (window.nll,) = dist.all_sum([window.nll])
        row = window.row(step=pos.step, epoch=pos.epoch, lr=lr)
        if rewards is not None:
            row["reward_sample"], row["reward_greedy"] = rewards
        self.write(row)
        return {**row, "loss": window.nll / max(window.tokens, 1)}

    def close(self) -> None:
        if self._tb:
            self._tb.close()

    def _writer(self):
        if self._tb is None:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:  # tensorboard is a dependency, but keep training without it
                self._tb = False
                log.warning("tensorboard is not installed: metrics go to metrics.jsonl only")
            else:
                self._tb = SummaryWriter(str(self.tb_dir))
        return self._tb or None


@dataclass
class Window:
    """Training NLL and what it sums over since the last ``train`` log row (target tokens, or a
    selector's labels: :func:`~c2fsum.training.objective.nll_units`), and when it began."""

    nll: float = 0.0
    tokens: int = 0
    t0: float = field(default_factory=time.monotonic)

    def row(self, *, step: int, epoch: int, lr: float) -> dict:
        """The ``train`` row of these steps: perplexity, learning rate, target tokens per second."""
        dt = max(time.monotonic() - self.t0, 1e-9)
        return {
            "split": "train",
            "step": step,
            "epoch": epoch,
            "ppl": math.exp(min(self.nll / max(self.tokens, 1), 50.0)),
            "lr": lr,
            "tgt_tokens_per_s": self.tokens / dt,
        }
