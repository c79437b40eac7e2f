"""The source attention's interface, :class:`SourceAttention`; what it returns,
:class:`~c2fsum.modules.attention.Context`, is declared with the attention modules.

Each family writes its own next to its model: :class:`~c2fsum.models.flat.FlatAttention` (MODEL
0/1, bilinear attention over every word), :class:`~c2fsum.models.coarse_to_fine.EagerCoarseToFine`
(MODEL 2, and MODEL 3 over eagerly encoded words) and
:class:`~c2fsum.models.coarse_to_fine.LazyCoarseToFine` (MODEL 3 read lazily). Each runs the
family's attention module (``model.attention``) and holds no parameters; a family picks one per
batch (its ``source_attention``) from how the batch was encoded to be read (``memory.reading``,
a :class:`~c2fsum.models.base.Reading`), so the choice is made in one place.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from torch import Tensor

from c2fsum.models.base import BatchFields, Memory
from c2fsum.modules.attention import Context


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
        Word attention (``Context.attention.attn``) comes back ``(B, M, N)``."""

    @abstractmethod
    def attend_steps(self, top: Tensor, memory: Memory) -> Context:
        """Every teacher-forced step at once: ``top`` ``(B, T, H)`` -> context ``(B, T, H)``, word
        attention ``(B, T, M, N)`` (and coarse ``(B, T, M)``, policy ``(B, T)`` where they exist)."""
