"""Coarse supervision: teach a hierarchical model's chunk attention where the next word is.

Hard coarse attention (MODEL 3) learns where to read only through REINFORCE, whose reward (the
log-likelihood of the words that follow) is a weak and noisy teacher of *where*; on 5,000-word
papers its chunk distribution stays near uniform (docs/results.md, "Closing the gap"). The target
itself says where some of the answers are: the chunks of the source that hold the next target
word y_t. With S_t that set (only for rare words, ids >= ``min_id``: the most frequent words and
punctuation are in every chunk and say nothing), the auxiliary loss is the negative log of the
coarse probability mass on S_t,

    L_c = - sum_{b, t : S_bt not empty} log sum_{i in S_bt} alpha^s_{b,t,i}

a marginal likelihood that the chosen chunk holds y_t. It needs no extra encoding (the grid's ids
and the target are known), has no variance, and gives W_s, the chunk encoder and the decoder state
a gradient from the first step; REINFORCE keeps its role for everything the words do not show.
(c2fsum's own addition, not in the thesis; ``train.coarse_supervision`` is its weight, 0 = off.)
"""

from __future__ import annotations

import torch
from torch import Tensor


def chunks_holding_targets(src: Tensor, target: Tensor, *, min_id: int) -> Tensor:
    """``S``: ``(B, T, M)`` bool, chunk i of document b holds target word ``target[b, t]``.

    Args:
        src: ``(B, M, N)`` source ids (0 on padding), in the same id space as ``target``
            (extended ids for a copying model).
        target: ``(B, T)`` target ids; positions with an id below ``min_id`` get no chunk.
    """
    B, M, N = src.shape
    hits = src.view(B, 1, M * N) == target.unsqueeze(-1)  # (B, T, M*N)
    held = hits.view(B, -1, M, N).any(-1)  # (B, T, M)
    return held & (target >= min_id).unsqueeze(-1)


def coarse_supervision_loss(coarse: Tensor, held: Tensor, tgt_mask: Tensor) -> tuple[Tensor, int]:
    """``(L_c summed, number of supervised steps)``.

    Args:
        coarse: ``(B, T, M)`` chunk attention alpha^s of every step (rows sum to 1).
        held: ``(B, T, M)`` bool from :func:`chunks_holding_targets`.
        tgt_mask: ``(B, T)`` real target positions.
    """
    steps = held.any(-1) & tgt_mask.bool()  # (B, T)
    mass = (coarse * held.to(coarse.dtype)).sum(-1)  # (B, T)
    logm = torch.log(mass.clamp_min(1e-12))
    return -(logm * steps.to(coarse.dtype)).sum(), int(steps.sum())
