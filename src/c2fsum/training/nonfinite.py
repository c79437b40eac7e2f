"""The NaN/Inf guard of a training step: a step whose loss, rewards or gradients are not finite
leaves the parameters and the optimizer untouched and is skipped with a warning; more than
``train.max_nonfinite_steps`` such steps in a row stop training, the last checkpoint intact."""

from __future__ import annotations

import logging
import math
from pathlib import Path

import torch

from c2fsum.errors import TrainingError
from c2fsum.training.state import Position

log = logging.getLogger(__name__)


def clip_checked(params: list[torch.nn.Parameter], max_norm: float) -> str | None:
    """Clip the gradients to ``max_norm`` (0: no clipping); the reason if their norm is NaN/Inf."""
    norm = torch.nn.utils.clip_grad_norm_(params, max_norm if max_norm > 0 else math.inf)
    if not bool(torch.isfinite(norm)):
        return f"gradient norm is {float(norm)}"
    return None


def skip_step(pos: Position, reason: str, *, limit: int, last: Path) -> None:
    """Count a skipped step in ``pos`` and warn; past ``limit`` consecutive skips, stop with
    :class:`TrainingError` (no checkpoint is written, so ``last`` keeps the last good parameters).
    The caller has zeroed the gradients."""
    pos.skipped += 1
    pos.nonfinite_in_a_row += 1
    where = f"step {pos.step + 1} (epoch {pos.epoch}, batch {pos.batch})"
    if pos.nonfinite_in_a_row > limit:
        raise TrainingError(
            f"{where}: {pos.nonfinite_in_a_row} consecutive steps with NaN/Inf "
            f"(train.max_nonfinite_steps={limit}); last: {reason}. Training stopped; the "
            f"last good checkpoint {last} is intact (lower train.lr, then --resume)"
        )
    log.warning(
        "%s: skipped, %s (%d in a row, %d in all; limit %d in a row)",
        where,
        reason,
        pos.nonfinite_in_a_row,
        pos.skipped,
        limit,
    )
