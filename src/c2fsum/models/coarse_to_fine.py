"""MODEL 2 (hierarchical soft attention) and MODEL 3 (hard coarse attention), thesis ch. 4.

    src grid (B, M, N) --emb--> (B, M, N, E)
        --per-chunk LSTM (state reset at chunk boundaries)--> word states h_ij (B, M, N, H)
        --chunk encoder (CNN or BOW, +POS)------------------> chunk vectors h^s_i (B, M, Hc)
    step t:  h_t = LSTM-stack([emb(y_{t-1}); c_{t-1}])
             alpha^s = softmax_i(h^s_i^T W_s h_t)                          coarse (B, M)
             MODEL 2: weights = alpha^s
             MODEL 3: weights = one-hot sample of alpha^s (training) / argmax (test)
             alpha_ij = weights_i * softmax_j(h_ij^T W_w h_t)               fine   (B, M, N)
             c_t = tanh(W2 [sum_ij alpha_ij h_ij; h_t]),  p(y_t) = softmax(W_out c_t + b)

The decoder, generator and embeddings are MODEL 0's (this class extends :class:`Model0`).

Lazy fine encoding (MODEL 3): at test time (and in training with ``lazy_fine``) the word-level
LSTM runs only over the chunks the hard coarse attention picks, once per document
(:class:`c2fsum.models.chunk_cache.ChunkCache`); the chunk encoder is then the only part that
reads every word, a slice of chunks at a time. The decoder's initial state is the final state
of the document's last non-empty chunk, as in the eager path, so that chunk is encoded first.
Set ``lazy=False`` to force the eager path (it gives the same outputs).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import cast

import torch
from torch import Tensor, nn

from c2fsum.models.base import BatchFields, Capabilities, Memory
from c2fsum.models.chunk_cache import ChunkCache
from c2fsum.models.model0 import Model0, SourceAttention
from c2fsum.modules.chunk_encoders import ChunkEncoder
from c2fsum.modules.deferred import RowSource
from c2fsum.modules.hierarchical import CoarseToFineAttention

COARSE_MODES = ("soft", "hard")


@dataclass
class HierarchicalCache(BatchFields):
    """``Memory.cache`` of MODEL 2/3: attention keys, once per batch."""

    keys_t: Tensor | None
    """``(B, H, S)`` the word states transposed, contiguous; None on the lazy path (no word states yet)."""
    chunk_keys_t: Tensor
    """``(B, Hc, M)`` the chunk vectors transposed, contiguous."""


class CoarseToFine(Model0):
    """Hierarchical attention; ``coarse="soft"`` is MODEL 2, ``coarse="hard"`` MODEL 3.

    ``with model.soft_attention(): ...`` (the trainer, per minibatch, thesis +ALTERNATE /
    +PRETRAIN) makes a hard model attend softly inside the block. It acts in training mode
    only: in eval mode (validation, evaluation, decoding) a hard model always attends by argmax,
    as at test time.
    """

    def __init__(
        self,
        *,
        vocab_size: int,
        emb_dim: int = 300,
        hidden: int = 500,
        enc_layers: int = 2,
        dec_layers: int = 2,
        dropout: float = 0.3,
        input_feed: bool = True,
        init_range: float = 0.1,
        chunk_encoder: str = "cnn",
        chunk_filters: int = 600,
        chunk_width: int = 6,
        pos_dim: int = 0,
        max_chunks: int = 10,
        coarse: str = "soft",
        samples: int = 1,
        lazy_fine: bool = False,
        chunk_slice: int = 256,
        **components,
    ):
        """``components``: the Paulus et al. options of :class:`Model0` that combine with
        hierarchical attention (bidirectional, intra_decoder, pointer, share_embeddings, shared_output,
        share_src_tgt_emb, output).
        ``lazy_fine``: also encode lazily in training (hard attention); ``chunk_slice``: chunks
        read at a time by the chunk encoder on the lazy path."""
        if components.get("temporal"):
            raise ValueError(
                "model.temporal: intra-temporal attention is defined for flat attention "
                "(model0, model1), not for coarse-to-fine attention"
            )
        super().__init__(
            vocab_size=vocab_size,
            emb_dim=emb_dim,
            hidden=hidden,
            enc_layers=enc_layers,
            dec_layers=dec_layers,
            dropout=dropout,
            input_feed=input_feed,
            init_range=init_range,
            per_chunk=True,
            **components,
        )
        if coarse not in COARSE_MODES:
            raise ValueError(f"model.coarse: got {coarse!r}, expected one of {COARSE_MODES}")
        self.coarse = coarse
        hard = coarse == "hard"
        self.capabilities = Capabilities(copies=self.copies, hierarchical=True, hard=hard, lazy=hard)
        self.samples = samples
        self.read_chunks = 1
        """MODEL 3 at test time: chunks read per decoder step (``decode.read_chunks``; 1 = argmax)."""
        self.read_budget = 1.0
        """MODEL 3 at test time: the share of a document's words read at the word level after which
        steps choose only among chunks already read (``decode.read_budget``; 1 = no limit)."""
        self._soft = False
        self.lazy = True
        """Decode a hard model lazily (False: always the eager path, e.g. to compare)."""
        self.lazy_fine = lazy_fine
        self.chunk_slice = chunk_slice
        self.chunk_encoder = ChunkEncoder(
            kind=chunk_encoder,
            vocab_size=vocab_size,
            emb_dim=emb_dim,
            max_chunks=max_chunks,
            filters=chunk_filters,
            width=chunk_width,
            pos_dim=pos_dim,
            init_range=init_range,
        )
        # registered after the chunk encoder, whose size it needs (see make_attention)
        self.attention = CoarseToFineAttention(query_dim=hidden, word_dim=hidden, chunk_dim=self.chunk_encoder.out_dim)
        for name, p in self.named_parameters():
            if p.requires_grad and (name.startswith("attention.") or name.startswith("chunk_encoder.")):
                p.data.uniform_(-init_range, init_range)

    def make_attention(self, *, hidden: int, temporal: bool) -> nn.Module | None:
        """None: :meth:`__init__` builds the coarse-to-fine attention after the chunk encoder."""
        return None

    FROM_FLAT = {"attention.W.weight": "attention.W_w.weight"}
    """A flat model's (MODEL 0/1) parameter -> this model's: the word-attention bilinear map
    h_i^T W h_t becomes the fine map h_ij^T W_w h_t; embeddings, the word encoder (same LSTM, here
    run per chunk), decoder and generator keep their names."""
    NEW_OVER_FLAT = ("chunk_encoder.", "attention.W_s.")
    """What a flat model does not have: the chunk encoder and the coarse map h^s_i^T W_s h_t."""

    @classmethod
    def weights_from_flat(cls, weights: dict[str, Tensor]) -> dict[str, Tensor]:
        """A flat model's weights under this model's names (:data:`FROM_FLAT`); the parameters
        of :data:`NEW_OVER_FLAT` are not among them (they keep their own initialization)."""
        return {cls.FROM_FLAT.get(k, k): v for k, v in weights.items()}

    @contextmanager
    def soft_attention(self, soft: bool = True) -> Iterator[None]:
        """Inside the block a hard model in training mode attends softly (``soft=False``: as
        configured); one +PRETRAIN or +ALTERNATE soft minibatch of the thesis."""
        before = self._soft
        self._soft = soft
        try:
            yield
        finally:
            self._soft = before

    @property
    def use_soft(self) -> bool:
        """Whether a soft minibatch is on (:meth:`soft_attention`); setting it turns it on or off
        until set again (the trainer's older way)."""
        return self._soft

    @use_soft.setter
    def use_soft(self, soft: bool) -> None:
        self._soft = bool(soft)

    @contextmanager
    def reading_chunks(self, k: int, budget: float = 1.0) -> Iterator[None]:
        """Inside the block, read ``k`` chunks per step at test time (``decode.read_chunks``) and
        at most about ``budget`` of each document's words (``decode.read_budget``); the previous
        values are restored after it, so decoding leaves the model as it found it."""
        before = self.read_chunks, self.read_budget
        self.read_chunks, self.read_budget = k, budget
        try:
            yield
        finally:
            self.read_chunks, self.read_budget = before

    def lazy_active(self) -> bool:
        """Whether :meth:`encode` takes the lazy path (hard attention, at test time or lazy_fine)."""
        hard = self.coarse == "hard" and not self.soft_batch()
        return hard and self.lazy and (not self.training or self.lazy_fine)

    def encode(self, src: Tensor, src_mask: Tensor, src_ext: Tensor | None = None, n_ext: int = 0) -> Memory:
        """``(B, M, N)`` -> word states ``(B, M, N, H)`` and chunk vectors ``(B, M, Hc)``; lazily
        (:meth:`encode_lazy`) when :meth:`lazy_active`."""
        if self.copies and src_ext is None:
            src_ext = src
        if self.lazy_active():
            return self.encode_lazy(src, src_mask, src_ext, n_ext)
        emb = self.src_emb(src)  # (B, M, N, E)
        words, (h, c) = self.encoder(emb, src_mask, skip_packing=self.kernels.skip_packing)  # (B, M, N, H) per chunk
        chunks = self.chunk_encoder(src, emb, src_mask)  # (B, M, Hc)
        chunk_mask = src_mask.any(-1)  # (B, M)
        _, keys_t, chunk_keys_t = CoarseToFineAttention.prepare(words, chunks)
        return Memory(
            words=words,
            word_mask=src_mask,
            chunk_mask=chunk_mask,
            chunks=chunks,
            src_ext=src_ext,
            n_ext=n_ext,
            final=(h.transpose(0, 1), c.transpose(0, 1)),
            cache=HierarchicalCache(keys_t=keys_t, chunk_keys_t=chunk_keys_t),
        )

    def encode_lazy(self, src: Tensor, src_mask: Tensor, src_ext: Tensor | None = None, n_ext: int = 0) -> Memory:
        """Chunk vectors ``(B, M, Hc)`` for all chunks; word states only for each document's last
        non-empty chunk (the decoder's initial state). ``words`` is a ``(B, M, N, 0)`` placeholder."""
        B, M, N = src.shape
        # with gradients (lazy training), one look-up of the whole grid: one embedding gradient,
        # not one per encoder call; without, slices bound the scratch memory of long documents
        # (its gradient summed over the decoder steps' reads in one buffer: RowSource)
        emb = self.src_emb(src) if torch.is_grad_enabled() else None  # (B, M, N, E)
        chunks = self.chunk_encoder(src, emb, src_mask, embed=self.src_emb, slice_chunks=self.chunk_slice)
        chunk_mask = src_mask.any(-1)  # (B, M)
        grid = None if emb is None else RowSource(emb.flatten(0, 1))  # rows (B*M, N, E)

        def encode_rows(docs: Tensor, rows: Tensor) -> tuple[Tensor, tuple[Tensor, Tensor]]:
            """Chunks ``(docs[u], rows[u])`` through the per-chunk LSTM: ``(U, N, H)``, final ``(L, U, H)`` each."""
            e = self.src_emb(src[docs, rows]) if grid is None else grid.read(docs * M + rows)  # (U, N, E)
            mask = src_mask[docs, rows].unsqueeze(1)  # (U, 1, N)
            states, final = self.encoder(e.unsqueeze(1), mask, skip_packing=self.kernels.skip_packing)  # (U, 1, N, H)
            return states.squeeze(1), final

        cache = ChunkCache(encode_rows, src, src_mask)
        # sparse step attention where nothing needs its gradient through the copy mixture (pointer
        # models take it by pointer_mixture_sparse); teacher forcing (Model0.forward) sets it False
        cache.sparse_attn = not self.copies or not torch.is_grad_enabled()
        last = chunk_mask.long().cumsum(-1).argmax(-1)  # (B,) last non-empty chunk
        _, (h, c) = cache.encode(torch.arange(B, device=src.device), last)  # (L, B, H)
        return Memory(
            words=self.src_emb.weight.new_zeros(B, M, N, 0),
            word_mask=src_mask,
            chunk_mask=chunk_mask,
            chunks=chunks,
            src_ext=src_ext,
            n_ext=n_ext,
            final=(h.transpose(0, 1), c.transpose(0, 1)),
            cache=HierarchicalCache(keys_t=None, chunk_keys_t=chunks.transpose(1, 2).contiguous()),
            doc=torch.arange(B, device=src.device),
            lazy=cache,
        )

    def soft_batch(self) -> bool:
        """Whether a hard model attends softly now: inside :meth:`soft_attention`, in training mode."""
        return self._soft and self.training

    def attention_mode(self) -> str:
        """``soft`` (MODEL 2, or a +PRETRAIN / +ALTERNATE soft training batch of MODEL 3),
        ``sample`` (MODEL 3 in training) or ``argmax`` (MODEL 3 in eval mode)."""
        if self.coarse == "soft" or self.soft_batch():
            return "soft"
        return "sample" if self.training else "argmax"

    def attend_source(self, top: Tensor, memory: Memory, past: Tensor | None) -> SourceAttention:
        """Coarse-to-fine attention for decoder output ``top`` ``(B, H)``; ``past`` is unused (no
        intra-temporal attention here)."""
        return self._coarse_to_fine(top, memory)

    def attend_source_steps(self, top: Tensor, memory: Memory) -> SourceAttention:
        """Coarse-to-fine attention of every teacher-forced step at once, decoder outputs ``top``
        ``(B, T, H)`` -> context ``(B, T, H)``, attention ``(B, T, M, N)``, coarse ``(B, T, M)``
        and, hard in training, the policy ``(B, T)``. On the lazy path the chunks of every step
        are drawn first and their union is encoded in one call."""
        return self._coarse_to_fine(top, memory)

    def _coarse_to_fine(self, top: Tensor, memory: Memory) -> SourceAttention:
        """One step (``top`` ``(B, H)``) or every step (``(B, T, H)``), lazy or eager: the attention
        module's method for that case, given the memory's tensors and this model's reading mode."""
        steps = top.dim() == 3
        cache = cast(HierarchicalCache, memory.cache)
        attention = cast(CoarseToFineAttention, self.attention)
        mode, k, read = self.attention_mode(), self.samples, self.read_chunks
        if memory.lazy is not None:
            chunks, doc = cast(ChunkCache, memory.lazy), memory.doc
            assert doc is not None  # encode_lazy() sets doc together with lazy
            rows = doc.repeat_interleave(top.size(1)) if steps else doc  # the document of each query row

            def fetch(choice: Tensor) -> Tensor:
                return chunks.read(rows, choice)

            chunk_mask = memory.chunk_mask
            if not steps and not self.training and self.read_budget < 1:
                chunk_mask = within_budget(chunks, doc, chunk_mask, self.read_budget)
            lazy = (top, cache.chunk_keys_t, chunk_mask, memory.word_mask, fetch)
            if steps:
                o = attention.forward_lazy_steps(*lazy, mode=mode, samples=k, read=read)
            else:
                o = attention.forward_lazy(*lazy, mode=mode, samples=k, read=read, sparse=chunks.sparse_attn)
        else:
            eager = (
                top,
                memory.words.flatten(1, 2),  # (B, S, H), a view
                cast(Tensor, cache.keys_t),  # set by the eager encode
                cache.chunk_keys_t,
                memory.word_mask,
                memory.chunk_mask,
            )
            if steps:
                o = attention.forward_steps(*eager, mode=mode, samples=k, read=read)
            else:
                o = attention(*eager, mode=mode, samples=k, read=read)
        return SourceAttention(ctx=o.ctx, attn=o.attn, coarse=o.coarse, policy=o.policy)


def within_budget(chunks: ChunkCache, doc: Tensor, chunk_mask: Tensor, budget: float) -> Tensor:
    """The chunks each row may read next under a reading budget: all of ``chunk_mask`` ``(R, M)``
    while its document ``doc[r]`` has had less than ``budget`` of its words encoded, then only the
    chunks already encoded (its last chunk, encoded first, is always among them)."""
    words = chunks.mask.sum(-1)  # (D, M) words per chunk
    encoded = chunks.encoded  # (D, M)
    spent = (words * encoded).sum(-1) >= budget * words.sum(-1)  # (D,)
    return torch.where(spent[doc].unsqueeze(-1), chunk_mask & encoded[doc], chunk_mask)
