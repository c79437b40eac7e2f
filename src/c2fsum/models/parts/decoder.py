"""The decoder: the LSTM stack, the source attention it queries, and the generator's features.

    step t:  x_t = [emb(y_{t-1}); c_{t-1}]                   (input feeding; Paulus: emb(y_{t-1}))
             h_t = LSTM-stack(x_t, h_{t-1})                  (B, H)
             c~, alpha = source attention(h_t)               (B, H), (B, M, N)
             luong:  c_t = tanh(W2 [c~; h_t]),  f_t = c_t    (thesis eq. 3.5; c_t is fed back)
             paulus: f_t = [h_t; c~]                          (Paulus eq. 9; c~ is fed back)
             [intra-decoder: c^d_t = attention over h_1..h_{t-1}, appended to f_t]
             [pointer: p(u_t = 1) = sigmoid(W_u [h_t; c~; c^d_t])  (Paulus eq. 10)]

Three ways to run it, with the same results (a :class:`DecoderOutput`): :meth:`Decoder.attend` one step (decoding, and
teacher forcing with input feeding, :meth:`Decoder.attend_loop`), and :meth:`Decoder.attend_steps`
every step at once (teacher forcing without input feeding: nothing of step t depends on step
t-1's attention). The decoder starts from the encoder's final state when both have L layers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import torch
from torch import Tensor, nn

from c2fsum.config import ModelConfig
from c2fsum.models.base import BatchFields, DecoderState, Memory
from c2fsum.models.parts.attention import SourceAttention
from c2fsum.modules.decoder import DecoderSteps, InputFeedingLSTM
from c2fsum.modules.intra import IntraDecoderAttention

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
    attn: Tensor
    """``(B, [T,] M, N)`` word attention."""
    coarse: Tensor | None = None
    """``(B, [T,] M)`` chunk attention of hierarchical models, else None."""
    policy: Tensor | None = None
    """``(B, [T])`` log-probability of the hard chunk choices, else None."""
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
        out = DecoderOutput(features=features, attn=src.attn, coarse=src.coarse, policy=src.policy, copy_in=copy_in)
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
        return DecoderOutput(features=features, attn=src.attn, coarse=src.coarse, policy=src.policy, copy_in=copy_in)

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
            attn=torch.stack([o.attn for o in outs], 1),  # (B, T, M, N)
            coarse=stack_steps([o.coarse for o in outs]),  # (B, T, M)
            policy=stack_steps([o.policy for o in outs]),  # (B, T)
            copy_in=stack_steps([o.copy_in for o in outs]),  # (B, T, 2H or 3H)
        )


def stack_steps(steps: list[Tensor | None]) -> Tensor | None:
    """T one-step tensors ``(B, ...)`` -> ``(B, T, ...)``; None where the steps have none."""
    return None if steps[0] is None else torch.stack([s for s in steps if s is not None], 1)
