"""What every family (MODEL 0-3) shares, written once, top to bottom: the decoder, the generator,
and the model around them (one decoder step, the teacher-forced pass).

    encode (the family's)  ->  Memory (word states, chunk vectors, how to read: ``memory.reading``)
    step t:  x_t = [emb(y_{t-1}); c_{t-1}]                   (input feeding; Paulus: emb(y_{t-1}))
             h_t = LSTM-stack(x_t, h_{t-1})                  (B, H)
             c~, alpha = source attention(h_t)               (B, H), (B, M, N)   (the family's)
             luong:  c_t = tanh(W2 [c~; h_t]),  f_t = c_t    (thesis eq. 3.5; c_t is fed back)
             paulus: f_t = [h_t; c~]                          (Paulus eq. 9; c~ is fed back)
             [intra-decoder: c^d_t = attention over h_1..h_{t-1}, appended to f_t]
             p(y_t) = softmax(W_out dropout(f_t) + b)        (B, V)
                      [shared: W_out = tanh(W_emb W_proj), Paulus eq. 13; linear: W_emb W_proj]
                      [pointer: p(u_t = 1) = sigmoid(W_u [h_t; c~; c^d_t]) (Paulus eq. 10) copying
                       alpha over V' = V + document words (Paulus eq. 12)]

:class:`Decoder` runs three ways with the same results (a :class:`DecoderOutput`): :meth:`Decoder.attend`
one step (decoding, and teacher forcing with input feeding, :meth:`Decoder.attend_loop`), and
:meth:`Decoder.attend_steps` every step at once (teacher forcing without input feeding: nothing of
step t depends on step t-1's attention); it starts from the encoder's final state when both have
L layers. :class:`Generator` turns features into log-probabilities and the training loss.

A family (:mod:`c2fsum.models.flat`, :mod:`c2fsum.models.coarse_to_fine`) builds its parts
(``source``, ``tgt_emb``, ``dec``, ``attention``, ``gen``: modules that own their parameters) in
``__init__``, and writes ``read`` (its source encoder) and ``source_attention`` (which attention
reads a memory): the rest is here (:class:`Seq2Seq`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import torch
from torch import Tensor, nn

from c2fsum.config import ModelConfig
from c2fsum.models.base import (
    BatchFields,
    DecoderState,
    ForwardOutput,
    Memory,
    Reading,
    StepOutput,
    Summarizer,
)
from c2fsum.models.parts.attention import SourceAttention
from c2fsum.models.parts.source import WordSource
from c2fsum.modules.attention import Attention, stack_steps
from c2fsum.modules.decoder import DecoderSteps, InputFeedingLSTM
from c2fsum.modules.generators import (
    VocabGenerator,
    pointer_mixture,
    pointer_mixture_sparse,
    pointer_target_logprob,
)
from c2fsum.modules.intra import IntraDecoderAttention
from c2fsum.modules.kernels import FAST, Kernels, pack_linear_weight

# ------------------------------------------------------------------------------------ decoder
OUTPUT_STYLES = ("luong", "paulus")


@dataclass
class StepHistory(BatchFields):
    """``DecoderState.extra`` of MODEL 0-3: what attention remembers of the steps so far."""

    past: Tensor | None = None
    """``(B, S)`` intra-temporal attention's log sum_{j<t} exp(e_ji) (Paulus eq. 3), or None."""
    states: Tensor | None = None
    """``(B, t, H)`` the decoder's past top outputs, read by intra-decoder attention, or None."""
    coverage: Tensor | None = None
    """``(B, S)`` coverage, the source attention summed over the steps so far (See et al. 2017), or None."""


@dataclass
class DecoderOutput:
    """What the decoder gives the generator, for every step of a teacher-forced pass (a T
    dimension after B) or for one step (:meth:`Decoder.attend`, without it)."""

    features: Tensor
    """``(B, [T,] D)`` generator features f_t."""
    attention: Attention
    """Where the source attention read, as it returned it: word attention ``(B, [T,] M, N)``,
    chunk attention ``(B, [T,] M)`` and policy ``(B, [T])`` where they exist."""
    copy_in: Tensor | None = None
    """``(B, [T,] 2H or 3H)`` [h_t; c~; c^d_t], what the pointer switch reads (Paulus eq. 10), of
    copying models, else None."""


def decoder_lstm(cfg: ModelConfig) -> InputFeedingLSTM:
    """The decoder's LSTM stack; its input is ``[emb(y_{t-1}); c_{t-1}]`` with input feeding."""
    return InputFeedingLSTM(
        input_dim=cfg.emb_dim + (cfg.hidden if cfg.input_feed else 0),
        hidden=cfg.hidden,
        layers=cfg.dec_layers,
        dropout=cfg.dropout,
    )


def output_layers(cfg: ModelConfig) -> tuple[nn.Linear | None, IntraDecoderAttention | None]:
    """W2 of the luong output (None: paulus) and the intra-decoder attention (None: off)."""
    if cfg.output not in OUTPUT_STYLES:
        raise ValueError(f"model.output: got {cfg.output!r}, expected one of {OUTPUT_STYLES}")
    combine = nn.Linear(2 * cfg.hidden, cfg.hidden, bias=False) if cfg.output == "luong" else None
    return combine, IntraDecoderAttention(hidden=cfg.hidden) if cfg.intra_decoder else None


def features_dim(cfg: ModelConfig) -> int:
    """D, the size of the generator features f_t."""
    return (cfg.hidden if cfg.output == "luong" else 2 * cfg.hidden) + (cfg.hidden if cfg.intra_decoder else 0)


class Decoder(nn.Module):
    """The decoder LSTM stack (``lstm``), W2 of the luong output (``combine``) and the
    intra-decoder attention (``intra``), run around a :class:`SourceAttention` (the family's)."""

    def __init__(
        self, cfg: ModelConfig, lstm: InputFeedingLSTM, combine: nn.Linear | None, intra: IntraDecoderAttention | None
    ):
        """The modules of :func:`decoder_lstm` and :func:`output_layers`. It starts from the encoder's
        final state where encoder and decoder have L layers (``bridge``), and gives the pointer
        switch its input (``DecoderOutput.copy_in``) in a copying model (``copies``)."""
        super().__init__()
        self.lstm, self.combine, self.intra = lstm, combine, intra
        self.input_feed = cfg.input_feed
        self.bridge = cfg.enc_layers == cfg.dec_layers
        self.copies = cfg.pointer

    def init_state(self, memory: Memory) -> DecoderState:
        """The state before the first step: ``h``, ``c`` ``(L, B, H)``, ``feed`` ``(B, H)`` zero."""
        B, L, H = memory.words.size(0), self.lstm.layers, self.lstm.hidden
        if self.bridge and memory.final is not None:
            h = memory.final[0].transpose(0, 1).contiguous()  # (L, B, H)
            c = memory.final[1].transpose(0, 1).contiguous()
        else:
            h = memory.words.new_zeros(L, B, H)
            c = memory.words.new_zeros(L, B, H)
        return DecoderState(h=h, c=c, feed=memory.words.new_zeros(B, H), extra=StepHistory())

    def features(self, top: Tensor, ctx: Tensor, c_dec: Tensor | None) -> tuple[Tensor, Tensor, Tensor | None]:
        """Decoder outputs ``top``, contexts ``ctx``, intra-decoder contexts ``c_dec`` ``(..., H)`` ->
        generator features f_t ``(..., D)``, what is fed back ``(..., H)`` and the pointer switch's
        input ``(..., 2H or 3H)`` (copying models, else None)."""
        if self.combine is not None:  # luong: c_t = tanh(W2 [c~; h_t])
            out = torch.tanh(self.combine(torch.cat([ctx, top], -1)))
            parts, feed = [out], out
        else:  # paulus: [h_t; c~]
            parts, feed = [top, ctx], ctx
        if c_dec is not None:
            parts.append(c_dec)
        copy_in = None
        if self.copies:  # Paulus eq. 10 reads [h_t; c~; c^d_t]
            copy_in = torch.cat([top, ctx] if c_dec is None else [top, ctx, c_dec], -1)
        return (torch.cat(parts, -1) if len(parts) > 1 else parts[0]), feed, copy_in

    def attend(
        self,
        attention: SourceAttention,
        memory: Memory,
        state: DecoderState,
        emb: Tensor,
        fast: tuple[DecoderSteps, int] | None = None,
    ) -> tuple[DecoderOutput, DecoderState]:
        """One step, before the generator, and the state after it: ``emb`` ``(B, E)`` the previous
        word's embedding.
        ``fast`` = (the LSTM's :class:`DecoderSteps` of this batch, t): the same cell on the
        teacher-forcing speed path (``Kernels.deferred_grads``; ``emb`` is then in it already)."""
        feed = state.feed if self.input_feed else None
        if fast is not None:
            top, h, c = self.lstm.step(fast[0], fast[1], feed, state.h, state.c)  # (B, H)
        else:
            top, h, c = self.lstm(emb if feed is None else torch.cat([emb, feed], -1), state.h, state.c)
        history = cast(StepHistory, state.extra)
        src = attention.attend(top, memory, history.past, history.coverage)
        c_dec, states = None, history.states
        if self.intra is not None:
            c_dec, _ = self.intra(top, states)  # (B, H), zero at t = 1
            states = top.unsqueeze(1) if states is None else torch.cat([states, top.unsqueeze(1)], 1)
        features, feed, copy_in = self.features(top, src.ctx, c_dec)
        out = DecoderOutput(features=features, attention=src.attention, copy_in=copy_in)
        return out, DecoderState(
            h=h, c=c, feed=feed, extra=StepHistory(past=src.past, states=states, coverage=src.coverage)
        )

    def attend_steps(
        self, attention: SourceAttention, memory: Memory, state: DecoderState, emb: Tensor
    ) -> DecoderOutput:
        """Teacher forcing without input feeding, every step at once: the LSTM over the target
        embeddings ``emb`` ``(B, T, E)`` in one call, then the attentions, features and pointer
        switch inputs of all steps (what :meth:`attend_loop` computes one step at a time)."""
        top, _, _ = self.lstm.run_steps(emb, state.h, state.c)  # (B, T, H)
        src = attention.attend_steps(top, memory)  # ctx (B, T, H), attn (B, T, M, N)
        c_dec = None if self.intra is None else self.intra.forward_steps(top)  # (B, T, H), zero at t = 1
        features, _, copy_in = self.features(top, src.ctx, c_dec)  # (B, T, D), (B, T, 2H or 3H)
        return DecoderOutput(features=features, attention=src.attention, copy_in=copy_in)

    def attend_loop(
        self, attention: SourceAttention, memory: Memory, state: DecoderState, emb: Tensor, *, deferred: bool
    ) -> DecoderOutput:
        """Teacher forcing one step at a time (:meth:`attend`): the path of a decoder with input
        feeding, and the plain twin of :meth:`attend_steps`. ``emb`` ``(B, T, E)``; ``deferred``: the
        LSTM's embedding share for all steps at once, weight gradients once per batch."""
        steps = self.lstm.prepare_steps(emb) if deferred else None
        outs: list[DecoderOutput] = []
        for t in range(emb.size(1)):
            o, state = self.attend(attention, memory, state, emb[:, t], fast=None if steps is None else (steps, t))
            outs.append(o)
        return DecoderOutput(
            features=torch.stack([o.features for o in outs], 1),  # (B, T, D)
            attention=Attention.stack([o.attention for o in outs]),  # attn (B, T, M, N), coarse (B, T, M)
            copy_in=stack_steps([o.copy_in for o in outs]),  # (B, T, 2H or 3H)
        )


# ---------------------------------------------------------------------------------- generator
@dataclass
class OutputWeights:
    """``Memory.shared`` of MODEL 0-3: the generator's output matrix, once per batch for decoding."""

    weight: Tensor | None
    """W_out = tanh(W_emb W_proj) ``(V, D)`` of a shared-weight generator, else None (the generator's own)."""
    packed: Tensor | None
    """W_out packed for oneDNN (:func:`c2fsum.modules.kernels.pack_linear_weight`), or None."""


def _same_key(a: tuple, b: tuple) -> bool:
    """Two :meth:`Generator._weights_key` keys name the same tensors (by identity) in the same state."""
    return (
        len(a) == len(b)
        and a[0] == b[0]
        and all(x[0] is y[0] and x[1:] == y[1:] for x, y in zip(a[1:], b[1:], strict=True))
    )


class Generator(nn.Module):
    """Features f_t -> log p(y_t): owns the vocabulary layer W_out (``vocab``), the dropout before
    it, and, for a pointer model, the switch W_u (``switch``, Paulus eq. 10) that mixes in copying.

    A shared-weight generator (Paulus eq. 13) reads the target embedding W_emb, which the model
    owns: it comes as an argument (``emb`` ``(V, E)``) to the methods that need it."""

    def __init__(self, cfg: ModelConfig, vocab_size: int):
        super().__init__()
        self.dropout = nn.Dropout(cfg.dropout)
        self.vocab = VocabGenerator(
            in_dim=features_dim(cfg),
            vocab_size=vocab_size,
            shared_dim=cfg.emb_dim if cfg.share_embeddings else 0,
            shared_output=cfg.shared_output,
        )
        self.switch = nn.Linear(3 * cfg.hidden if cfg.intra_decoder else 2 * cfg.hidden, 1) if cfg.pointer else None
        self.copies = cfg.pointer
        self.vocab_size = vocab_size  # V
        self._kept: tuple[tuple, OutputWeights] | None = None
        """The last :class:`OutputWeights` made in eval mode without gradients, and what it was
        made from (:meth:`_weights_key`): decoding batch after batch reuses it."""

    def train(self, mode: bool = True) -> Generator:
        if mode:  # training changes the weights: keep no copy of them
            self._kept = None
        return super().train(mode)

    def _weights_key(self, kernels: Kernels, emb: Tensor) -> tuple:
        """What :class:`OutputWeights` are made from: each tensor itself (held, so its address and
        ``id`` cannot be reused while the key lives), its version (bumped by every in-place change:
        an optimizer step, ``load_state_dict``), its storage, dtype and device; and the kernels."""
        tensors = (emb, self.vocab.proj) if self.vocab.shared else (self.vocab.weight,)  # the bias is not packed
        return (kernels.packed_generator, *((t, t._version, t.data_ptr(), t.dtype, t.device) for t in tensors))

    def prepare(self, memory: Memory, kernels: Kernels, emb: Tensor) -> Memory:
        """Once per batch for step-by-step decoding: ``memory.shared`` = :class:`OutputWeights`
        (packed for oneDNN with ``Kernels.packed_generator``, where that applies). In eval mode
        without gradients they are made once and reused by the next batches while the weights
        stay the same: packing costs about one step's product (issue 51)."""
        if memory.shared is not None:
            return memory
        keep = not self.training and not torch.is_grad_enabled()
        key = self._weights_key(kernels, emb) if keep else None
        if key is not None and self._kept is not None and _same_key(self._kept[0], key):
            memory.shared = self._kept[1]
            return memory
        weight = self.vocab.output_matrix(emb) if self.vocab.shared else None
        packed = None
        if kernels.packed_generator:
            packed = pack_linear_weight(weight if weight is not None else self.vocab.output_matrix())
        memory.shared = OutputWeights(weight=weight, packed=packed)
        if key is not None:
            self._kept = (key, memory.shared)
        return memory

    def logits(self, features: Tensor, emb: Tensor, memory: Memory | None = None) -> Tensor:
        """Features ``(..., D)`` -> vocabulary logits ``(..., V)`` (dropout on the features)."""
        shared = cast(OutputWeights, memory.shared) if memory is not None and memory.shared else None
        weight, packed = (shared.weight, shared.packed) if shared is not None else (None, None)
        return self.vocab(self.dropout(features), self._shared(emb), weight, packed)

    def _shared(self, emb: Tensor) -> Tensor | None:
        """W_emb ``(V, E)`` for a shared-weight generator, else None."""
        return emb if self.vocab.shared else None

    def p_copy(self, copy_in: Tensor | None) -> Tensor | None:
        """p(u_t = 1) ``(B, [T,] 1)`` = sigmoid(W_u [h_t; c~; c^d_t]) (Paulus eq. 10) of a copying
        model from ``copy_in`` (:attr:`DecoderOutput.copy_in`), else None."""
        if self.switch is None or copy_in is None:
            return None
        return torch.sigmoid(self.switch(copy_in))

    def logprobs(
        self, features: Tensor, emb: Tensor, out: DecoderOutput | None = None, memory: Memory | None = None
    ) -> Tensor:
        """Features ``(B, D)`` or ``(B, T, D)`` -> log-probabilities over V (or V' when copying).

        A pointer model needs the decoder's ``out`` (word attention ``out.attention.attn``
        ``(B[, T], M, N)``, ``copy_in``) and ``memory``.
        """
        logits = self.logits(features, emb, memory)
        if logits.dtype == torch.float32 and not logits.requires_grad:  # decoding: in place, no second (B, V)
            logp = torch.log_softmax(logits, dim=-1, out=logits)
        else:
            logp = torch.log_softmax(logits, dim=-1)
        if not self.copies:
            return logp
        assert out is not None and memory is not None and memory.src_ext is not None
        attn, p_copy = out.attention.attn, self.p_copy(out.copy_in)
        assert p_copy is not None  # a copying model's decoder gives copy_in
        B = logp.size(0)
        if attn.is_sparse:  # lazy MODEL 3 decoding: (B, M, N) holding the chosen chunks only
            return pointer_mixture_sparse(logp, p_copy, attn, memory.src_ext, memory.n_ext)
        if logp.dim() == 2:
            return pointer_mixture(logp, p_copy, attn.reshape(B, -1), memory.src_ext.reshape(B, -1), memory.n_ext)
        T = logp.size(1)
        src_ext = memory.src_ext.reshape(B, 1, -1).expand(B, T, -1).reshape(B * T, -1)
        mixed = pointer_mixture(
            logp.reshape(B * T, -1), p_copy.reshape(B * T, 1), attn.reshape(B * T, -1), src_ext, memory.n_ext
        )
        return mixed.view(B, T, -1)

    def score(
        self, tf: DecoderOutput, emb: Tensor, memory: Memory, target: Tensor | None, *, fused: bool
    ) -> tuple[Tensor | None, Tensor | None]:
        """The generator over every teacher-forced step at once: ``(logprobs (B, T, V'), target_lp
        (B, T))``. Given ``target`` ``(B, T)``, a model that does not copy returns only ``target_lp``
        (logprobs None): :meth:`VocabGenerator.log_prob`, with ``fused`` (``Kernels.fused_loss``) no
        vocabulary-sized tensor besides the logits, which never leave it; so does a pointer model
        with ``fused``, adding the target's copy term (:func:`pointer_target_logprob`)."""
        if target is not None and not self.copies:
            return None, self.vocab.log_prob(self.dropout(tf.features), target, self._shared(emb), fused=fused)
        if target is not None and fused:  # a pointer model's loss, its target alone
            V = self.vocab_size
            p_copy = self.p_copy(tf.copy_in)  # (B, T, 1)
            assert p_copy is not None and memory.src_ext is not None  # a copying model has both
            vocab_lp = self.vocab.log_prob(self.dropout(tf.features), target.clamp(max=V - 1), self._shared(emb))
            B, T = target.shape
            attn = tf.attention.attn.reshape(B, T, -1)  # (B, T, M*N)
            src_ext = memory.src_ext.reshape(B, 1, -1)  # (B, 1, M*N)
            copied_lp = pointer_target_logprob(vocab_lp, p_copy.squeeze(-1), attn, src_ext, target, V)  # (B, T)
            return None, copied_lp
        logprobs = self.logprobs(tf.features, emb, tf, memory)
        target_lp = None if target is None else logprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        return logprobs, target_lp


# ------------------------------------------------------------------------------------- model
class Seq2Seq(Summarizer):
    """An attentional encoder-decoder: a family's ``encode`` and ``source_attention`` around the
    shared :class:`Decoder` (``dec``) and :class:`Generator` (``gen``).

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
    they resume (:meth:`optimizer_parameters`); a module left out is an error there."""

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
        the order an optimizer takes them in, so that the states saved by older runs resume. A
        family with no older runs declares none (``named_parameters()`` order)."""
        if not self.SAVED_ORDER:
            return super().optimizer_parameters()
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

    def _encode(self, src: Tensor, src_mask: Tensor, src_ext: Tensor | None, n_ext: int, reading: Reading) -> Memory:
        """``src``, ``src_mask`` ``(B, M, N)`` -> :class:`Memory` (:meth:`Summarizer.encode`): the
        family's :meth:`read` (as ``reading`` asks), then the keys its attention needs once per batch
        (``memory.cache``)."""
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
        return StepOutput(logprobs=logprobs, state=state, attention=o.attention)

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
        return ForwardOutput(logprobs, tf.attention, fine_fraction=fine_fraction, target_lp=target_lp)


def _module_of(name: str, modules: dict[str, int]) -> str | None:
    """The entry of ``modules`` (dotted module paths) that parameter ``name`` belongs to, or None."""
    parts = name.split(".")
    return next((p for p in (".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)) if p in modules), None)
