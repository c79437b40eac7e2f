"""MODEL 0: the standard sequence-to-sequence model with attention (thesis section 3.2).

    src grid (B, M, N) --emb--> (B, M, N, E) --flat 2-layer LSTM--> word states (B, M, N, H)
    step t:  x_t = [emb(y_{t-1}); c_{t-1}]                          (input feeding)
             h_t = LSTM-stack(x_t, h_{t-1})                         (B, H)
             alpha = softmax_i(h_i^T W h_t) over real words         (B, M*N)
             c_t = tanh(W2 [sum_i alpha_i h_i; h_t])                (B, H)
             p(y_t) = softmax(W_out dropout(c_t) + b)               (B, V)

The decoder starts from the encoder's final state (both have L layers of H units).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from c2fsum.models.base import DecoderState, Memory, StepOutput, Summarizer
from c2fsum.modules.attention import BilinearAttention
from c2fsum.modules.decoder import InputFeedingLSTM
from c2fsum.modules.embeddings import make_embedding
from c2fsum.modules.encoders import LSTMWordEncoder


class Model0(Summarizer):
    """Flat LSTM encoder, input-feeding LSTM decoder, bilinear attention, softmax generator."""

    def __init__(self, *, vocab_size: int, emb_dim: int = 300, hidden: int = 500, enc_layers: int = 2,
                 dec_layers: int = 2, dropout: float = 0.3, input_feed: bool = True,
                 init_range: float = 0.1, per_chunk: bool = False):
        super().__init__()
        self.vocab_size = vocab_size
        self.hidden = hidden
        self.input_feed = input_feed
        self.src_emb = make_embedding(vocab_size, emb_dim, self.pad_id)
        self.tgt_emb = make_embedding(vocab_size, emb_dim, self.pad_id)
        self.encoder = LSTMWordEncoder(emb_dim=emb_dim, hidden=hidden, layers=enc_layers,
                                       dropout=dropout, per_chunk=per_chunk)
        self.decoder = InputFeedingLSTM(input_dim=emb_dim + (hidden if input_feed else 0),
                                        hidden=hidden, layers=dec_layers, dropout=dropout)
        self.attention = BilinearAttention(query_dim=hidden, key_dim=hidden, out_dim=hidden)
        self.dropout = nn.Dropout(dropout)
        self.generator = nn.Linear(hidden, vocab_size)
        self.bridge = enc_layers == dec_layers
        self.reset_parameters(init_range)

    def reset_parameters(self, init_range: float) -> None:
        """Uniform initialization in [-init_range, init_range] (thesis section 5.2)."""
        for p in self.parameters():
            nn.init.uniform_(p, -init_range, init_range)
        with torch.no_grad():
            self.src_emb.weight[self.pad_id].zero_()
            self.tgt_emb.weight[self.pad_id].zero_()

    # -- encoder ---------------------------------------------------------------------------
    def encode(self, src: Tensor, src_mask: Tensor, src_ext: Tensor | None = None,
               n_ext: int = 0) -> Memory:
        """``src``, ``src_mask`` ``(B, M, N)`` -> :class:`Memory` with words ``(B, M, N, H)``."""
        emb = self.src_emb(src)                                     # (B, M, N, E), 0 on pad
        words, (h, c) = self.encoder(emb, src_mask)                 # (B, M, N, H)
        values, keys_t = BilinearAttention.prepare(words)           # (B, S, H), (B, H, S)
        return Memory(words=words, word_mask=src_mask, chunk_mask=src_mask.any(-1), src_ext=src_ext,
                      n_ext=n_ext, final=(h.transpose(0, 1), c.transpose(0, 1)),
                      cache=(values, keys_t, src_mask.flatten(1)))

    def init_state(self, memory: Memory) -> DecoderState:
        B = memory.words.size(0)
        L, H = self.decoder.layers, self.hidden
        if self.bridge and memory.final is not None:
            h = memory.final[0].transpose(0, 1).contiguous()        # (L, B, H)
            c = memory.final[1].transpose(0, 1).contiguous()
        else:
            h = memory.words.new_zeros(L, B, H)
            c = memory.words.new_zeros(L, B, H)
        return DecoderState(h=h, c=c, feed=memory.words.new_zeros(B, H))

    # -- decoder ---------------------------------------------------------------------------
    def attend(self, memory: Memory, state: DecoderState, prev: Tensor
               ) -> tuple[Tensor, DecoderState, Tensor]:
        """Decoder cell and attention for one step, before the generator.

        Returns the attentional output ``(B, H)``, the new state and attention ``(B, M, N)``.
        """
        x = self.tgt_emb(self.input_ids(prev))                     # (B, E)
        if self.input_feed:
            x = torch.cat([x, state.feed], -1)                     # (B, E + H)
        top, h, c = self.decoder(x, state.h, state.c)               # (B, H)
        values, keys_t, mask = memory.cache
        out, alpha = self.attention(top, values, keys_t, mask)      # (B, H), (B, S)
        return out, DecoderState(h=h, c=c, feed=out), alpha.view_as(memory.word_mask)

    def generate(self, out: Tensor) -> Tensor:
        """Attentional outputs ``(..., H)`` -> log-probabilities ``(..., V)``."""
        return F.log_softmax(self.generator(self.dropout(out)), dim=-1)

    def step(self, memory: Memory, state: DecoderState, prev: Tensor) -> StepOutput:
        out, state, attn = self.attend(memory, state, prev)
        return StepOutput(logprobs=self.generate(out), state=state, attn=attn)

    def forward(self, src: Tensor, src_mask: Tensor, tgt_in: Tensor, src_ext: Tensor | None = None,
                n_ext: int = 0) -> tuple[Tensor, Tensor]:
        """Teacher forcing; the generator runs once over all steps. See :meth:`Summarizer.forward`."""
        memory = self.encode(src, src_mask, src_ext, n_ext)
        state = self.init_state(memory)
        outs, attns = [], []
        for t in range(tgt_in.size(1)):
            out, state, attn = self.attend(memory, state, tgt_in[:, t])
            outs.append(out)
            attns.append(attn)
        return self.generate(torch.stack(outs, 1)), torch.stack(attns, 1)
