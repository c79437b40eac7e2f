"""The source attention: one interface, :class:`SourceAttention`, and its three implementations.

* :class:`FlatAttention` (MODEL 0/1): bilinear attention over every word, intra-temporal or not
  (:class:`~c2fsum.modules.attention.BilinearAttention`);
* :class:`EagerCoarseToFine` (MODEL 2, and MODEL 3 over eagerly encoded words): coarse attention
  over chunks times fine attention inside each, soft, sampled or argmax
  (:class:`~c2fsum.modules.hierarchical.CoarseToFineAttention`);
* :class:`LazyCoarseToFine` (MODEL 3 read lazily): the hard choice first, then the word states
  of the chosen chunks only, encoded on demand through ``memory.lazy``
  (:class:`~c2fsum.models.chunk_cache.ChunkCache`), within a reading budget at test time.

Each runs the family's attention module (``model.attention``) and holds no parameters; a family
picks one per batch (:meth:`CoarseToFine.source_attention`) from how the batch was encoded to be
read (``memory.reading``, a :class:`~c2fsum.models.base.Reading`), so the choice is made in one place.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import cast

import torch
from torch import Tensor

from c2fsum.models.base import BatchFields, Memory, Reading
from c2fsum.models.chunk_cache import ChunkCache
from c2fsum.modules.attention import BilinearAttention
from c2fsum.modules.deferred import StepMatrix
from c2fsum.modules.hierarchical import CoarseToFineAttention


@dataclass
class Context:
    """What a source attention returns for one step (or every step: a T dimension after B)."""

    ctx: Tensor
    """``(B, H)`` the context c~."""
    attn: Tensor
    """``(B, M, N)`` word attention (sparse COO on the lazy hard path when decoding)."""
    coarse: Tensor | None = None
    """``(B, M)`` chunk attention of hierarchical models, else None."""
    policy: Tensor | None = None
    """``(B,)`` log-probability of the hard chunk choice (MODEL 3 in training), else None."""
    past: Tensor | None = None
    """``(B, S)`` the new intra-temporal state, or None."""
    coverage: Tensor | None = None
    """``(B, S)`` the new coverage c_{t+1} = c_t + alpha_t (See et al. 2017) of a model with coverage, or None."""


@dataclass
class FlatCache(BatchFields):
    """``Memory.cache`` of flat attention: keys and mask, once per batch."""

    keys_t: Tensor
    """``(B, H, S)`` the word states transposed, contiguous (S = M*N)."""
    mask: Tensor
    """``(B, S)`` True on real words."""
    steps: tuple[StepMatrix, StepMatrix] | None = None
    """Values ``(B, S, H)`` and keys as :class:`StepMatrix` (teacher forcing with gradients and
    ``Kernels.deferred_grads``): the same products, gradients formed once per batch."""

    def select(self, idx: Tensor) -> FlatCache:
        """Rows ``idx`` of the keys and mask; the step matrices stay with the batch they were built for."""
        return FlatCache(keys_t=self.keys_t.index_select(0, idx), mask=self.mask.index_select(0, idx))


@dataclass
class HierarchicalCache(BatchFields):
    """``Memory.cache`` of coarse-to-fine attention: keys, once per batch."""

    keys_t: Tensor | None
    """``(B, H, S)`` the word states transposed, contiguous; None on the lazy path (no word states yet)."""
    chunk_keys_t: Tensor
    """``(B, Hc, M)`` the chunk vectors transposed, contiguous."""


class SourceAttention(ABC):
    """Attention over what the source encoder read, for the decoder's top output."""

    @abstractmethod
    def prepare(self, memory: Memory, *, deferred: bool = False) -> BatchFields:
        """Once per batch: the keys ``memory.cache`` holds. ``deferred``: also the step matrices
        whose gradients are formed once per batch (``Kernels.deferred_grads``), where it applies."""

    @abstractmethod
    def attend(self, top: Tensor, memory: Memory, past: Tensor | None, coverage: Tensor | None = None) -> Context:
        """One step: decoder output ``top`` ``(B, H)``, or ``(B*R, H)``: R rows per memory row (beam
        search, ``capabilities.memory_per_document``); ``past``: the intra-temporal state ``(B, S)``
        or None; ``coverage``: the attention summed over the steps so far ``(B, S)`` or None (zero).
        Word attention comes back ``(B, M, N)``."""

    @abstractmethod
    def attend_steps(self, top: Tensor, memory: Memory) -> Context:
        """Every teacher-forced step at once: ``top`` ``(B, T, H)`` -> context ``(B, T, H)``, word
        attention ``(B, T, M, N)`` (and coarse ``(B, T, M)``, policy ``(B, T)`` where they exist)."""


class FlatAttention(SourceAttention):
    """Bilinear attention over all S = M*N words (MODEL 0/1), intra-temporal with ``temporal``."""

    def __init__(self, module: BilinearAttention):
        self.module = module

    def prepare(self, memory: Memory, *, deferred: bool = False) -> FlatCache:
        values, keys_t = BilinearAttention.prepare(memory.words)  # (B, S, H), (B, H, S)
        steps = BilinearAttention.prepare_steps(values, keys_t) if deferred else None
        return FlatCache(keys_t=keys_t, mask=memory.word_mask.flatten(1), steps=steps)

    def attend(self, top: Tensor, memory: Memory, past: Tensor | None, coverage: Tensor | None = None) -> Context:
        cache = cast(FlatCache, memory.cache)
        values: Tensor | StepMatrix = memory.words.flatten(1, 2)  # (B, S, H), a view
        keys_t: Tensor | StepMatrix = cache.keys_t  # (B, H, S)
        if cache.steps is not None:  # the same, with gradients formed once per batch
            values, keys_t = cache.steps
        ctx, alpha, past = self.module(top, values, keys_t, cache.mask, past, coverage)  # (B, H), (B, S)
        if self.module.coverage_w is not None:  # See et al. eq. 10: c_{t+1} = c_t + alpha_t
            coverage = alpha if coverage is None else coverage + alpha
        attn = alpha.view(top.size(0), *memory.word_mask.shape[1:])
        return Context(ctx=ctx, attn=attn, past=past, coverage=coverage)

    def attend_steps(self, top: Tensor, memory: Memory) -> Context:
        cache = cast(FlatCache, memory.cache)
        ctx, alpha = self.module.forward_steps(top, memory.words.flatten(1, 2), cache.keys_t, cache.mask)
        return Context(ctx=ctx, attn=alpha.view(*top.shape[:2], *memory.word_mask.shape[1:]))


class EagerCoarseToFine(SourceAttention):
    """Coarse-to-fine attention over the word states of every chunk (MODEL 2; MODEL 3 eagerly)."""

    def __init__(self, module: CoarseToFineAttention, reading: Reading):
        self.module = module
        self.reading = reading

    def prepare(self, memory: Memory, *, deferred: bool = False) -> HierarchicalCache:
        assert memory.chunks is not None  # ChunkSource.read sets it
        _, keys_t, chunk_keys_t = CoarseToFineAttention.prepare(memory.words, memory.chunks)
        return HierarchicalCache(keys_t=keys_t, chunk_keys_t=chunk_keys_t)

    def attend(self, top: Tensor, memory: Memory, past: Tensor | None, coverage: Tensor | None = None) -> Context:
        """``past`` and ``coverage`` are unused (no intra-temporal attention or coverage here)."""
        return self.attend_steps(top, memory)

    def attend_steps(self, top: Tensor, memory: Memory) -> Context:
        """Every step of ``top`` ``(B, T, H)`` at once, or one step ``(B, H)``."""
        r, cache = self.reading, cast(HierarchicalCache, memory.cache)
        args = (top, memory.words.flatten(1, 2), cast(Tensor, cache.keys_t), cache.chunk_keys_t)
        o = self.module(*args, memory.word_mask, memory.chunk_mask, mode=r.mode, samples=r.samples, read=r.chunks)
        return Context(ctx=o.ctx, attn=o.attn, coarse=o.coarse, policy=o.policy)


class LazyCoarseToFine(SourceAttention):
    """Hard coarse-to-fine attention (MODEL 3) that reads the word states of the chosen chunks only,
    encoding them on demand (``memory.lazy``: thesis 4.4, O(M + N) per step)."""

    def __init__(self, module: CoarseToFineAttention, reading: Reading):
        self.module = module
        self.reading = reading

    def prepare(self, memory: Memory, *, deferred: bool = False) -> HierarchicalCache:
        assert memory.chunks is not None  # ChunkSource.read_lazily sets it
        return HierarchicalCache(keys_t=None, chunk_keys_t=memory.chunks.transpose(1, 2).contiguous())

    def attend(self, top: Tensor, memory: Memory, past: Tensor | None, coverage: Tensor | None = None) -> Context:
        """``past`` and ``coverage`` are unused (no intra-temporal attention or coverage here)."""
        return self.attend_steps(top, memory)

    def attend_steps(self, top: Tensor, memory: Memory) -> Context:
        """Every step of ``top`` ``(B, T, H)`` at once (the chunks of every step are chosen first
        and their union is encoded in one call), or one step ``(B, H)``; a reading budget below 1
        acts one step at a time (it depends on what the steps before read)."""
        r, chunks, doc = self.reading, memory.lazy, memory.doc
        assert chunks is not None and doc is not None  # ChunkSource.read_lazily sets both
        chunk_mask = memory.chunk_mask
        if r.budget < 1 and top.dim() == 2:
            chunk_mask = within_budget(chunks, doc, chunk_mask, r.budget)
        rows = doc if top.dim() == 2 else doc.repeat_interleave(top.size(1))  # (B*T,) the document of each row
        o = self.module.forward_lazy(
            top,
            cast(HierarchicalCache, memory.cache).chunk_keys_t,
            chunk_mask,
            memory.word_mask,
            lambda choice: chunks.read(rows, choice),  # (B*T, k) -> (B*T, k, N, H)
            mode=r.mode,
            samples=r.samples,
            read=r.chunks,
            sparse=r.sparse and top.dim() == 2,  # one step's attention may come back sparse
        )
        return Context(ctx=o.ctx, attn=o.attn, coarse=o.coarse, policy=o.policy)


def within_budget(chunks: ChunkCache, doc: Tensor, chunk_mask: Tensor, budget: float) -> Tensor:
    """The chunks each row may read next under a reading budget: all of ``chunk_mask`` ``(R, M)``
    while its document ``doc[r]`` has had less than ``budget`` of its words encoded, then only the
    chunks already encoded (its last chunk, encoded first, is always among them)."""
    words = chunks.mask.sum(-1)  # (D, M) words per chunk
    encoded = chunks.encoded  # (D, M)
    spent = (words * encoded).sum(-1) >= budget * words.sum(-1)  # (D,)
    return torch.where(spent[doc].unsqueeze(-1), chunk_mask & encoded[doc], chunk_mask)
