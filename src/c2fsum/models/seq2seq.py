"""What every family (MODEL 0-3) shares, written once: one decoder step and the teacher-forced pass.

    encode (the family's)  ->  Memory (word states, chunk vectors, how to read: ``memory.reading``)
    step t:   x_t = emb(y_{t-1})  --Decoder.attend (the family's source attention)-->  f_t
              --Generator.logprobs-->  log p(y_t)                                        (B, V')
    forward:  every step of a target at once (Decoder.attend_steps) where the decoder has no input
              feeding, else one step at a time (Decoder.attend_loop); then the generator once

A family (:mod:`c2fsum.models.flat`, :mod:`c2fsum.models.coarse_to_fine`) builds its parts
(``source``, ``tgt_emb``, ``dec``, ``attention``, ``gen``: modules that own their parameters) in
``__init__``, and writes ``read`` (its source encoder) and ``source_attention`` (which attention
reads a memory): the rest is here.
"""

from __future__ import annotations

from typing import cast

import torch
from torch import Tensor, nn

from c2fsum.config import ModelConfig
from c2fsum.models.base import DEFAULT_READING, DecoderState, ForwardOutput, Memory, Reading, StepOutput, Summarizer
from c2fsum.models.parts.attention import SourceAttention
from c2fsum.models.parts.decoder import Decoder
from c2fsum.models.parts.generator import Generator
from c2fsum.models.parts.source import WordSource
from c2fsum.modules.kernels import FAST, Kernels


class Seq2Seq(Summarizer):
    """An attentional encoder-decoder: a family's ``encode`` and ``source_attention`` around the
    shared :class:`~c2fsum.models.parts.decoder.Decoder` (``dec``) and
    :class:`~c2fsum.models.parts.generator.Generator` (``gen``).

    ``kernels``: which speed paths to take (:mod:`c2fsum.modules.kernels`; ``PLAIN``: the plain
    twins, same results); set it on the model to change them.
    """

    # the parts a family builds, each owning its parameters (and the family's ``attention`` module)
    source: WordSource
    tgt_emb: nn.Embedding
    dec: Decoder
    gen: Generator

    RENAMED = {
        "generator.": "gen.vocab.",
        "switch.": "gen.switch.",
        "src_emb.": "source.emb.",
        "encoder.": "source.encoder.",
        "chunk_encoder.": "source.chunk_encoder.",
        "decoder.": "dec.lstm.",
        "combine.": "dec.combine.",
        "intra.": "dec.intra.",
    }
    """Parameter names of checkpoints written before the parts owned their parameters -> today's
    (prefixes)."""
    SAVED_ORDER: tuple[str, ...] = ()
    """The family's modules in the order of saved optimizer states (and of the draws that initialize
    them): that of the checkpoints written before the parts owned their parameters, kept so that
    they resume (:meth:`optimizer_parameters`)."""

    def settings(self, cfg: ModelConfig, vocab_size: int) -> None:
        """The sizes and switches every family keeps from its config (no modules)."""
        self.vocab_size = vocab_size
        self.hidden = cfg.hidden
        self.input_feed = cfg.input_feed
        self.output = cfg.output
        self.kernels: Kernels = FAST
        self.shares_src_tgt_emb = cfg.share_src_tgt_emb

    @classmethod
    def renamed(cls, weights: dict[str, Tensor]) -> dict[str, Tensor]:
        """``weights`` under today's names (:data:`RENAMED`): what older checkpoints load through."""
        out = {}
        for k, v in weights.items():
            old = next((o for o in cls.RENAMED if k.startswith(o)), None)
            out[k if old is None else cls.RENAMED[old] + k[len(old) :]] = v
        return out

    def optimizer_parameters(self) -> list[tuple[str, nn.Parameter]]:
        """``named_parameters()`` in :data:`SAVED_ORDER` (a module's own parameters in their order):
        the order an optimizer takes them in, so that the states saved by older runs resume."""
        rank = {name: i for i, name in enumerate(self.SAVED_ORDER)}
        named = list(self.named_parameters())
        unplaced = [n for n, _ in named if _module_of(n, rank) is None]
        if unplaced:
            raise AssertionError(f"{type(self).__name__}.SAVED_ORDER misses {unplaced[:3]}")
        return sorted(named, key=lambda np: rank[cast(str, _module_of(np[0], rank))])  # stable within a module

    @property
    def copies(self) -> bool:
        """Whether the model copies source words (pointer): ``capabilities.copies``."""
        return self.capabilities.copies

    def parallel_teacher_forcing(self) -> bool:
        """Whether teacher forcing runs every decoder step at once (:meth:`Decoder.attend_steps`):
        the ``Kernels.parallel_steps`` speed path, for a decoder without input feeding."""
        return self.kernels.parallel_steps and not self.input_feed

    def encode(
        self,
        src: Tensor,
        src_mask: Tensor,
        src_ext: Tensor | None = None,
        n_ext: int = 0,
        reading: Reading = DEFAULT_READING,
    ) -> Memory:
        """``src``, ``src_mask`` ``(B, M, N)`` -> :class:`Memory`: the family's :meth:`read` (as
        ``reading`` asks), then the keys its attention needs once per batch (``memory.cache``).
        A pointer model given no ``src_ext`` copies from ``src``."""
        src_ext = src if self.copies and src_ext is None else src_ext
        memory = self.read(src, src_mask, src_ext, n_ext, reading)
        # with gradients, step by step: the same values and keys, their gradients formed once per batch
        deferred = self.kernels.deferred_grads and torch.is_grad_enabled() and not self.parallel_teacher_forcing()
        memory.cache = self.source_attention(memory).prepare(memory, deferred=deferred)
        return memory

    def read(self, src: Tensor, src_mask: Tensor, src_ext: Tensor | None, n_ext: int, reading: Reading) -> Memory:
        """The family's source encoder: word states (and chunk vectors), and ``memory.reading``,
        ``reading`` as the family reads it."""
        raise NotImplementedError

    def source_attention(self, memory: Memory) -> SourceAttention:
        """The attention that reads ``memory`` (as it was encoded to be read)."""
        raise NotImplementedError

    def init_state(self, memory: Memory) -> DecoderState:
        return self.dec.init_state(memory)

    def step(self, memory: Memory, state: DecoderState, prev: Tensor) -> StepOutput:
        self.gen.prepare(memory, self.kernels, self.tgt_emb.weight)
        attention = self.source_attention(memory)
        o, state = self.dec.attend(attention, memory, state, self.tgt_emb(self.input_ids(prev)))  # (B, D)
        logprobs = self.gen.logprobs(o.features, self.tgt_emb.weight, o, memory)  # (B, V')
        return StepOutput(logprobs=logprobs, state=state, attn=o.attn, coarse=o.coarse)

    def teacher_forced(self, memory: Memory, tgt_in: Tensor, target: Tensor | None = None) -> ForwardOutput:
        """Teacher forcing (see :meth:`Summarizer.forward`): the decoder and attention every step at
        once where the model allows it (:meth:`parallel_teacher_forcing`), else step by step; then
        the generator once over all steps (:meth:`Generator.score`: given ``target`` ``(B, T)``, only
        its log-probability ``target_lp`` with the fused loss). Also the chunk attention ``coarse``,
        the hard choices' ``policy`` (MODEL 3 in training) and, read lazily, the share of words
        read (``fine_fraction``), where the family has them."""
        attention = self.source_attention(memory)
        state = self.dec.init_state(memory)
        emb = self.tgt_emb(self.input_ids(tgt_in))  # (B, T, E): one look-up, one gradient
        if self.parallel_teacher_forcing():
            tf = self.dec.attend_steps(attention, memory, state, emb)
        else:
            deferred = self.kernels.deferred_grads and torch.is_grad_enabled()
            tf = self.dec.attend_loop(attention, memory, state, emb, deferred=deferred)
        logprobs, target_lp = self.gen.score(tf, self.tgt_emb.weight, memory, target, fused=self.kernels.fused_loss)
        fine_fraction = memory.lazy.fraction_encoded() if memory.lazy is not None else None
        return ForwardOutput(
            logprobs, tf.attn, coarse=tf.coarse, policy=tf.policy, fine_fraction=fine_fraction, target_lp=target_lp
        )


def _module_of(name: str, modules: dict[str, int]) -> str | None:
    """The entry of ``modules`` (dotted module paths) that parameter ``name`` belongs to, or None."""
    parts = name.split(".")
    return next((p for p in (".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)) if p in modules), None)
