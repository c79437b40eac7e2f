"""Entropy of the coarse (chunk-level) attention, as in the thesis's Table 6.2.

For every generated word ``t`` the model spreads its attention over the M chunks of the grid;
the entropy of that distribution (natural log, nats) says how focused the model is:
0 when one chunk takes everything, ``ln M`` when every chunk gets the same share.

Which distribution is measured (letters: T summary length, M chunks, N words per chunk):

* MODEL 2 and MODEL 3 have a coarse attention ``alpha^s`` ``(T, M)``; it is used directly
  (for MODEL 3 it is the soft ``alpha^s`` before the argmax / sampling of the hard choice).
* MODEL 0 and MODEL 1 have none; their word attention ``(T, M, N)`` summed over the words of
  each chunk gives the share of each chunk.

A pure functional core (:func:`chunk_distribution`, :func:`attention_entropy`,
:func:`uniform_reference`) and a small stateful :class:`EntropyMeter` that averages over all
generated words of a split.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

PADDING_TOLERANCE = 1e-4
"""Largest attention mass allowed on chunks past ``n_chunks`` (they should be padding)."""


def chunk_distribution(attn: Tensor, coarse: Tensor | None = None) -> Tensor:
    """The attention each chunk receives at each step.

    Args:
        attn: ``(T, M, N)`` word attention (any leading dimensions ``(..., M, N)`` work).
        coarse: ``(T, M)`` coarse attention of hierarchical models (``(..., M)``), or None.
    Returns:
        ``(T, M)`` float: ``coarse`` when given (MODEL 2/3), else ``attn`` summed over the
        words of each chunk (MODEL 0/1).
    """
    if attn.dim() < 2:
        raise ValueError(f"attn: expected shape (T, M, N), got {tuple(attn.shape)}")
    if coarse is not None:
        if tuple(coarse.shape) != tuple(attn.shape[:-1]):
            raise ValueError(
                f"coarse: expected shape {tuple(attn.shape[:-1])} to match attn "
                f"{tuple(attn.shape)}, got {tuple(coarse.shape)}"
            )
        return coarse.float()
    return attn.float().sum(-1)  # (T, M)


def attention_entropy(dist: Tensor) -> Tensor:
    """Entropy in nats of each row of ``dist`` ``(T, M)`` -> ``(T,)``, with ``0 log 0 = 0``.

    ``H(p) = -sum_i p_i ln p_i``. Rows are used as given (not renormalized): they should
    sum to 1, as softmax attention does.
    """
    if dist.dim() < 1:
        raise ValueError(f"dist: expected shape (T, M), got {tuple(dist.shape)}")
    if dist.numel() and float(dist.min()) < 0:
        raise ValueError(f"dist: attention weights must be >= 0, got a minimum of {float(dist.min()):.3g}")
    return torch.special.entr(dist.float()).sum(-1)  # (T,)


def uniform_reference(n_chunks: int) -> float:
    """Entropy of a uniform distribution over ``n_chunks`` chunks: ``ln M``."""
    if n_chunks < 1:
        raise ValueError(f"n_chunks must be >= 1, got {n_chunks}")
    return math.log(n_chunks)


class EntropyMeter:
    """Mean coarse-attention entropy over every generated word of a split.

    >>> meter = EntropyMeter()
    >>> for d in decoded:                        # c2fsum.decoding.documents.Decoded
    ...     rows = -(-len(d.example.words) // cfg.data.chunk_len)     # the document's chunks
    ...     meter.add(d.hypothesis.attn, d.hypothesis.coarse, n_chunks=rows)
    >>> meter.mean, meter.uniform_mean           # nats; e.g. Table 6.2's entropy and ln M

    Every step of a hypothesis counts as one word, the closing ``</s>`` step included.
    """

    def __init__(self) -> None:
        self.total = 0.0
        """Sum of the per-word entropies added so far."""
        self.uniform_total = 0.0
        """Sum of ``ln n_chunks`` over the same words (the uniform reference)."""
        self.count = 0
        """Number of words (decoding steps) added."""

    def add(
        self, hypothesis_attn: Tensor, hypothesis_coarse: Tensor | None = None, n_chunks: int | None = None
    ) -> Tensor:
        """Add one hypothesis; returns its per-word entropies ``(T,)``.

        Args:
            hypothesis_attn: ``(T, M, N)`` word attention of every step.
            hypothesis_coarse: ``(T, M)`` coarse attention (MODEL 2/3), or None (MODEL 0/1).
            n_chunks: the document's number of real (non-padding) chunks, ``<= M``. Chunks past
                it are dropped (a batch pads every grid to its largest M); they must hold no
                attention. Default: all M chunks.
        """
        dist = chunk_distribution(hypothesis_attn, hypothesis_coarse)  # (T, M)
        if dist.dim() != 2:
            raise ValueError(f"hypothesis_attn: expected shape (T, M, N), got {tuple(hypothesis_attn.shape)}")
        M = dist.size(1)
        if n_chunks is not None:
            if not 1 <= n_chunks <= M:
                raise ValueError(f"n_chunks must be between 1 and M={M}, got {n_chunks}")
            pad_mass = float(dist[:, n_chunks:].sum(-1).max()) if n_chunks < M and dist.size(0) else 0.0
            if pad_mass > PADDING_TOLERANCE:
                raise ValueError(
                    f"attention puts mass {pad_mass:.3g} on chunks past n_chunks={n_chunks}, expected 0 (padding)"
                )
            dist = dist[:, :n_chunks]
        ent = attention_entropy(dist)  # (T,)
        self.total += float(ent.double().sum())
        self.uniform_total += uniform_reference(n_chunks or M) * ent.numel()
        self.count += ent.numel()
        return ent

    def _check(self) -> None:
        if self.count == 0:
            raise ValueError("EntropyMeter: no words added yet, the mean is undefined")

    @property
    def mean(self) -> float:
        """Mean entropy per generated word, in nats."""
        self._check()
        return self.total / self.count

    @property
    def uniform_mean(self) -> float:
        """Mean of ``ln n_chunks`` over the same words: the entropy of uniform attention."""
        self._check()
        return self.uniform_total / self.count

    def reset(self) -> None:
        self.total, self.uniform_total, self.count = 0.0, 0.0, 0
