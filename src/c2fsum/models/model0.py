"""MODEL 0: the standard sequence-to-sequence model with attention (thesis section 3.2),
with the components of Paulus et al. (2017) as options.

    src grid (B, M, N) --emb--> (B, M, N, E) --flat LSTM (or per chunk: MODEL 1)--> h_i (B, M, N, H)
    step t:  x_t = [emb(y_{t-1}); c_{t-1}]                          (input feeding; Paulus: emb(y_{t-1}))
             h_t = LSTM-stack(x_t, h_{t-1})                         (B, H)
             alpha = softmax_i(h_i^T W h_t) over real words         (B, M*N)   [temporal: Paulus eq. 3-4]
             c~ = sum_i alpha_i h_i                                 (B, H)
             luong:  c_t = tanh(W2 [c~; h_t]),  f_t = c_t           (thesis eq. 3.5)
             paulus: f_t = [h_t; c~; c^d_t]                          (Paulus eq. 9)
             [intra-decoder: c^d_t = attention over h_1..h_{t-1}; luong appends it to f_t]
             p(y_t) = softmax(W_out dropout(f_t) + b)               (B, V)     [shared: W_out = tanh(W_emb W_proj)]
             [share_src_tgt_emb: one W_emb for the source and the target words, Paulus 2.4]
             [pointer: mix with copying alpha over V' = V + document words, Paulus eq. 12]

The decoder starts from the encoder's final state when both have L layers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import torch
from torch import Tensor, nn

from c2fsum.models.base import (
    BatchFields,
    Capabilities,
    DecoderState,
    ForwardOutput,
    Memory,
    StepOutput,
    Summarizer,
)
from c2fsum.models.chunk_cache import ChunkCache
from c2fsum.modules.attention import BilinearAttention
from c2fsum.modules.decoder import DecoderSteps, InputFeedingLSTM
from c2fsum.modules.deferred import StepMatrix
from c2fsum.modules.embeddings import make_embedding
from c2fsum.modules.encoders import LSTMWordEncoder
from c2fsum.modules.generators import (
    VocabGenerator,
    pointer_mixture,
    pointer_mixture_sparse,
    pointer_target_logprob,
)
from c2fsum.modules.intra import IntraDecoderAttention
from c2fsum.modules.kernels import FAST, Kernels, pack_linear_weight

OUTPUT_STYLES = ("luong", "paulus")


@dataclass
class FlatCache(BatchFields):
    """``Memory.cache`` of MODEL 0/1: attention keys and mask, once per batch."""

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
class StepHistory(BatchFields):
    """``DecoderState.extra`` of MODEL 0-3: what attention remembers of the steps so far."""

    past: Tensor | None = None
    """``(B, S)`` intra-temporal attention's log sum_{j<t} exp(e_ji) (Paulus eq. 3), or None."""
    states: Tensor | None = None
    """``(B, t, H)`` the decoder's past top outputs, read by intra-decoder attention, or None."""


@dataclass
class OutputWeights:
    """``Memory.shared`` of MODEL 0-3: the generator's output matrix, once per batch for decoding."""

    weight: Tensor | None
    """W_out = tanh(W_emb W_proj) ``(V, D)`` of a shared-weight generator, else None (the generator's own)."""
    packed: Tensor | None
    """W_out packed for oneDNN (:func:`c2fsum.modules.kernels.pack_linear_weight`), or None."""


@dataclass
class SourceAttention:
    """What :meth:`Model0.attend_source` returns for one step."""

    ctx: Tensor
    """``(B, H)`` the context c~."""
    attn: Tensor
    """``(B, M, N)`` word attention (sparse COO on the lazy hard path)."""
    coarse: Tensor | None = None
    """``(B, M)`` chunk attention of hierarchical models, else None."""
    policy: Tensor | None = None
    """``(B,)`` log-probability of the hard chunk choice (MODEL 3 in training), else None."""
    past: Tensor | None = None
    """``(B, S)`` the new intra-temporal state, or None."""


@dataclass
class AttendOutput:
    """What :meth:`Model0.attend` returns for one step: everything before the generator."""

    features: Tensor
    """``(B, D)`` generator features f_t."""
    state: DecoderState
    attn: Tensor
    """``(B, M, N)`` word attention."""
    coarse: Tensor | None = None
    """``(B, M)`` chunk attention of hierarchical models, else None."""
    policy: Tensor | None = None
    """``(B,)`` log-probability of the hard chunk choice, else None."""
    p_copy: Tensor | None = None
    """``(B, 1)`` the pointer switch p(u_t = 1) (Paulus eq. 10) of copying models, else None."""


@dataclass
class TeacherForced:
    """Every step of a teacher-forced pass, before the generator (:meth:`Model0.attend_steps`
    or the step loop :meth:`Model0.attend_loop`)."""

    features: Tensor
    """``(B, T, D)`` generator features f_t."""
    attn: Tensor
    """``(B, T, M, N)`` word attention."""
    coarse: Tensor | None = None
    """``(B, T, M)`` chunk attention of hierarchical models, else None."""
    policy: Tensor | None = None
    """``(B, T)`` log-probability of the hard chunk choices, else None."""
    p_copy: Tensor | None = None
    """``(B, T, 1)`` the pointer switch of copying models, else None."""


class Model0(Summarizer):
    """Flat (or per-chunk) LSTM encoder, input-feeding LSTM decoder, bilinear attention, generator."""

    attention: nn.Module

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
        per_chunk: bool = False,
        bidirectional: bool = False,
        temporal: bool = False,
        intra_decoder: bool = False,
        pointer: bool = False,
        share_embeddings: bool = False,
        shared_output: str = "tanh",
        share_src_tgt_emb: bool = False,
        output: str = "luong",
        kernels: Kernels = FAST,
    ):
        """``share_embeddings``: W_out = tanh(W_emb W_proj) (Paulus eq. 13; ``shared_output="linear"``:
        W_emb W_proj, :class:`VocabGenerator`); ``share_src_tgt_emb``:
        the encoder and the decoder read words through one embedding (Paulus section 2.4),
        ``tgt_emb`` is then ``src_emb``; ``input_feed``: the decoder's input is
        ``[emb(y_{t-1}); c_{t-1}]`` (True) or ``emb(y_{t-1})`` alone (Paulus section 2).
        ``kernels``: which speed paths to take (:mod:`c2fsum.modules.kernels`; ``PLAIN``: the
        plain twins, same results)."""
        super().__init__()
        if output not in OUTPUT_STYLES:
            raise ValueError(f"model.output: got {output!r}, expected one of {OUTPUT_STYLES}")
        self.vocab_size = vocab_size
        self.hidden = hidden
        self.input_feed = input_feed
        self.output = output
        self.kernels = kernels
        self.capabilities = Capabilities(copies=pointer, memory_per_document=not pointer)
        self.src_emb = make_embedding(vocab_size, emb_dim, self.pad_id)
        self.shares_src_tgt_emb = share_src_tgt_emb
        self.tgt_emb = self.src_emb if share_src_tgt_emb else make_embedding(vocab_size, emb_dim, self.pad_id)
        self.encoder = LSTMWordEncoder(
            emb_dim=emb_dim,
            hidden=hidden,
            layers=enc_layers,
            dropout=dropout,
            per_chunk=per_chunk,
            bidirectional=bidirectional,
        )
        self.decoder = InputFeedingLSTM(
            input_dim=emb_dim + (hidden if input_feed else 0), hidden=hidden, layers=dec_layers, dropout=dropout
        )
        attention = self.make_attention(hidden=hidden, temporal=temporal)
        if attention is not None:
            self.attention = attention
        self.combine = nn.Linear(2 * hidden, hidden, bias=False) if output == "luong" else None  # W2
        self.intra = IntraDecoderAttention(hidden=hidden) if intra_decoder else None
        feat = hidden if output == "luong" else 2 * hidden
        feat += hidden if intra_decoder else 0
        self.dropout = nn.Dropout(dropout)
        self.generator = VocabGenerator(
            in_dim=feat,
            vocab_size=vocab_size,
            shared_dim=emb_dim if share_embeddings else 0,
            shared_output=shared_output,
        )
        self.switch = nn.Linear(3 * hidden if intra_decoder else 2 * hidden, 1) if pointer else None  # W_u
        self.bridge = enc_layers == dec_layers
        self.reset_parameters(init_range)

    def make_attention(self, *, hidden: int, temporal: bool) -> nn.Module | None:
        """The attention over the source, registered between the decoder and the output layers
        (the parameter order, which saved optimizer state follows). A subclass whose attention
        needs modules built after this class's returns None and registers its own."""
        return BilinearAttention(query_dim=hidden, key_dim=hidden, temporal=temporal)

    @property
    def copies(self) -> bool:
        """Whether the model copies source words (pointer): ``capabilities.copies``."""
        return self.capabilities.copies

    def reset_parameters(self, init_range: float) -> None:
        """Uniform initialization in [-init_range, init_range] (thesis section 5.2)."""
        for p in self.parameters():
            if p.requires_grad:
                nn.init.uniform_(p, -init_range, init_range)
        with torch.no_grad():
            self.src_emb.weight[self.pad_id].zero_()
            self.tgt_emb.weight[self.pad_id].zero_()

    # -- encoder ---------------------------------------------------------------------------
    def encode(self, src: Tensor, src_mask: Tensor, src_ext: Tensor | None = None, n_ext: int = 0) -> Memory:
        """``src``, ``src_mask`` ``(B, M, N)`` -> :class:`Memory` with words ``(B, M, N, H)``."""
        if self.copies and src_ext is None:
            src_ext = src
        emb = self.src_emb(src)  # (B, M, N, E), 0 on pad
        words, (h, c) = self.encoder(emb, src_mask, skip_packing=self.kernels.skip_packing)  # (B, M, N, H)
        values, keys_t = BilinearAttention.prepare(words)  # (B, S, H), (B, H, S)
        # with gradients: the same values and keys whose gradients are formed once per batch
        deferred = self.kernels.deferred_grads and torch.is_grad_enabled() and not self.parallel_teacher_forcing()
        steps = BilinearAttention.prepare_steps(values, keys_t) if deferred else None
        return Memory(
            words=words,
            word_mask=src_mask,
            chunk_mask=src_mask.any(-1),
            src_ext=src_ext,
            n_ext=n_ext,
            final=(h.transpose(0, 1), c.transpose(0, 1)),
            cache=FlatCache(keys_t=keys_t, mask=src_mask.flatten(1), steps=steps),
        )

    def init_state(self, memory: Memory) -> DecoderState:
        B = memory.words.size(0)
        L, H = self.decoder.layers, self.hidden
        if self.bridge and memory.final is not None:
            h = memory.final[0].transpose(0, 1).contiguous()  # (L, B, H)
            c = memory.final[1].transpose(0, 1).contiguous()
        else:
            h = memory.words.new_zeros(L, B, H)
            c = memory.words.new_zeros(L, B, H)
        return DecoderState(h=h, c=c, feed=memory.words.new_zeros(B, H), extra=StepHistory())

    # -- decoder ---------------------------------------------------------------------------
    def attend_source(self, top: Tensor, memory: Memory, past: Tensor | None) -> SourceAttention:
        """Attention over the source for decoder output ``top`` ``(B, H)``, or ``(B*R, H)``: R rows
        per memory row (beam search, ``capabilities.memory_per_document``). ``past``: the
        intra-temporal state ``(B, S)`` or None. Word attention comes back ``(B, M, N)``."""
        cache = cast(FlatCache, memory.cache)
        values: Tensor | StepMatrix = memory.words.flatten(1, 2)  # (B, S, H), a view
        keys_t: Tensor | StepMatrix = cache.keys_t  # (B, H, S)
        if cache.steps is not None:  # the same, with gradients formed once per batch
            values, keys_t = cache.steps
        attention = cast(BilinearAttention, self.attention)
        ctx, alpha, past = attention(top, values, keys_t, cache.mask, past)  # (B, H), (B, S)
        return SourceAttention(ctx=ctx, attn=alpha.view(top.size(0), *memory.word_mask.shape[1:]), past=past)

    def attend(
        self,
        memory: Memory,
        state: DecoderState,
        prev: Tensor,
        emb: Tensor | None = None,
        fast: tuple[DecoderSteps, int] | None = None,
    ) -> AttendOutput:
        """Decoder cell and attention for one step, before the generator.

        ``prev`` ``(B,)``; ``emb`` ``(B, E)``, if given, is the embedding of ``prev`` already looked
        up. ``fast`` = (the decoder's :class:`DecoderSteps` of this batch, t): the same cell on
        the teacher-forcing speed path (``Kernels.deferred_grads``).
        """
        if fast is not None:  # embedding share precomputed
            top, h, c = self.decoder.step(fast[0], fast[1], state.feed if self.input_feed else None, state.h, state.c)
        else:
            x = self.tgt_emb(self.input_ids(prev)) if emb is None else emb  # (B, E)
            if self.input_feed:
                x = torch.cat([x, state.feed], -1)  # (B, E + H)
            top, h, c = self.decoder(x, state.h, state.c)  # (B, H)
        history = cast(StepHistory, state.extra)
        src = self.attend_source(top, memory, history.past)
        ctx = src.ctx
        if self.combine is not None:  # luong: c_t = tanh(W2 [c~; h_t])
            out = torch.tanh(self.combine(torch.cat([ctx, top], -1)))
            parts, feed = [out], out
        else:  # paulus: [h_t; c~]
            parts, feed = [top, ctx], ctx
        c_dec, states = None, history.states
        if self.intra is not None:
            c_dec, _ = self.intra(top, states)  # (B, H), zero at t = 1
            states = top.unsqueeze(1) if states is None else torch.cat([states, top.unsqueeze(1)], 1)
            parts.append(c_dec)
        features = torch.cat(parts, -1) if len(parts) > 1 else parts[0]
        p_copy = None
        if self.switch is not None:  # Paulus eq. 10 on [h_t; c~; c^d_t]
            sw = [top, ctx] if c_dec is None else [top, ctx, c_dec]
            p_copy = torch.sigmoid(self.switch(torch.cat(sw, -1)))  # (B, 1)
        return AttendOutput(
            features=features,
            state=DecoderState(h=h, c=c, feed=feed, extra=StepHistory(past=src.past, states=states)),
            attn=src.attn,
            coarse=src.coarse,
            policy=src.policy,
            p_copy=p_copy,
        )

    def logits(self, features: Tensor, memory: Memory | None = None) -> Tensor:
        """Features ``(..., D)`` -> vocabulary logits ``(..., V)`` (dropout on the features)."""
        shared = cast(OutputWeights, memory.shared) if memory is not None and memory.shared else None
        weight, packed = (shared.weight, shared.packed) if shared is not None else (None, None)
        return self.generator(
            self.dropout(features), self.tgt_emb.weight if self.generator.shared else None, weight, packed
        )

    def generate(
        self, features: Tensor, attn: Tensor | None = None, p_copy: Tensor | None = None, memory: Memory | None = None
    ) -> Tensor:
        """Features ``(B, D)`` or ``(B, T, D)`` -> log-probabilities over V (or V' when copying).

        ``attn`` ``(B[, T], M, N)`` and ``p_copy`` ``(B[, T], 1)`` are needed by pointer models.
        """
        logp = torch.log_softmax(self.logits(features, memory), dim=-1)
        if self.switch is None:
            return logp
        assert attn is not None and p_copy is not None and memory is not None and memory.src_ext is not None
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

    def shared_output(self, memory: Memory) -> Memory:
        """Once per batch for step-by-step decoding: ``memory.shared`` = :class:`OutputWeights`
        (packed for oneDNN with ``Kernels.packed_generator``, where that applies)."""
        if memory.shared is None:
            weight = self.generator.output_matrix(self.tgt_emb.weight) if self.generator.shared else None
            packed = None
            if self.kernels.packed_generator:
                packed = pack_linear_weight(weight if weight is not None else self.generator.output_matrix())
            memory.shared = OutputWeights(weight=weight, packed=packed)
        return memory

    def step(self, memory: Memory, state: DecoderState, prev: Tensor) -> StepOutput:
        self.shared_output(memory)
        o = self.attend(memory, state, prev)
        logprobs = self.generate(o.features, o.attn, o.p_copy, memory)
        return StepOutput(logprobs=logprobs, state=o.state, attn=o.attn, coarse=o.coarse)

    def parallel_teacher_forcing(self) -> bool:
        """Whether teacher forcing runs every decoder step at once (:meth:`attend_steps`): the
        ``Kernels.parallel_steps`` speed path, for a decoder without input feeding."""
        return self.kernels.parallel_steps and not self.input_feed

    def attend_source_steps(self, top: Tensor, memory: Memory) -> SourceAttention:
        """:meth:`attend_source` for every step at once: decoder outputs ``top`` ``(B, T, H)`` ->
        context ``(B, T, H)`` and word attention ``(B, T, M, N)``."""
        cache = cast(FlatCache, memory.cache)
        attention = cast(BilinearAttention, self.attention)
        ctx, alpha = attention.forward_steps(top, memory.words.flatten(1, 2), cache.keys_t, cache.mask)
        return SourceAttention(ctx=ctx, attn=alpha.view(*top.shape[:2], *memory.word_mask.shape[1:]))

    def attend_steps(self, memory: Memory, state: DecoderState, emb: Tensor) -> TeacherForced:
        """Teacher forcing without input feeding, every step at once: the decoder over the target
        embeddings ``emb`` ``(B, T, E)`` in one call, then the attentions, the features and the
        pointer switch of all steps (what :meth:`attend_loop` computes one step at a time)."""
        top, _, _ = self.decoder.run_steps(emb, state.h, state.c)  # (B, T, H)
        src = self.attend_source_steps(top, memory)  # ctx (B, T, H), attn (B, T, M, N)
        ctx = src.ctx
        if self.combine is not None:  # luong: c_t = tanh(W2 [c~; h_t])
            parts = [torch.tanh(self.combine(torch.cat([ctx, top], -1)))]
        else:  # paulus: [h_t; c~]
            parts = [top, ctx]
        c_dec = None
        if self.intra is not None:
            c_dec = self.intra.forward_steps(top)  # (B, T, H), zero at t = 1
            parts.append(c_dec)
        features = torch.cat(parts, -1) if len(parts) > 1 else parts[0]  # (B, T, D)
        p_copy = None
        if self.switch is not None:  # Paulus eq. 10 on [h_t; c~; c^d_t]
            sw = [top, ctx] if c_dec is None else [top, ctx, c_dec]
            p_copy = torch.sigmoid(self.switch(torch.cat(sw, -1)))  # (B, T, 1)
        return TeacherForced(features=features, attn=src.attn, coarse=src.coarse, policy=src.policy, p_copy=p_copy)

    def attend_loop(self, memory: Memory, state: DecoderState, tgt_in: Tensor, emb: Tensor) -> TeacherForced:
        """Teacher forcing one step at a time (:meth:`attend`): the path of a decoder with input
        feeding, and the plain twin of :meth:`attend_steps`. ``tgt_in`` ``(B, T)``, ``emb`` ``(B, T, E)``."""
        # with gradients: the decoder's embedding share for all steps at once, weight gradients per batch
        deferred = self.kernels.deferred_grads and torch.is_grad_enabled()
        steps = self.decoder.prepare_steps(emb) if deferred else None
        outs: list[AttendOutput] = []
        for t in range(tgt_in.size(1)):
            o = self.attend(memory, state, tgt_in[:, t], emb[:, t], fast=None if steps is None else (steps, t))
            state = o.state
            outs.append(o)
        coarse = [o.coarse for o in outs]
        policy = [o.policy for o in outs]
        return TeacherForced(
            features=torch.stack([o.features for o in outs], 1),  # (B, T, D)
            attn=torch.stack([o.attn for o in outs], 1),  # (B, T, M, N)
            coarse=torch.stack(coarse, 1) if coarse[0] is not None else None,  # type: ignore[arg-type]
            policy=torch.stack(policy, 1) if policy[0] is not None else None,  # type: ignore[arg-type]
            p_copy=torch.stack([cast(Tensor, o.p_copy) for o in outs], 1) if self.copies else None,  # (B, T, 1)
        )

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor,
        tgt_in: Tensor,
        src_ext: Tensor | None = None,
        n_ext: int = 0,
        target: Tensor | None = None,
    ) -> ForwardOutput:
        """Teacher forcing; the generator runs once over all steps. See :meth:`Summarizer.forward`.

        The decoder and attentions run every step at once where the model allows it
        (:meth:`parallel_teacher_forcing`), else step by step. Given ``target`` ``(B, T)``, the
        model returns only ``target_lp`` (``logprobs`` is None) with the fused loss
        (``Kernels.fused_loss``): :meth:`VocabGenerator.log_prob`, no vocabulary-sized tensor
        besides the logits, which never leave it; a pointer model adds the target's copy term
        (:func:`pointer_target_logprob`)."""
        memory = self.encode(src, src_mask, src_ext, n_ext)
        if memory.lazy is not None:  # teacher forcing returns dense attention
            cast(ChunkCache, memory.lazy).sparse_attn = False
        state = self.init_state(memory)
        emb = self.tgt_emb(self.input_ids(tgt_in))  # (B, T, E): one look-up, one gradient
        if self.parallel_teacher_forcing():
            tf = self.attend_steps(memory, state, emb)
        else:
            tf = self.attend_loop(memory, state, tgt_in, emb)
        logprobs, target_lp = None, None
        emb_weight = self.tgt_emb.weight if self.generator.shared else None
        if target is not None and not self.copies:
            target_lp = self.generator.log_prob(
                self.dropout(tf.features), target, emb_weight, fused=self.kernels.fused_loss
            )  # (B, T)
        elif target is not None and self.kernels.fused_loss:  # a pointer model's loss, its target alone
            V = self.vocab_size
            assert tf.p_copy is not None and memory.src_ext is not None  # a copying model has both
            vocab_lp = self.generator.log_prob(self.dropout(tf.features), target.clamp(max=V - 1), emb_weight)
            B, T = target.shape
            target_lp = pointer_target_logprob(
                vocab_lp, tf.p_copy.squeeze(-1), tf.attn.reshape(B, T, -1), memory.src_ext.reshape(B, 1, -1), target, V
            )  # (B, T)
        else:
            logprobs = self.generate(tf.features, tf.attn, tf.p_copy, memory)
            if target is not None:
                target_lp = logprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        return ForwardOutput(
            logprobs=logprobs,
            target_lp=target_lp,
            attn=tf.attn,
            coarse=tf.coarse,
            policy=tf.policy,
            fine_fraction=cast(ChunkCache, memory.lazy).fraction_encoded() if memory.lazy is not None else None,
        )
