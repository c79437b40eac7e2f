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
callback for the word states of the chosen chunks only (thesis 4.4: O(M + N) per step).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from c2fsum.modules.attention import masked_softmax


@dataclass
class HierarchicalAttentionOutput:
    ctx: Tensor
    """``(B, H)`` context c~."""
    attn: Tensor
    """``(B, M, N)`` final word attention alpha (with the sampled / argmax chunk weights if hard)."""
    coarse: Tensor
    """``(B, M)`` soft chunk attention alpha^s (before sampling)."""
    policy: Tensor | None
    """``(B,)`` log-probability of the hard choice (training, hard mode), else None."""


class CoarseToFineAttention(nn.Module):
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
        """alpha^s ``(B, M)``."""
        scores = torch.bmm(self.W_s(query).unsqueeze(1), chunk_keys_t).squeeze(1)  # (B, M)
        return masked_softmax(scores, chunk_mask)

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
    ) -> HierarchicalAttentionOutput:
        """One step.

        Args:
            query ``(B, Hd)``; values ``(B, S, H)``; keys_t ``(B, H, S)``; chunk_keys_t ``(B, Hc, M)``;
            word_mask ``(B, M, N)``; chunk_mask ``(B, M)``.
            mode: ``soft``, ``sample`` (hard, training: draw ``samples`` chunks) or ``argmax``
                (test: the ``read`` chunks of highest alpha^s, see :func:`top_chunks`).
        """
        B, M, N = word_mask.shape
        alpha_s = self.coarse_weights(query, chunk_keys_t, chunk_mask)  # (B, M)
        if mode == "argmax":
            return self._argmax(query, values, alpha_s, word_mask, read)
        q_w = self.W_w(query).unsqueeze(1)  # (B, 1, H)
        scores = torch.bmm(q_w, keys_t).view(B, M, N)  # (B, M, N)
        alpha_w = masked_softmax(scores, word_mask)  # per chunk
        policy = None
        if mode == "soft":
            weights = alpha_s
        elif mode == "sample":
            weights, policy = sample_chunks(alpha_s, samples)
        else:
            raise ValueError(f"attention mode: got {mode!r}, expected soft, sample or argmax")
        alpha = weights.unsqueeze(-1) * alpha_w  # (B, M, N)
        ctx = torch.bmm(alpha.view(B, 1, M * N), values).squeeze(1)  # (B, H)
        return HierarchicalAttentionOutput(ctx=ctx, attn=alpha, coarse=alpha_s, policy=policy)

    def _argmax(
        self, query: Tensor, values: Tensor, alpha_s: Tensor, word_mask: Tensor, read: int = 1
    ) -> HierarchicalAttentionOutput:
        """Test-time hard attention that reads only the chosen chunks' N words each."""
        B, M, N = word_mask.shape
        H = values.size(-1)
        choice, weights = top_chunks(alpha_s, read)  # (B, k) each
        rows = torch.arange(B, device=values.device).unsqueeze(1)  # (B, 1)
        words = values.view(B, M, N, H)[rows, choice]  # (B, k, N, H)
        alpha_w, ctx = self.read_chunks(query, words, word_mask[rows, choice], weights)
        attn = scatter_chunks(alpha_w, choice, M, sparse=False)
        return HierarchicalAttentionOutput(ctx=ctx, attn=attn, coarse=alpha_s, policy=None)

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
    ) -> HierarchicalAttentionOutput:
        """Hard attention (MODEL 3) that needs word states only for the chunks it picks.

        Args:
            query ``(B, Hd)``; chunk_keys_t ``(B, Hc, M)``; chunk_mask ``(B, M)``; word_mask ``(B, M, N)``.
            fetch: maps the chosen chunk indices ``(B, k)`` to their word states ``(B, k, N, H)``
                (encoding them on demand).
            mode: ``argmax`` (test: the ``read`` chunks of highest alpha^s) or ``sample``
                (training, ``samples`` draws).
            sparse: return ``attn`` as a sparse COO tensor (only the chosen chunks are stored).
        """
        alpha_s = self.coarse_weights(query, chunk_keys_t, chunk_mask)  # (B, M)
        rows = torch.arange(query.size(0), device=query.device)  # (B,) each row its own mask row
        return self._read_lazy(query, alpha_s, word_mask, rows, fetch, mode, samples, read, sparse)

    def forward_steps(
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
    ) -> HierarchicalAttentionOutput:
        """Every step of a teacher-forced target at once: what T calls of :meth:`forward` give
        (hard modes: the same distribution of chunk draws).

        Args:
            query ``(B, T, Hd)``; values ``(B, S, H)``; keys_t ``(B, H, S)``; chunk_keys_t
            ``(B, Hc, M)``; word_mask ``(B, M, N)``; chunk_mask ``(B, M)``; modes as in :meth:`forward`.
        Returns:
            ctx ``(B, T, H)``, attn ``(B, T, M, N)``, coarse ``(B, T, M)``, policy ``(B, T)`` or None.
        """
        B, T, _ = query.shape
        M, N = word_mask.shape[1:]
        alpha_s = self.coarse_steps(query, chunk_keys_t, chunk_mask)  # (B, T, M)
        if mode == "argmax":
            rows = torch.arange(B, device=query.device).repeat_interleave(T)  # (B*T,) the document of each row
            choice, weights = top_chunks(alpha_s.reshape(B * T, M), read)  # (B*T, k) each
            words = values.view(B, M, N, -1)[rows.unsqueeze(1), choice]  # (B*T, k, N, H)
            mask = word_mask[rows.unsqueeze(1), choice]  # (B*T, k, N)
            alpha_w, ctx = self.read_chunks(query.reshape(B * T, -1), words, mask, weights)
            attn = scatter_chunks(alpha_w, choice, M, sparse=False)  # (B*T, M, N)
            return HierarchicalAttentionOutput(
                ctx=ctx.view(B, T, -1), attn=attn.view(B, T, M, N), coarse=alpha_s, policy=None
            )
        scores = torch.bmm(self.W_w(query), keys_t).view(B, T, M, N)
        alpha_w = masked_softmax(scores, word_mask.unsqueeze(1))  # (B, T, M, N) per chunk
        policy = None
        if mode == "soft":
            weights = alpha_s
        elif mode == "sample":
            drawn, logp = sample_chunks(alpha_s.reshape(B * T, M), samples)  # (B*T, M), (B*T,)
            weights, policy = drawn.view(B, T, M), logp.view(B, T)
        else:
            raise ValueError(f"attention mode: got {mode!r}, expected soft, sample or argmax")
        alpha = weights.unsqueeze(-1) * alpha_w  # (B, T, M, N)
        ctx = torch.bmm(alpha.view(B, T, M * N), values)  # (B, T, H)
        return HierarchicalAttentionOutput(ctx=ctx, attn=alpha, coarse=alpha_s, policy=policy)

    def forward_lazy_steps(
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
    ) -> HierarchicalAttentionOutput:
        """:meth:`forward_lazy` for every step of a teacher-forced target at once: the coarse
        scores of all steps in one product, the chunks of all steps drawn at once, and the union
        of the drawn chunks fetched (encoded) in one call.

        Args:
            query ``(B, T, Hd)``; chunk_keys_t ``(B, Hc, M)``; chunk_mask ``(B, M)``; word_mask
            ``(B, M, N)``.
            fetch: the chosen chunks ``(B*T, k)`` of row ``b * T + t`` (document b) -> their word
                states ``(B*T, k, N, H)``.
        Returns:
            ctx ``(B, T, H)``, dense attn ``(B, T, M, N)``, coarse ``(B, T, M)``, policy ``(B, T)`` or None.
        """
        B, T, _ = query.shape
        M, N = word_mask.shape[1:]
        alpha_s = self.coarse_steps(query, chunk_keys_t, chunk_mask)  # (B, T, M)
        rows = torch.arange(B, device=query.device).repeat_interleave(T)  # (B*T,)
        o = self._read_lazy(
            query.reshape(B * T, -1), alpha_s.reshape(B * T, M), word_mask, rows, fetch, mode, samples, read, False
        )
        policy = None if o.policy is None else o.policy.view(B, T)
        return HierarchicalAttentionOutput(
            ctx=o.ctx.view(B, T, -1), attn=o.attn.view(B, T, M, N), coarse=alpha_s, policy=policy
        )

    def coarse_steps(self, query: Tensor, chunk_keys_t: Tensor, chunk_mask: Tensor) -> Tensor:
        """alpha^s of every step at once: query ``(B, T, Hd)`` -> ``(B, T, M)``."""
        scores = torch.bmm(self.W_s(query), chunk_keys_t)  # (B, T, M)
        return masked_softmax(scores, chunk_mask.unsqueeze(1))

    def _read_lazy(
        self,
        query: Tensor,
        alpha_s: Tensor,
        word_mask: Tensor,
        rows: Tensor,
        fetch: Callable[[Tensor], Tensor],
        mode: str,
        samples: int,
        read: int,
        sparse: bool,
    ) -> HierarchicalAttentionOutput:
        """Choose chunks from alpha^s ``(R, M)``, fetch them and attend inside them for R query
        rows ``(R, Hd)``; row r reads the mask of document ``rows[r]`` of ``word_mask`` ``(D, M, N)``."""
        M = word_mask.size(1)
        policy = weights = None
        if mode == "argmax":
            choice, weights = top_chunks(alpha_s, read)  # (R, k) each
        elif mode == "sample":
            choice = draw_chunks(alpha_s, samples)  # (R, k)
            policy = multinomial_logp(alpha_s, choice)
        else:
            raise ValueError(f"lazy attention mode: got {mode!r}, expected sample or argmax")
        mask = word_mask[rows.unsqueeze(1), choice]  # (R, k, N)
        alpha_w, ctx = self.read_chunks(query, fetch(choice), mask, weights)
        attn = scatter_chunks(alpha_w, choice, M, sparse=sparse)
        return HierarchicalAttentionOutput(ctx=ctx, attn=attn, coarse=alpha_s, policy=policy)


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
