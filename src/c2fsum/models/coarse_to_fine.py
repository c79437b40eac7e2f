"""MODEL 2 (hierarchical soft attention) and MODEL 3 (hard coarse attention), thesis ch. 4.

    src grid (B, M, N) --emb--> (B, M, N, E)
        --per-chunk LSTM (state reset at chunk boundaries)--> word states h_ij (B, M, N, H)
        --chunk encoder (CNN or BOW, +POS)------------------> chunk vectors h^s_i (B, M, Hc)
    step t:  h_t = LSTM-stack([emb(y_{t-1}); c_{t-1}])
             alpha^s = softmax_i(h^s_i^T W_s h_t)                          coarse (B, M)
             MODEL 2: weights = alpha^s
             MODEL 3: weights = one-hot sample of alpha^s (training) / argmax (test)
             alpha_ij = weights_i * softmax_j(h_ij^T W_w h_t)               fine   (B, M, N)
             c~ = sum_ij alpha_ij h_ij;  f_t, p(y_t) as MODEL 0's (:mod:`c2fsum.models.seq2seq`)

Lazy fine encoding (MODEL 3): at test time (and in training with ``lazy_fine``) the word-level
LSTM runs only over the chunks the hard coarse attention picks, once per document
(:meth:`ChunkSource.read_lazily`, :class:`LazyCoarseToFine`). Encode with
``Reading(lazy=False)`` to take the eager path (it gives the same outputs).

This file, top to bottom: the source (:class:`ChunkSource`: word states and chunk vectors, eagerly
or lazily), the two source attentions (:class:`EagerCoarseToFine`, :class:`LazyCoarseToFine`, over
:class:`~c2fsum.modules.hierarchical.CoarseToFineAttention`), and the family (:class:`CoarseToFine`:
its modules, how it reads a batch, which attention reads it). The step and the teacher-forced pass
are every family's (:class:`~c2fsum.models.seq2seq.Seq2Seq`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import cast

import torch
from torch import Tensor, nn

from c2fsum.config import ModelConfig
from c2fsum.models.base import BatchFields, Capabilities, Memory, Reading
from c2fsum.models.chunk_cache import ChunkCache
from c2fsum.models.parts import init_uniform
from c2fsum.models.parts.attention import SourceAttention
from c2fsum.models.parts.source import WordSource, source_layers
from c2fsum.models.seq2seq import Decoder, Generator, Seq2Seq, decoder_lstm, output_layers
from c2fsum.modules.attention import Context
from c2fsum.modules.chunk_encoders import ChunkEncoder
from c2fsum.modules.deferred import RowSource
from c2fsum.modules.encoders import LSTMWordEncoder
from c2fsum.modules.hierarchical import CoarseToFineAttention


class ChunkSource(WordSource):
    """The source of MODEL 2/3: the embedding, the per-chunk word LSTM and the chunk encoder
    (``chunk_encoder``, CNN or BOW); read eagerly (:meth:`read`) or lazily (:meth:`read_lazily`:
    the word-level LSTM runs only over the chunks the hard coarse attention picks, once per
    document, :class:`~c2fsum.models.chunk_cache.ChunkCache`; the chunk encoder is the only part
    that reads every word, ``chunk_slice`` chunks at a time)."""

    def __init__(self, emb: nn.Embedding, encoder: LSTMWordEncoder, chunk_encoder: ChunkEncoder, chunk_slice: int):
        super().__init__(emb, encoder)
        self.chunk_encoder = chunk_encoder
        self.chunk_slice = chunk_slice

    def read(self, src: Tensor, src_mask: Tensor, src_ext: Tensor | None, n_ext: int, *, skip_packing: bool) -> Memory:
        """Word states ``(B, M, N, H)`` of every chunk and chunk vectors ``(B, M, Hc)``."""
        emb = self.emb(src)  # (B, M, N, E)
        memory = self.read_embedded(emb, src_mask, src_ext, n_ext, skip_packing=skip_packing)
        memory.chunks = self.chunk_encoder(src, emb, src_mask)  # (B, M, Hc)
        return memory

    def read_lazily(
        self,
        src: Tensor,
        src_mask: Tensor,
        src_ext: Tensor | None,
        n_ext: int,
        *,
        skip_packing: bool,
    ) -> Memory:
        """Chunk vectors ``(B, M, Hc)`` of every chunk; word states only of each document's last
        non-empty chunk (the decoder's initial state, as on the eager path), the others encoded
        when attention reads them (``memory.lazy``, a :class:`ChunkCache`). ``words`` is a
        ``(B, M, N, 0)`` placeholder."""
        B, M, N = src.shape
        # with gradients (lazy training), one look-up of the whole grid: one embedding gradient,
        # not one per encoder call; without, slices bound the scratch memory of long documents
        # (its gradient summed over the decoder steps' reads in one buffer: RowSource)
        emb = self.emb(src) if torch.is_grad_enabled() else None  # (B, M, N, E)
        chunks = self.chunk_encoder(src, emb, src_mask, embed=self.emb, slice_chunks=self.chunk_slice)
        chunk_mask = src_mask.any(-1)  # (B, M)
        grid = None if emb is None else RowSource(emb.flatten(0, 1))  # rows (B*M, N, E)

        def encode_rows(docs: Tensor, rows: Tensor) -> tuple[Tensor, tuple[Tensor, Tensor]]:
            """Chunks ``(docs[u], rows[u])`` through the per-chunk LSTM: ``(U, N, H)``, final ``(L, U, H)`` each."""
            e = self.emb(src[docs, rows]) if grid is None else grid.read(docs * M + rows)  # (U, N, E)
            mask = src_mask[docs, rows].unsqueeze(1)  # (U, 1, N)
            states, final = self.encoder(e.unsqueeze(1), mask, skip_packing=skip_packing)  # (U, 1, N, H)
            return states.squeeze(1), final

        cache = ChunkCache(encode_rows, src, src_mask)
        last = chunk_mask.long().cumsum(-1).argmax(-1)  # (B,) last non-empty chunk
        _, (h, c) = cache.encode(torch.arange(B, device=src.device), last)  # (L, B, H)
        return Memory(
            words=self.emb.weight.new_zeros(B, M, N, 0),
            word_mask=src_mask,
            chunk_mask=chunk_mask,
            chunks=chunks,
            src_ext=src_ext,
            n_ext=n_ext,
            final=(h.transpose(0, 1), c.transpose(0, 1)),
            doc=torch.arange(B, device=src.device),
            lazy=cache,
        )


@dataclass
class HierarchicalCache(BatchFields):
    """``Memory.cache`` of coarse-to-fine attention: keys, once per batch."""

    keys_t: Tensor | None
    """``(B, H, S)`` the word states transposed, contiguous; None on the lazy path (no word states yet)."""
    chunk_keys_t: Tensor
    """``(B, Hc, M)`` the chunk vectors transposed, contiguous."""


class CoarseToFineReader(SourceAttention):
    """What the two coarse-to-fine attentions share: the family's module (``model.attention``), how
    the memory is read (``memory.reading``), and a step as T = 1 of :meth:`attend_steps` (which
    takes ``top`` ``(B, H)`` as one step)."""

    def __init__(self, module: CoarseToFineAttention, reading: Reading):
        self.module = module
        self.reading = reading

    def attend(self, top: Tensor, memory: Memory, past: Tensor | None, coverage: Tensor | None = None) -> Context:
        """``past`` and ``coverage`` are unused (no intra-temporal attention or coverage here)."""
        return self.attend_steps(top, memory)


class EagerCoarseToFine(CoarseToFineReader):
    """Coarse-to-fine attention over the word states of every chunk (MODEL 2; MODEL 3 eagerly)."""

    def prepare(self, memory: Memory, *, deferred: bool = False) -> HierarchicalCache:
        assert memory.chunks is not None  # ChunkSource.read sets it
        _, keys_t, chunk_keys_t = CoarseToFineAttention.prepare(memory.words, memory.chunks)
        return HierarchicalCache(keys_t=keys_t, chunk_keys_t=chunk_keys_t)

    def attend_steps(self, top: Tensor, memory: Memory) -> Context:
        """Every step of ``top`` ``(B, T, H)`` at once, or one step ``(B, H)``."""
        r, cache = self.reading, cast(HierarchicalCache, memory.cache)
        args = (top, memory.words.flatten(1, 2), cast(Tensor, cache.keys_t), cache.chunk_keys_t)
        return self.module(*args, memory.word_mask, memory.chunk_mask, mode=r.mode, samples=r.samples, read=r.chunks)


class LazyCoarseToFine(CoarseToFineReader):
    """Hard coarse-to-fine attention (MODEL 3) that reads the word states of the chosen chunks only,
    encoding them on demand (``memory.lazy``: thesis 4.4, O(M + N) per step)."""

    def prepare(self, memory: Memory, *, deferred: bool = False) -> HierarchicalCache:
        assert memory.chunks is not None  # ChunkSource.read_lazily sets it
        return HierarchicalCache(keys_t=None, chunk_keys_t=memory.chunks.transpose(1, 2).contiguous())

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
        return self.module.forward_lazy(
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


def within_budget(chunks: ChunkCache, doc: Tensor, chunk_mask: Tensor, budget: float) -> Tensor:
    """The chunks each row may read next under a reading budget: all of ``chunk_mask`` ``(R, M)``
    while its document ``doc[r]`` has had less than ``budget`` of its words encoded, then only the
    chunks already encoded (its last chunk, encoded first, is always among them)."""
    words = chunks.mask.sum(-1)  # (D, M) words per chunk
    encoded = chunks.encoded  # (D, M)
    spent = (words * encoded).sum(-1) >= budget * words.sum(-1)  # (D,)
    return torch.where(spent[doc].unsqueeze(-1), chunk_mask & encoded[doc], chunk_mask)


class CoarseToFine(Seq2Seq):
    """Hierarchical attention; ``model2`` attends softly, ``model3`` hard (``coarse`` = soft / hard).

    ``Reading(soft=True)`` (the trainer, per minibatch, thesis +ALTERNATE / +PRETRAIN) makes a hard
    model attend softly in that pass. It acts in training mode only: in eval mode (validation,
    evaluation, decoding) a hard model always attends by argmax, as at test time.
    """

    source: ChunkSource
    attention: CoarseToFineAttention

    FROM_FLAT = {"attention.W.weight": "attention.W_w.weight"}
    """A flat model's (MODEL 0/1) parameter -> this model's: the word-attention bilinear map
    h_i^T W h_t becomes the fine map h_ij^T W_w h_t; embeddings, the word encoder (same LSTM, here
    run per chunk), decoder and generator keep their names."""
    NEW_OVER_FLAT = ("source.chunk_encoder.", "attention.W_s.")
    """What a flat model does not have: the chunk encoder and the coarse map h^s_i^T W_s h_t."""
    SAVED_ORDER = (
        *("source.emb", "tgt_emb", "source.encoder", "dec.lstm", "dec.combine", "dec.intra", "gen"),
        *("source.chunk_encoder", "attention"),
    )

    def __init__(self, cfg: ModelConfig, vocab_size: int, max_chunks: int = 10):
        """``max_chunks`` (the grid's M) sizes the chunk-position embedding of +POS models."""
        super().__init__()
        if cfg.temporal:
            raise ValueError(
                "model.temporal: intra-temporal attention is defined for flat attention "
                "(model0, model1), not for coarse-to-fine attention"
            )
        self.settings(cfg, vocab_size)
        self.coarse = "hard" if cfg.family == "model3" else "soft"
        hard = self.coarse == "hard"
        self.capabilities = Capabilities(copies=cfg.pointer, hierarchical=True, hard=hard, lazy=hard)
        self.samples = cfg.samples
        """+MULTI k: chunks drawn per step in training."""
        self.lazy_fine = cfg.lazy_fine
        """Also encode lazily in training (hard attention)."""
        # the modules, drawn and initialized in this order (the weights of every seeded run): MODEL 0's
        # without its attention, initialized, then the chunk encoder and the attention that needs
        # its size, initialized after them
        src_emb, tgt_emb, encoder = source_layers(cfg, vocab_size, self.pad_id, per_chunk=True)
        lstm = decoder_lstm(cfg)
        combine, intra = output_layers(cfg)
        gen = Generator(cfg, vocab_size)
        init_uniform([src_emb, tgt_emb, encoder, lstm, combine, intra, gen], cfg.init_range)
        chunk_encoder = ChunkEncoder(
            kind=cfg.chunk_encoder,
            vocab_size=vocab_size,
            emb_dim=cfg.emb_dim,
            max_chunks=max_chunks,
            filters=cfg.chunk_filters,
            width=cfg.chunk_width,
            pos_dim=cfg.pos_dim,
            init_range=cfg.init_range,
        )
        attention = CoarseToFineAttention(query_dim=cfg.hidden, word_dim=cfg.hidden, chunk_dim=chunk_encoder.out_dim)
        init_uniform([chunk_encoder, attention], cfg.init_range)
        # the parts, each owning its parameters
        self.source = ChunkSource(src_emb, encoder, chunk_encoder, chunk_slice=256)
        self.tgt_emb = tgt_emb
        self.dec = Decoder(cfg, lstm, combine, intra)
        self.attention = attention
        self.gen = gen

    @classmethod
    def weights_from_flat(cls, weights: dict[str, Tensor]) -> dict[str, Tensor]:
        """A flat model's weights under this model's names (:data:`FROM_FLAT`); the parameters
        of :data:`NEW_OVER_FLAT` are not among them (they keep their own initialization)."""
        return {cls.FROM_FLAT.get(k, k): v for k, v in weights.items()}

    def resolve(self, reading: Reading) -> Reading:
        """``reading`` as this model reads a batch now, decided once at encode time: the attention
        mode (``soft``: MODEL 2, or a +PRETRAIN / +ALTERNATE soft training batch of MODEL 3;
        ``sample``: MODEL 3 in training; ``argmax``: MODEL 3 in eval mode), lazily or not (hard
        attention, at test time or with ``lazy_fine``, unless ``reading.lazy`` is False), the
        budget (test time only) and sparse step attention (lazily, where ``reading.sparse`` allows
        it and nothing needs its gradient through the copy mixture: pointer models take it by
        ``pointer_mixture_sparse``)."""
        hard = self.coarse == "hard" and not (reading.soft and self.training)
        mode = "soft" if not hard else "sample" if self.training else "argmax"
        lazy = hard and reading.lazy and (not self.training or self.lazy_fine)
        sparse = lazy and reading.sparse and (not self.copies or not torch.is_grad_enabled())
        budget = 1.0 if self.training else reading.budget
        return replace(reading, mode=mode, lazy=lazy, sparse=sparse, budget=budget, samples=self.samples)

    def read(self, src: Tensor, src_mask: Tensor, src_ext: Tensor | None, n_ext: int, reading: Reading) -> Memory:
        """Word states ``(B, M, N, H)`` and chunk vectors ``(B, M, Hc)``; lazily
        (:meth:`ChunkSource.read_lazily`) where ``reading`` resolves so (:meth:`resolve`)."""
        reading = self.resolve(reading)
        read = self.source.read_lazily if reading.lazy else self.source.read
        memory = read(src, src_mask, src_ext, n_ext, skip_packing=self.kernels.skip_packing)
        memory.reading = reading
        return memory

    def source_attention(self, memory: Memory) -> SourceAttention:
        """The attention for ``memory`` as it was encoded to be read (``memory.reading``): lazily
        where :meth:`encode` read lazily (``memory.lazy``), else over every word state."""
        if memory.lazy is not None:
            return LazyCoarseToFine(self.attention, memory.reading)
        return EagerCoarseToFine(self.attention, memory.reading)
