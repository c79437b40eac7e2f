"""Coarse-to-fine attention (thesis sections 4.3 and 4.4).

Coarse attention over chunks and fine attention over the words of each chunk::

    alpha^s_i  = softmax_i( h^s_i^T W_s h_dec )                over chunks        (B, M)
    alpha^w_ij = softmax_j( h_ij^T  W_w h_dec )                inside chunk i     (B, M, N)
    alpha_ij   = alpha^s_i * alpha^w_ij                         sums to 1          (B, M, N)
    c~ = sum_ij alpha_ij h_ij          (the model forms c = tanh(W2 [c~; h_dec]) as for MODEL 0)

Soft (MODEL 2) uses alpha^s as is. Hard (MODEL 3) replaces it by a one-hot sample in
training (``k`` samples: mu ~ Multinomial(k, alpha^s), alpha~^s = mu / k, thesis +MULTI) and
by the argmax at test time (or, c2fsum's top-k reading, the k chunks of highest alpha^s weighted
by alpha^s renormalized over them: :func:`top_chunks`), and returns the log-probability of the
choice for REINFORCE. At test time the hard path reads only the chosen chunks: its cost per step
is O(k N), not O(M N).

``forward_lazy`` is the hard path for models that encode words lazily: it asks a ``fetch``
callback for the word states of the chosen chunks only (thesis 4.4: O(M + N) per step). Both
take every step of a query at once (teacher forcing) or one step (decoding): T = 1 is a step.
What soft, sampled and argmax attention read is chosen in one place, :func:`choose_chunks`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from c2fsum.modules.attention import Attention, Context, masked_softmax


@dataclass
class Choice:
    """The coarse choice of R query rows (:func:`choose_chunks`)."""

    chunks: Tensor | None
    """``(R, k)`` the chunks read, or None: every chunk, weighted by ``weights``."""
    weights: Tensor | None
    """``(R, k)`` the weights of ``chunks`` (None: 1/k each), or ``(R, M)`` over every chunk."""
    policy: Tensor | None = None
    """``(R,)`` log-probability of a sampled choice, else None."""


def choose_chunks(alpha_s: Tensor, mode: str, *, samples: int = 1, read: int = 1, every: bool = True) -> Choice:
    """The one place soft, sampled and argmax coarse attention differ: alpha^s ``(R, M)`` -> what
    to read.

    ``soft`` (MODEL 2): every chunk, weighted by alpha^s. ``sample`` (MODEL 3 in training):
    mu ~ Multinomial(``samples``, alpha^s) with its log-probability (thesis +MULTI); with
    ``every`` (the word states of every chunk at hand) read as weights mu / k over all chunks
    (:func:`sample_chunks`), else as the k drawn chunks, 1/k each. ``argmax`` (test): the ``read``
    chunks of highest alpha^s, weighted by alpha^s renormalized over them (:func:`top_chunks`).
    """
    if mode == "soft" and every:
        return Choice(chunks=None, weights=alpha_s)
    if mode == "sample" and every:
        weights, policy = sample_chunks(alpha_s, samples)  # (R, M), (R,)
        return Choice(chunks=None, weights=weights, policy=policy)
    if mode == "sample":
        draws = draw_chunks(alpha_s, samples)  # (R, k)
        return Choice(chunks=draws, weights=None, policy=multinomial_logp(alpha_s, draws))
    if mode == "argmax":
        chunks, weights = top_chunks(alpha_s, read)  # (R, k) each
        return Choice(chunks=chunks, weights=weights)
    expected = "soft, sample or argmax" if every else "sample or argmax (lazily)"
    raise ValueError(f"attention mode: got {mode!r}, expected {expected}")


class CoarseToFineAttention(nn.Module):
    """The coarse map W_s and the fine map W_w; :meth:`forward` over every chunk's word states,
    :meth:`forward_lazy` over the chosen chunks' only. Both take every step of a query at once,
    ``(B, T, Hd)``, or one step, ``(B, Hd)`` (T = 1, outputs without the T dimension)."""

    def __init__(self, *, query_dim: int, word_dim: int, chunk_dim: int):
        super().__init__()
        self.W_s = nn.Linear(query_dim, chunk_dim, bias=False)
        self.W_w = nn.Linear(query_dim, word_dim, bias=False)

    @staticmethod
    def prepare(words: Tensor, chunks: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """Once per batch: values ``(B, S, H)``, word keys ``(B, H, S)``, chunk keys ``(B, Hc, M)``."""
        B, M, N, H = words.shape
        values = words.reshape(B, M * N, H)
        return values, values.transpose(1, 2).contiguous(), chunks.transpose(1, 2).contiguous()

    def coarse_weights(self, query: Tensor, chunk_keys_t: Tensor, chunk_mask: Tensor) -> Tensor:
        """alpha^s: query ``(B, [T,] Hd)`` -> ``(B, [T,] M)``."""
        q = query.unsqueeze(1) if query.dim() == 2 else query  # (B, T, Hd)
        scores = torch.bmm(self.W_s(q), chunk_keys_t)  # (B, T, M)
        alpha_s = masked_softmax(scores, chunk_mask.unsqueeze(1))
        return alpha_s.squeeze(1) if query.dim() == 2 else alpha_s

    def forward(
        self,
        query: Tensor,
        values: Tensor,
        keys_t: Tensor,
        chunk_keys_t: Tensor,
        word_mask: Tensor,
        chunk_mask: Tensor,
        *,
        mode: str = "soft",
        samples: int = 1,
        read: int = 1,
    ) -> Context:
        """Coarse-to-fine attention over the word states of every chunk, every step at once (hard
        modes: each step draws or picks its own chunks).

        Args:
            query ``(B, T, Hd)`` or one step ``(B, Hd)``; values ``(B, S, H)``; keys_t ``(B, H, S)``;
            chunk_keys_t ``(B, Hc, M)``; word_mask ``(B, M, N)``; chunk_mask ``(B, M)``.
            mode: ``soft``, ``sample`` (hard, training: draw ``samples`` chunks) or ``argmax``
                (test: the ``read`` chunks of highest alpha^s, and only their N words each are read).
        Returns:
            a :class:`~c2fsum.modules.attention.Context`: ctx ``(B, T, H)``, and its ``attention``:
            attn ``(B, T, M, N)``, coarse ``(B, T, M)`` (alpha^s before sampling), policy ``(B, T)``
            or None (without T for one step).
        """
        q = query.unsqueeze(1) if query.dim() == 2 else query  # (B, T, Hd)
        B, T, _ = q.shape
        M, N = word_mask.shape[1:]
        alpha_s = self.coarse_weights(q, chunk_keys_t, chunk_mask)  # (B, T, M)
        choice = choose_chunks(alpha_s.reshape(B * T, M), mode, samples=samples, read=read)
        if choice.chunks is not None:  # argmax: only the chosen chunks' words
            rows = torch.arange(B, device=q.device).repeat_interleave(T)  # (B*T,) the document of each row
            words = values.view(B, M, N, -1)  # (B, M, N, H)
            fetch = lambda chunks: words[rows.unsqueeze(1), chunks]  # noqa: E731  (B*T, k) -> (B*T, k, N, H)
            ctx, attn = self._read_chosen(q.reshape(B * T, -1), choice, word_mask, rows, fetch, sparse=False)
        else:  # every chunk, weighted
            scores = torch.bmm(self.W_w(q), keys_t).view(B, T, M, N)
            alpha_w = masked_softmax(scores, word_mask.unsqueeze(1))  # (B, T, M, N) per chunk
            assert choice.weights is not None  # every chunk is read with a weight
            attn = choice.weights.view(B, T, M, 1) * alpha_w  # (B, T, M, N)
            ctx = torch.bmm(attn.view(B, T, M * N), values)  # (B, T, H)
        return _output(query, ctx, attn, alpha_s, choice.policy)

    def forward_lazy(
        self,
        query: Tensor,
        chunk_keys_t: Tensor,
        chunk_mask: Tensor,
        word_mask: Tensor,
        fetch: Callable[[Tensor], Tensor],
        *,
        mode: str,
        samples: int = 1,
        read: int = 1,
        sparse: bool = False,
    ) -> Context:
        """Hard attention (MODEL 3) that needs word states only for the chunks it picks (thesis 4.4:
        O(M + N) per step): the coarse scores of every step in one product, the chunks of every
        step chosen at once, and their union fetched (encoded) in one call.

        Args:
            query ``(B, T, Hd)`` or one step ``(B, Hd)``; chunk_keys_t ``(B, Hc, M)``; chunk_mask
            ``(B, M)``; word_mask ``(B, M, N)``.
            fetch: the chosen chunks ``(B*T, k)`` of row ``b * T + t`` (query row b) -> their word
                states ``(B*T, k, N, H)`` (encoding them on demand).
            mode: ``argmax`` (test: the ``read`` chunks of highest alpha^s) or ``sample``
                (training, ``samples`` draws).
            sparse: one step's ``attn`` as a sparse COO tensor (only the chosen chunks are stored).
        Returns:
            as :meth:`forward`.
        """
        q = query.unsqueeze(1) if query.dim() == 2 else query  # (B, T, Hd)
        B, T, _ = q.shape
        M = word_mask.size(1)
        alpha_s = self.coarse_weights(q, chunk_keys_t, chunk_mask)  # (B, T, M)
        choice = choose_chunks(alpha_s.reshape(B * T, M), mode, samples=samples, read=read, every=False)
        rows = torch.arange(B, device=q.device).repeat_interleave(T)  # (B*T,) each row its own mask row
        ctx, attn = self._read_chosen(q.reshape(B * T, -1), choice, word_mask, rows, fetch, sparse=sparse)
        return _output(query, ctx, attn, alpha_s, choice.policy)

    def _read_chosen(
        self,
        query: Tensor,
        choice: Choice,
        word_mask: Tensor,
        rows: Tensor,
        fetch: Callable[[Tensor], Tensor],
        *,
        sparse: bool,
    ) -> tuple[Tensor, Tensor]:
        """Fine attention of R query rows ``(R, Hd)`` inside their chosen chunks ``choice.chunks``
        ``(R, k)`` (word states from ``fetch``); row r reads the mask of row ``rows[r]`` of
        ``word_mask`` ``(D, M, N)``. Returns the context ``(R, H)`` and attention ``(R, M, N)``."""
        assert choice.chunks is not None  # the chunks to read were chosen
        mask = word_mask[rows.unsqueeze(1), choice.chunks]  # (R, k, N)
        alpha_w, ctx = self.read_chunks(query, fetch(choice.chunks), mask, choice.weights)
        return ctx, scatter_chunks(alpha_w, choice.chunks, word_mask.size(1), sparse=sparse)

    def read_chunks(
        self, query: Tensor, words: Tensor, mask: Tensor, weights: Tensor | None = None
    ) -> tuple[Tensor, Tensor]:
        """Fine attention inside k chosen chunks per row, each weighted 1/k (or by ``weights``).

        Args:
            query ``(B, Hd)``; words ``(B, k, N, H)`` the chosen chunks' word states (a chunk may
            appear twice: +MULTI draws with replacement); mask ``(B, k, N)``; weights ``(B, k)``
            summing to 1 per row, or None for 1/k each.
        Returns:
            alpha_w ``(B, k, N)`` (each chunk's softmax times its weight) and the context ``(B, H)``.
        """
        B, k, N, H = words.shape
        flat = words.reshape(B, k * N, H)
        scores = torch.bmm(flat, self.W_w(query).unsqueeze(-1)).view(B, k, N)  # (B, k, N)
        alpha_w = masked_softmax(scores, mask)
        if weights is not None and k > 1:  # one chunk: its weight is 1
            alpha_w = alpha_w * weights.unsqueeze(-1)
        elif k > 1:
            alpha_w = alpha_w / k  # alpha~^s = mu / k
        ctx = torch.bmm(alpha_w.view(B, 1, k * N), flat).squeeze(1)  # (B, H)
        return alpha_w, ctx


def _output(query: Tensor, ctx: Tensor, attn: Tensor, alpha_s: Tensor, policy: Tensor | None) -> Context:
    """The outputs of B*T rows ``(B*T, ...)`` shaped as ``query`` asked: ``(B, T, ...)``, or
    ``(B, ...)`` for one step ``(B, Hd)`` (a sparse ``attn`` stays ``(B, M, N)``: one step only)."""
    B, T, M = alpha_s.shape
    if query.dim() == 2:
        attention = Attention(attn if attn.is_sparse else attn.view(B, M, -1), alpha_s.squeeze(1), policy)
        return Context(ctx=ctx.view(B, -1), attention=attention)
    attention = Attention(attn.view(B, T, M, -1), alpha_s, None if policy is None else policy.view(B, T))
    return Context(ctx=ctx.view(B, T, -1), attention=attention)


def scatter_chunks(alpha_w: Tensor, choice: Tensor, M: int, *, sparse: bool) -> Tensor:
    """Place the fine attention of the chosen chunks ``(B, k, N)`` into a ``(B, M, N)`` grid.

    Repeated chunks add up. Out of place (autograd can go through it). With ``sparse`` the
    result is a sparse COO tensor holding only the chosen chunks (B * k * N values).
    """
    B, k, N = alpha_w.shape
    if sparse:
        rows = torch.arange(B, device=choice.device).view(B, 1, 1).expand(B, k, N)
        cols = torch.arange(N, device=choice.device).view(1, 1, N).expand(B, k, N)
        idx = torch.stack([rows.reshape(-1), choice.unsqueeze(-1).expand(B, k, N).reshape(-1), cols.reshape(-1)])
        return torch.sparse_coo_tensor(idx, alpha_w.reshape(-1), (B, M, N), check_invariants=False).coalesce()
    rows = torch.arange(B, device=choice.device).unsqueeze(1).expand(B, k)
    zeros = alpha_w.new_zeros(B, M, N)
    return zeros.index_put((rows, choice), alpha_w, accumulate=True)


def top_chunks(alpha_s: Tensor, k: int) -> tuple[Tensor, Tensor]:
    """The ``k`` chunks of highest alpha^s ``(B, M)`` per row and their weights, alpha^s
    renormalized over them: indices and weights ``(B, k)`` each, highest first.

    ``k`` = 1 is the thesis's test-time argmax (weight 1). Larger ``k`` is c2fsum's top-k reading:
    rows with fewer than ``k`` non-empty chunks repeat their first chunk with weight 0.
    """
    if k < 1:
        raise ValueError(f"decode.read_chunks: expected >= 1, got {k}")
    if k == 1:
        return alpha_s.argmax(-1, keepdim=True), alpha_s.new_ones(alpha_s.size(0), 1)
    top, choice = alpha_s.topk(min(k, alpha_s.size(-1)), dim=-1)  # (B, k)
    empty = top <= 0
    choice = torch.where(empty, choice[:, :1], choice)  # a real chunk, read with weight 0
    top = top.masked_fill(empty, 0.0)
    return choice, top / top.sum(-1, keepdim=True).clamp(min=torch.finfo(top.dtype).tiny)


def draw_chunks(alpha_s: Tensor, k: int) -> Tensor:
    """k chunk indices per row drawn with replacement from alpha^s ``(B, M)`` -> ``(B, k)`` long."""
    if k < 1:
        raise ValueError(f"model.samples: expected >= 1, got {k}")
    return torch.multinomial(alpha_s.detach(), k, replacement=True)


def multinomial_logp(alpha_s: Tensor, draws: Tensor) -> Tensor:
    """log p(mu) ``(B,)`` of the counts mu of ``draws`` ``(B, k)`` under Multinomial(k, alpha^s).

    log p(mu) = log(k! / prod_i mu_i!) + sum_i mu_i log alpha^s_i; the gradient reaches
    alpha^s through the second term (the multinomial coefficient is constant).
    """
    k = draws.size(1)
    mu = torch.zeros_like(alpha_s).scatter_add_(1, draws, torch.ones_like(draws, dtype=alpha_s.dtype))
    logp = (mu * torch.log(alpha_s.clamp(min=1e-30))).sum(-1)  # (B,)
    return logp + torch.lgamma(torch.tensor(k + 1.0, device=mu.device)) - torch.lgamma(mu + 1).sum(-1)


def sample_chunks(alpha_s: Tensor, k: int) -> tuple[Tensor, Tensor]:
    """Draw mu ~ Multinomial(k, alpha^s); return alpha~^s = mu / k ``(B, M)`` and log p(mu) ``(B,)``."""
    draws = draw_chunks(alpha_s, k)  # (B, k)
    mu = torch.zeros_like(alpha_s).scatter_add_(1, draws, torch.ones_like(draws, dtype=alpha_s.dtype))
    return mu / k, multinomial_logp(alpha_s, draws)
