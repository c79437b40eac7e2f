"""The coverage loss of See et al. (2017): attention paid again to words already attended is penalized.

    c_t       = sum_{j<t} alpha_j                      the coverage before step t, c_1 = 0   (See eq. 10)
    covloss_t = sum_i min(alpha_ti, c_ti)              bounded by 1 (alpha_t sums to 1)      (See eq. 12)
    L_cov     = sum_b sum_t covloss_bt                 over the real target steps; the trainer adds
                                                       lambda L_cov / D to the loss          (See eq. 13)

The model's attention scores read the same c_t (:class:`c2fsum.modules.attention.BilinearAttention`
with ``coverage``); here it is recomputed from the attention of every step, so the loss is a pure
function of what the teacher-forced pass returns.
"""

from __future__ import annotations

import torch
from torch import Tensor


def coverage_before(attn: Tensor) -> Tensor:
    """c_t = sum_{j<t} alpha_j for every step: ``attn`` ``(B, T, S)`` -> ``(B, T, S)``, zero at t = 1."""
    return torch.cumsum(attn, 1) - attn


def coverage_loss(attn: Tensor, tgt_mask: Tensor) -> Tensor:
    """L_cov summed over the batch's real target steps (a scalar).

    Args:
        attn: ``(B, T, S)`` word attention of every step (or ``(B, T, M, N)``: flattened here).
        tgt_mask: ``(B, T)`` True on real target steps.
    """
    attn = attn.flatten(2)  # (B, T, S)
    per_step = torch.minimum(attn, coverage_before(attn)).sum(-1)  # (B, T)
    return (per_step * tgt_mask.to(attn.dtype)).sum()
