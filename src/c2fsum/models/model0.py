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

from typing import cast

import torch
from torch import Tensor, nn

from c2fsum.models.base import DecoderState, ForwardOutput, Memory, StepOutput, Summarizer
from c2fsum.models.chunk_cache import ChunkCache
from c2fsum.modules.attention import BilinearAttention
from c2fsum.modules.decoder import DecoderSteps, InputFeedingLSTM
from c2fsum.modules.embeddings import make_embedding
from c2fsum.modules.encoders import LSTMWordEncoder
from c2fsum.modules.generators import VocabGenerator, pointer_mixture
from c2fsum.modules.intra import IntraDecoderAttention

OUTPUT_STYLES = ("luong", "paulus")


class Model0(Summarizer):
    """Flat (or per-chunk) LSTM encoder, input-feeding LSTM decoder, bilinear attention, generator."""

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
        share_src_tgt_emb: bool = False,
        output: str = "luong",
    ):
        """``share_embeddings``: W_out = tanh(W_emb W_proj) (Paulus eq. 13); ``share_src_tgt_emb``:
        the encoder and the decoder read words through one embedding (Paulus section 2.4),
        ``tgt_emb`` is then ``src_emb``; ``input_feed``: the decoder's input is
        ``[emb(y_{t-1}); c_{t-1}]`` (True) or ``emb(y_{t-1})`` alone (Paulus section 2)."""
        super().__init__()
        if output not in OUTPUT_STYLES:
            raise ValueError(f"model.output: got {output!r}, expected one of {OUTPUT_STYLES}")
        self.vocab_size = vocab_size
        self.hidden = hidden
        self.input_feed = input_feed
        self.output = output
        self.copies = pointer
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
        self.attention = BilinearAttention(query_dim=hidden, key_dim=hidden, temporal=temporal)
        self.combine = nn.Linear(2 * hidden, hidden, bias=False) if output == "luong" else None  # W2
        self.intra = IntraDecoderAttention(hidden=hidden) if intra_decoder else None
        feat = hidden if output == "luong" else 2 * hidden
        feat += hidden if intra_decoder else 0
        self.dropout = nn.Dropout(dropout)
        self.generator = VocabGenerator(
            in_dim=feat, vocab_size=vocab_size, shared_dim=emb_dim if share_embeddings else 0
        )
        self.switch = nn.Linear(3 * hidden if intra_decoder else 2 * hidden, 1) if pointer else None  # W_u
        self.bridge = enc_layers == dec_layers
        # teacher forcing with gradients: attention memory and decoder weight gradients once per
        # batch, decoder input projections hoisted (modules/deferred.py, modules/decoder.py)
        self.deferred_grads = True
        # decoding without gradients on CPU: the generator product through oneDNN (VocabGenerator.pack)
        self.fast_generator = True
        self.reset_parameters(init_range)

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
        words, (h, c) = self.encoder(emb, src_mask)  # (B, M, N, H)
        values, keys_t = BilinearAttention.prepare(words)  # (B, S, H), (B, H, S)
        # with gradients: the same values and keys whose gradients are formed once per batch
        steps = BilinearAttention.prepare_steps(values, keys_t) if self.deferred_grads else None
        return Memory(
            words=words,
            word_mask=src_mask,
            chunk_mask=src_mask.any(-1),
            src_ext=src_ext,
            n_ext=n_ext,
            final=(h.transpose(0, 1), c.transpose(0, 1)),
            cache=(keys_t, src_mask.flatten(1), steps),
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
        # extra = (temporal log-sum (B, S) or None, previous decoder states (B, t, H) or None)
        return DecoderState(h=h, c=c, feed=memory.words.new_zeros(B, H), extra=(None, None))

    # -- decoder ---------------------------------------------------------------------------
    def attend_source(
        self, top: Tensor, memory: Memory, past: Tensor | None
    ) -> tuple[Tensor, Tensor, Tensor | None, Tensor | None, Tensor | None]:
        """Attention over the source for decoder output ``top`` ``(B, H)``.

        Returns the context c~ ``(B, H)``, word attention ``(B, M, N)``, chunk attention ``(B, M)``
        (None here), the hard choice's log-probability (None here) and the temporal state.
        """
        keys_t, mask, steps = memory.cache  # type: ignore[misc]  # set by encode()
        values = memory.words.flatten(1, 2)  # (B, S, H), a view
        if steps is not None and steps[1].m is keys_t:  # not after Memory.select
            values, keys_t = steps
        B, M, N = memory.word_mask.shape
        R = top.size(0) // B
        if R == 1:
            ctx, alpha, past = self.attention(top, values, keys_t, mask, past)  # (B, H), (B, S)
            return ctx, alpha.view_as(memory.word_mask), None, None, past
        # R decoder rows per document (beam search with memory_per_document): (B*R, .) -> (B, R, .)
        ctx, alpha, past = self.attention(
            top.view(B, R, -1), values, keys_t, mask.unsqueeze(1), None if past is None else past.view(B, R, -1)
        )
        return (
            ctx.reshape(B * R, -1),
            alpha.reshape(B * R, M, N),
            None,
            None,
            None if past is None else past.reshape(B * R, -1),
        )

    def memory_per_document(self) -> bool:
        """True if decoder rows may share their document's memory row (``B * R`` rows against
        ``B`` memory rows): beam search then never copies the memory K times."""
        return type(self).attend_source is Model0.attend_source and not self.copies

    def attend(
        self,
        memory: Memory,
        state: DecoderState,
        prev: Tensor,
        emb: Tensor | None = None,
        fast: tuple[DecoderSteps, int] | None = None,
    ) -> tuple[Tensor, DecoderState, Tensor, Tensor | None, Tensor | None, Tensor | None]:
        """Decoder cell and attention for one step, before the generator.

        Returns the generator features f_t ``(B, D)``, the new state, word attention
        ``(B, M, N)``, chunk attention ``(B, M)`` or None, the hard choice's log-probability
        ``(B,)`` or None, and the pointer switch p(u_t = 1) ``(B, 1)`` or None. ``emb`` ``(B, E)``,
        if given, is the embedding of ``prev`` already looked up. ``fast`` = (the decoder's
        :class:`DecoderSteps` of this batch, t): the same cell on the fast teacher-forcing path.
        """
        if fast is not None:  # embedding share precomputed
            top, h, c = self.decoder.step(fast[0], fast[1], state.feed if self.input_feed else None, state.h, state.c)
        else:
            x = self.tgt_emb(self.input_ids(prev)) if emb is None else emb  # (B, E)
            if self.input_feed:
                x = torch.cat([x, state.feed], -1)  # (B, E + H)
            top, h, c = self.decoder(x, state.h, state.c)  # (B, H)
        past, history = state.extra  # type: ignore[misc]  # set by init_state()
        ctx, attn, coarse, policy, past = self.attend_source(top, memory, past)
        if self.combine is not None:  # luong: c_t = tanh(W2 [c~; h_t])
            out = torch.tanh(self.combine(torch.cat([ctx, top], -1)))
            parts, feed = [out], out
        else:  # paulus: [h_t; c~]
            parts, feed = [top, ctx], ctx
        c_dec = None
        if self.intra is not None:
            c_dec, _ = self.intra(top, history)  # (B, H), zero at t = 1
            history = top.unsqueeze(1) if history is None else torch.cat([history, top.unsqueeze(1)], 1)
            parts.append(c_dec)
        features = torch.cat(parts, -1) if len(parts) > 1 else parts[0]
        p_copy = None
        if self.switch is not None:  # Paulus eq. 10 on [h_t; c~; c^d_t]
            sw = [top, ctx] if c_dec is None else [top, ctx, c_dec]
            p_copy = torch.sigmoid(self.switch(torch.cat(sw, -1)))  # (B, 1)
        return features, DecoderState(h=h, c=c, feed=feed, extra=(past, history)), attn, coarse, policy, p_copy

    def logits(self, features: Tensor, memory: Memory | None = None) -> Tensor:
        """Features ``(..., D)`` -> vocabulary logits ``(..., V)`` (dropout on the features)."""
        weight, packed = memory.shared if memory is not None and memory.shared else (None, None)
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
        if logp.dim() == 2:
            return pointer_mixture(logp, p_copy, attn.reshape(B, -1), memory.src_ext.reshape(B, -1), memory.n_ext)
        T = logp.size(1)
        src_ext = memory.src_ext.reshape(B, 1, -1).expand(B, T, -1).reshape(B * T, -1)
        mixed = pointer_mixture(
            logp.reshape(B * T, -1), p_copy.reshape(B * T, 1), attn.reshape(B * T, -1), src_ext, memory.n_ext
        )
        return mixed.view(B, T, -1)

    def shared_output(self, memory: Memory) -> Memory:
        """Once per batch for step-by-step decoding: ``memory.shared`` = (the shared output matrix
        W_out = tanh(W_emb W_proj) or None, W_out packed for oneDNN or None; see VocabGenerator.pack)."""
        if memory.shared is None:
            weight = self.generator.output_matrix(self.tgt_emb.weight) if self.generator.shared else None
            packed = None
            if self.fast_generator:
                packed = self.generator.pack(weight if weight is not None else self.generator.output_matrix())
            memory.shared = (weight, packed)
        return memory

    def step(self, memory: Memory, state: DecoderState, prev: Tensor) -> StepOutput:
        self.shared_output(memory)
        features, state, attn, coarse, _, p_copy = self.attend(memory, state, prev)
        return StepOutput(logprobs=self.generate(features, attn, p_copy, memory), state=state, attn=attn, coarse=coarse)

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

        Given ``target`` ``(B, T)``, a model that does not copy returns only ``target_lp``
        (``logprobs`` is None), computed by :meth:`VocabGenerator.log_prob` (no vocabulary-sized
        tensor besides the logits, which never leave it)."""
        memory = self.encode(src, src_mask, src_ext, n_ext)
        state = self.init_state(memory)
        feats, attns, coarses, policies, copies = [], [], [], [], []
        emb = self.tgt_emb(self.input_ids(tgt_in))  # (B, T, E): one look-up, one gradient
        # with gradients: the decoder's embedding share for all steps at once, weight gradients per batch
        steps = self.decoder.prepare_steps(emb) if self.deferred_grads and torch.is_grad_enabled() else None
        for t in range(tgt_in.size(1)):
            f, state, attn, coarse, policy, p_copy = self.attend(
                memory, state, tgt_in[:, t], emb[:, t], fast=None if steps is None else (steps, t)
            )
            feats.append(f)
            attns.append(attn)
            coarses.append(coarse)
            policies.append(policy)
            copies.append(p_copy)
        attn = torch.stack(attns, 1)  # (B, T, M, N)
        p_copy = torch.stack(copies, 1) if self.copies else None  # type: ignore[arg-type]  # (B, T, 1)
        features = torch.stack(feats, 1)  # (B, T, D)
        logprobs, target_lp = None, None
        if target is not None and self.switch is None:
            emb_weight = self.tgt_emb.weight if self.generator.shared else None
            target_lp = self.generator.log_prob(self.dropout(features), target, emb_weight)  # (B, T)
        else:
            logprobs = self.generate(features, attn, p_copy, memory)
            if target is not None:
                target_lp = logprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        return ForwardOutput(
            logprobs=logprobs,
            target_lp=target_lp,
            attn=attn,
            coarse=torch.stack(coarses, 1) if coarses[0] is not None else None,  # type: ignore[arg-type]
            policy=torch.stack(policies, 1) if policies[0] is not None else None,  # type: ignore[arg-type]
            fine_fraction=cast(ChunkCache, memory.lazy).fraction_encoded() if memory.lazy is not None else None,
        )
