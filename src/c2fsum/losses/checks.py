"""Numerical guards shared by the losses and the training loop.

A NaN or Inf in a loss, a reward, a return, a baseline or an advantage would poison every
parameter it reaches in one optimizer step. The losses call :func:`require_finite` on what
they are given; the trainer catches :class:`NonFiniteError`, skips the step and warns.
"""

from __future__ import annotations

import torch
from torch import Tensor


class NonFiniteError(ArithmeticError):
    """A tensor that must be finite holds NaN or Inf; the message names it and counts the bad entries."""


def require_finite(name: str, tensor: Tensor) -> Tensor:
    """Return ``tensor`` unchanged, or raise :class:`NonFiniteError` naming ``name`` if any entry is NaN/Inf.

    Works on any shape; only floating tensors can be non-finite.
    """
    if tensor.is_floating_point():
        bad = ~torch.isfinite(tensor.detach())
        if bool(bad.any()):
            n_nan = int(torch.isnan(tensor.detach()).sum())
            raise NonFiniteError(
                f"{name}: {int(bad.sum())} of {tensor.numel()} values are not finite "
                f"({n_nan} NaN, {int(bad.sum()) - n_nan} Inf)"
            )
    return tensor
