"""MODEL 2 (hierarchical soft attention) and MODEL 3 (hard coarse attention), thesis ch. 4.

    src grid (B, M, N) --emb--> (B, M, N, E)
        --per-chunk LSTM (state reset at chunk boundaries)--> word states h_ij (B, M, N, H)
        --chunk encoder (CNN or BOW, +POS)------------------> chunk vectors h^s_i (B, M, Hc)
    step t:  h_t = LSTM-stack([emb(y_{t-1}); c_{t-1}])
             alpha^s = softmax_i(h^s_i^T W_s h_t)                          coarse (B, M)
             MODEL 2: weights = alpha^s
             MODEL 3: weights = one-hot sample of alpha^s (training) / argmax (test)
             alpha_ij = weights_i * softmax_j(h_ij^T W_w h_t)               fine   (B, M, N)
             c~ = sum_ij alpha_ij h_ij;  f_t, p(y_t) as MODEL 0's (:mod:`c2fsum.models.parts.decoder`)

Lazy fine encoding (MODEL 3): at test time (and in training with ``lazy_fine``) the word-level
LSTM runs only over the chunks the hard coarse attention picks, once per document
(:meth:`ChunkSource.read_lazily`, :class:`LazyCoarseToFine`). Encode with
``Reading(lazy=False)`` to take the eager path (it gives the same outputs).

The step and the teacher-forced pass are every family's (:class:`~c2fsum.models.seq2seq.Seq2Seq`).
"""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import Tensor

from c2fsum.config import ModelConfig
from c2fsum.models.base import Capabilities, Memory, Reading
from c2fsum.models.parts import init_uniform
from c2fsum.models.parts.attention import EagerCoarseToFine, LazyCoarseToFine, SourceAttention
from c2fsum.models.parts.decoder import Decoder, decoder_lstm, output_layers
from c2fsum.models.parts.generator import Generator
from c2fsum.models.parts.source import ChunkSource, source_layers
from c2fsum.models.seq2seq import Seq2Seq
from c2fsum.modules.chunk_encoders import ChunkEncoder
from c2fsum.modules.hierarchical import CoarseToFineAttention


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
