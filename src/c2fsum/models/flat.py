"""MODEL 0 (thesis section 3.2: the standard sequence-to-sequence model with attention) and
MODEL 1 (the same, its encoder reset at every chunk), with the components of Paulus et al.
(2017) as options.

    src grid (B, M, N) --emb--> (B, M, N, E) --flat LSTM (MODEL 1: per chunk)--> h_i (B, M, N, H)
    step t:  h_t = LSTM-stack([emb(y_{t-1}); c_{t-1}])                     (B, H)
             alpha = softmax_i(h_i^T W h_t) over real words                (B, M*N)  [temporal: Paulus eq. 3-4]
                     [coverage: + c_ti (h_t^T W w_c), c_t = sum_{j<t} alpha_j, See et al. 2017 eq. 10-11]
             c~ = sum_i alpha_i h_i                                        (B, H)
             f_t, p(y_t): :mod:`c2fsum.models.seq2seq`
             [share_src_tgt_emb: one W_emb for the source and the target words, Paulus 2.4]

This file, top to bottom: the source attention (:class:`FlatAttention`, over
:class:`~c2fsum.modules.attention.BilinearAttention`) and the family (:class:`Flat`: its modules and
how it reads a batch, :class:`~c2fsum.models.parts.source.WordSource`). The step and the
teacher-forced pass are every family's (:class:`~c2fsum.models.seq2seq.Seq2Seq`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import cast

from torch import Tensor

from c2fsum.config import ModelConfig
from c2fsum.models.base import BatchFields, Capabilities, Memory, Reading
from c2fsum.models.parts import init_uniform
from c2fsum.models.parts.attention import SourceAttention
from c2fsum.models.parts.source import WordSource, source_layers
from c2fsum.models.seq2seq import Decoder, Generator, Seq2Seq, decoder_lstm, output_layers
from c2fsum.modules.attention import Attention, BilinearAttention, Context
from c2fsum.modules.deferred import StepMatrix


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
        return Context(ctx=ctx, attention=Attention(attn), past=past, coverage=coverage)

    def attend_steps(self, top: Tensor, memory: Memory) -> Context:
        cache = cast(FlatCache, memory.cache)
        ctx, alpha = self.module.forward_steps(top, memory.words.flatten(1, 2), cache.keys_t, cache.mask)
        return Context(ctx=ctx, attention=Attention(alpha.view(*top.shape[:2], *memory.word_mask.shape[1:])))


class Flat(Seq2Seq):
    """Flat (``model0``) or per-chunk (``model1``) LSTM encoder, bilinear attention over every word."""

    attention: BilinearAttention

    SAVED_ORDER = (
        *("source.emb", "tgt_emb", "source.encoder", "dec.lstm", "attention"),
        *("dec.combine", "dec.intra", "gen"),
    )

    def __init__(self, cfg: ModelConfig, vocab_size: int, max_chunks: int = 10):
        """``max_chunks`` is unused here (one signature for every family: :func:`c2fsum.models.build_model`)."""
        super().__init__()
        self.settings(cfg, vocab_size)
        self.capabilities = Capabilities(copies=cfg.pointer, memory_per_document=not cfg.pointer)
        # the modules, drawn and initialized in this order (the weights of every seeded run)
        per_chunk = cfg.family == "model1"
        src_emb, tgt_emb, encoder = source_layers(cfg, vocab_size, self.pad_id, per_chunk=per_chunk)
        lstm = decoder_lstm(cfg)
        attention = BilinearAttention(
            query_dim=cfg.hidden, key_dim=cfg.hidden, temporal=cfg.temporal, coverage=cfg.coverage
        )
        combine, intra = output_layers(cfg)
        gen = Generator(cfg, vocab_size)
        init_uniform([src_emb, tgt_emb, encoder, lstm, attention, combine, intra, gen], cfg.init_range)
        # the parts, each owning its parameters
        self.source = WordSource(src_emb, encoder)
        self.tgt_emb = tgt_emb
        self.dec = Decoder(cfg, lstm, combine, intra)
        self.attention = attention
        self.gen = gen
        self.flat_attention = FlatAttention(self.attention)

    def source_attention(self, memory: Memory) -> SourceAttention:
        """Bilinear attention over every word state, whatever the memory."""
        return self.flat_attention

    def parallel_teacher_forcing(self) -> bool:
        """Whether teacher forcing runs every decoder step at once (:meth:`Decoder.attend_steps`):
        the ``Kernels.parallel_steps`` speed path, for a decoder without input feeding or coverage
        (whose step t reads the attention of the steps before)."""
        return super().parallel_teacher_forcing() and self.attention.coverage_w is None

    def read(self, src: Tensor, src_mask: Tensor, src_ext: Tensor | None, n_ext: int, reading: Reading) -> Memory:
        """Word states ``(B, M, N, H)`` of every word, whatever ``reading`` asks."""
        memory = self.source.read(src, src_mask, src_ext, n_ext, skip_packing=self.kernels.skip_packing)
        memory.reading = replace(reading, lazy=False, sparse=False)  # eagerly, every word
        return memory
