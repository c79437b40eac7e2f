"""Tiny deterministic summarizers for decoding tests.

* :class:`ToyRNN`: a real (tiny, random, untrained) recurrent decoder with attention over the
  source grid. Its next-word distribution depends on the whole prefix through ``h``, ``c``,
  ``feed`` and ``extra``, so a beam search that reorders the state wrongly gives wrong scores.
* :class:`TableToy`: log-probabilities read from a table indexed by (position, previous word),
  for hand-made cases.

Vocabulary: 0 <pad>, 1 <unk>, 2 <s>, 3 </s>, then words 4, 5, ...
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from c2fsum.models.base import DEFAULT_READING, DecoderState, Memory, Reading, StepOutput, Summarizer
from c2fsum.modules.attention import Attention

PAD, UNK, BOS, EOS = 0, 1, 2, 3
MAX_EXT = 4  # the toys can copy at most this many document-only words


def _encode(emb: nn.Embedding, src: Tensor, src_mask: Tensor, src_ext: Tensor | None, n_ext: int) -> Memory:
    words = emb(src) * src_mask.unsqueeze(-1)  # (B, M, N, H)
    chunk_mask = src_mask.any(-1)  # (B, M)
    chunks = words.sum(2) / src_mask.sum(-1, keepdim=True).clamp(min=1)  # (B, M, H)
    return Memory(words=words, word_mask=src_mask, chunk_mask=chunk_mask, chunks=chunks, src_ext=src_ext, n_ext=n_ext)


def _attend(scores: Tensor, mask: Tensor) -> Tensor:
    """Softmax of ``scores`` ``(B, M, N)`` over the real words of each row."""
    b = scores.size(0)
    scores = scores.masked_fill(~mask, float("-inf")).view(b, -1)
    return scores.softmax(-1).view_as(mask)


class ToyRNN(Summarizer):
    """A random one-layer tanh-RNN decoder with input feeding and dot attention.

    Args:
        vocab_size: V (>= 5).
        hidden: H.
        seed: the weights are drawn from ``torch.Generator().manual_seed(seed)``.
        scale: multiplies the output logits; large values give peaked (repetitive) outputs.
        trans: optional ``(V, V + MAX_EXT)`` logits added after the previous word (e.g. a cycle).
        coarse: also return chunk attention ``(B, M)`` like hierarchical models.
    """

    def __init__(
        self,
        *,
        vocab_size: int = 6,
        hidden: int = 8,
        seed: int = 0,
        scale: float = 3.0,
        trans: Tensor | None = None,
        coarse: bool = False,
    ):
        super().__init__()
        self.vocab_size, self.hidden, self.scale, self.coarse = vocab_size, hidden, scale, coarse
        g = torch.Generator().manual_seed(seed)

        def rand(*shape: int) -> nn.Parameter:
            return nn.Parameter(torch.randn(*shape, generator=g) / shape[-1] ** 0.5)

        self.src_emb = nn.Embedding(vocab_size, hidden, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(vocab_size, hidden)
        with torch.no_grad():
            self.src_emb.weight.copy_(torch.randn(vocab_size, hidden, generator=g))
            self.src_emb.weight[PAD] = 0
            self.tgt_emb.weight.copy_(torch.randn(vocab_size, hidden, generator=g))
        self.w_h, self.w_x, self.w_f = rand(hidden, hidden), rand(hidden, hidden), rand(hidden, hidden)
        self.out = rand(vocab_size + MAX_EXT, 2 * hidden)
        self.doc_out = rand(vocab_size + MAX_EXT, hidden)
        self.register_buffer("trans", None if trans is None else trans.float())

    def encode(
        self,
        src: Tensor,
        src_mask: Tensor,
        src_ext: Tensor | None = None,
        n_ext: int = 0,
        reading: Reading = DEFAULT_READING,
    ) -> Memory:
        if n_ext > MAX_EXT:
            raise ValueError(f"n_ext must be <= {MAX_EXT}, got {n_ext}")
        return _encode(self.src_emb, src, src_mask, src_ext, n_ext)

    def init_state(self, memory: Memory) -> DecoderState:
        b = memory.words.size(0)
        mean = memory.words.sum((1, 2)) / memory.word_mask.sum((1, 2)).unsqueeze(-1)  # (B, H)
        h = torch.tanh(mean).unsqueeze(0)  # (1, B, H)
        return DecoderState(
            h=h, c=torch.zeros_like(h), feed=torch.zeros(b, self.hidden), extra=(torch.zeros(b, self.hidden),)
        )

    def step(self, memory: Memory, state: DecoderState, prev: Tensor) -> StepOutput:
        x = self.tgt_emb(self.input_ids(prev))  # (B, H)
        h = torch.tanh(state.h[0] @ self.w_h + x @ self.w_x + state.feed @ self.w_f + 0.3 * state.c[0])  # (B, H)
        attn = _attend(torch.einsum("bmnh,bh->bmn", memory.words, h), memory.word_mask)  # (B, M, N)
        ctx = torch.einsum("bmn,bmnh->bh", attn, memory.words)  # (B, H)
        total = state.extra[0] + h  # running sum: makes `extra` matter
        n_out = self.vocab_size + memory.n_ext
        logits = self.scale * (torch.cat([h, ctx + 0.1 * total], -1) @ self.out[:n_out].T)  # (B, V')
        doc = memory.words.sum((1, 2)) / memory.word_mask.sum((1, 2)).unsqueeze(-1)  # (B, H)
        logits = logits + self.scale * doc @ self.doc_out[:n_out].T
        if self.trans is not None:
            logits = logits + self.trans[self.input_ids(prev), :n_out]
        new = DecoderState(h=h.unsqueeze(0), c=0.5 * state.c + h, feed=torch.tanh(ctx), extra=(total,))
        return StepOutput(
            logprobs=logits.log_softmax(-1),
            state=new,
            attention=Attention(attn, coarse=attn.sum(-1) if self.coarse else None),
        )


class TableToy(Summarizer):
    """Log-probabilities ``table[t, prev]`` ``(P, V, V')`` at step ``t`` after word ``prev``.

    Attention is uniform over the real words. Steps past ``P - 1`` reuse the last row.
    """

    def __init__(self, table: Tensor):
        super().__init__()
        self.vocab_size = table.size(1)
        self.register_buffer("table", table.float())
        self.anchor = nn.Parameter(torch.zeros(1))

    def encode(
        self,
        src: Tensor,
        src_mask: Tensor,
        src_ext: Tensor | None = None,
        n_ext: int = 0,
        reading: Reading = DEFAULT_READING,
    ) -> Memory:
        emb = src_mask.unsqueeze(-1).float()  # (B, M, N, 1)
        return Memory(words=emb, word_mask=src_mask, chunk_mask=src_mask.any(-1), src_ext=src_ext, n_ext=n_ext)

    def init_state(self, memory: Memory) -> DecoderState:
        b = memory.words.size(0)
        z = torch.zeros(1, b, 1)
        return DecoderState(h=z, c=z, feed=torch.zeros(b, 1), extra=(torch.zeros(b, dtype=torch.long),))

    def step(self, memory: Memory, state: DecoderState, prev: Tensor) -> StepOutput:
        pos = state.extra[0].clamp(max=self.table.size(0) - 1)
        logprobs = self.table[pos, self.input_ids(prev)] + self.anchor  # (B, V')
        attn = _attend(torch.zeros(memory.word_mask.shape), memory.word_mask)
        new = DecoderState(h=state.h, c=state.c, feed=state.feed, extra=(state.extra[0] + 1,))
        return StepOutput(logprobs=logprobs, state=new, attention=Attention(attn))


def table_from_probs(rules: dict[tuple[int, int], dict[int, float]], *, vocab_size: int = 6, n_pos: int = 4) -> Tensor:
    """A ``(P, V, V)`` log-prob table: ``rules[(t, prev)] = {word: prob}``, the rest of the mass
    spread evenly over the other words; unlisted (t, prev) are uniform."""
    probs = torch.full((n_pos, vocab_size, vocab_size), 1.0 / vocab_size, dtype=torch.float64)
    for (t, prev), dist in rules.items():
        rest = (1.0 - sum(dist.values())) / (vocab_size - len(dist))
        probs[t, prev] = rest
        for w, p in dist.items():
            probs[t, prev, w] = p
    return probs.log()


def random_batch(
    model: Summarizer, *, batch: int = 3, chunks: int = 2, chunk_len: int = 3, seed: int = 0, n_ext: int = 0
) -> tuple[Tensor, Tensor, Memory]:
    """Random source grids with padding (every document keeps its first word); returns
    ``src`` ``(B, M, N)``, ``src_mask`` ``(B, M, N)`` and the encoded memory."""
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, model.vocab_size, (batch, chunks, chunk_len), generator=g)
    mask = torch.rand(batch, chunks, chunk_len, generator=g) < 0.7
    mask[:, 0, 0] = True
    src = src.masked_fill(~mask, PAD)
    src_ext = src.clone() if n_ext else None
    with torch.no_grad():
        memory = model.encode(src, mask, src_ext, n_ext)
    return src, mask, memory


def has_repeated_trigram(tokens: list[int]) -> bool:
    grams = list(zip(tokens, tokens[1:], tokens[2:], strict=False))
    return len(grams) != len(set(grams))
