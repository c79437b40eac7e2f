"""Lazy fine encoding: word states of a document's chunks, encoded only when attention picks them.

MODEL 1-3 run the word-level LSTM per chunk (state reset at chunk boundaries), so encoding
only some chunks gives exactly the states the eager path computes for them. A
:class:`ChunkCache` holds, for the D documents of an encoded batch, which chunks were encoded
and their word states; every decoder row (beam hypotheses included) points to its document
through ``Memory.doc``, so hypotheses share a document's encoded chunks::

    src (D, M, N) ids ----------------------------------- kept (ids only, O(M N) integers)
    slot (D, M) long: -1, or where chunk (d, i) sits in the store
    store (S, N, H) = cat(blocks): word states of the S chunks encoded so far

Each call to :meth:`ChunkCache.read` encodes the chunks not yet in the cache in one batched
LSTM call and appends them as a new block. Without gradients (decoding) the store is rebuilt
with ``torch.cat`` whenever a block was added. With gradients (lazy training) a read of fewer rows
than the store holds (a decoder step) takes them from their blocks directly (one ``index_select``
per block touched), so gradients flow back to the encoder without copying the whole store, and its
gradient, at every decoder step; a read of more rows (every teacher-forced step at once) copies
the blocks into one store for that read and takes its rows in one ``index_select``.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

EncodeRows = Callable[[Tensor, Tensor], tuple[Tensor, tuple[Tensor, Tensor]]]
"""``(docs (U,), chunks (U,))`` long -> word states ``(U, N, H)`` of chunk ``chunks[u]`` of document
``docs[u]`` and the final ``(h, c)``, each ``(L, U, H)``."""


class ChunkCache:
    """Per-document cache of encoded chunks (see the module docstring).

    Args:
        encode_rows: runs the per-chunk word encoder over U chunks of the grid at once.
        src, mask: the batch's grid ``(D, M, N)`` (ids and bool mask).
    """

    def __init__(self, encode_rows: EncodeRows, src: Tensor, mask: Tensor):
        D, M, _ = src.shape
        self.encode_rows = encode_rows
        self.src = src
        self.mask = mask
        self.slot = torch.full((D, M), -1, dtype=torch.long, device=src.device)
        self.blocks: list[Tensor] = []
        self._store: Tensor | None = None
        self.n_slots = 0
        self.starts: list[int] = []
        self._bounds = torch.zeros(0, dtype=torch.long, device=src.device)
        """``starts[1:]`` as a tensor, remade when a block is added (read at every decoder step)."""
        """First slot of each block."""
        self.encoder_calls = 0

    def encode(self, docs: Tensor, chunks: Tensor) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """Encode chunks ``(docs[u], chunks[u])`` (distinct, not cached yet) and cache them.

        Returns their word states ``(U, N, H)`` and final LSTM states ``(h, c)``, each ``(L, U, H)``.
        """
        states, final = self.encode_rows(docs, chunks)
        U = states.size(0)
        self.slot[docs, chunks] = torch.arange(self.n_slots, self.n_slots + U, device=self.slot.device)
        self.starts.append(self.n_slots)
        self._bounds = torch.tensor(self.starts[1:], device=self.slot.device)  # block boundaries, once a block
        self.n_slots += U
        self.blocks.append(states)
        self._store = None
        self.encoder_calls += 1
        return states, final

    def read(self, docs: Tensor, chunks: Tensor) -> Tensor:
        """Word states of chunk ``chunks[r, j]`` of document ``docs[r]``.

        Args:
            docs ``(R,)`` long; chunks ``(R, k)`` long.
        Returns:
            ``(R, k, N, H)``; chunks not cached yet are encoded first (one batched call).
        """
        R, k = chunks.shape
        d = docs.unsqueeze(1).expand(R, k).reshape(-1)
        c = chunks.reshape(-1)
        missing = self.slot[d, c] < 0
        if bool(missing.any()):
            M = self.slot.size(1)
            # the distinct (document, chunk) pairs in (document, chunk) order, as one key each: a
            # 1-D unique (a sort) instead of unique rows of a (U, 2) tensor (row by row: slow)
            key = torch.unique(d[missing] * M + c[missing])  # (U,)
            self.encode(key // M, key % M)
        slots = self.slot[d, c]  # (R*k,)
        if torch.is_grad_enabled() and len(self.blocks) > 1:
            if slots.numel() < self.n_slots:  # a few rows (one decoder step): from their blocks
                states = self._gather(slots)
            else:  # every teacher-forced step at once: one store for this read, one index_select
                states = torch.cat(self.blocks, 0).index_select(0, slots)
        else:
            if self._store is None:
                self._store = self.blocks[0] if len(self.blocks) == 1 else torch.cat(self.blocks, 0)
            states = self._store.index_select(0, slots)  # (R*k, N, H)
        return states.view(R, k, *states.shape[1:])

    def _gather(self, slots: Tensor) -> Tensor:
        """Rows ``slots`` ``(K,)`` of the store, read from their blocks: ``(K, N, H)``."""
        block = torch.bucketize(slots, self._bounds, right=True)  # (K,) block of each row
        parts, rows = [], []
        for b in torch.unique(block).tolist():
            sel = (block == b).nonzero().squeeze(1)
            parts.append(self.blocks[b].index_select(0, slots[sel] - self.starts[b]))
            rows.append(sel)
        order = torch.cat(rows)
        return torch.cat(parts, 0).index_select(0, torch.argsort(order))

    @property
    def encoded(self) -> Tensor:
        """``(D, M)`` bool: chunks encoded so far."""
        return self.slot >= 0

    def fraction_per_document(self) -> list[float]:
        """Share of each document's real words that went through the word-level encoder, ``D`` floats."""
        words = self.mask.sum(-1)  # (D, M)
        done = (words * self.encoded).sum(-1)  # (D,)
        return (done / words.sum(-1).clamp(min=1)).tolist()

    def fraction_encoded(self) -> float:
        """Share of the batch's real words that went through the word-level encoder."""
        total = int(self.mask.sum())
        done = int((self.mask.sum(-1) * self.encoded).sum())
        return done / max(total, 1)
