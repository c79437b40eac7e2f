"""Attention over the words of the grid (MODEL 0 and MODEL 1).

Bilinear ("general", Luong et al. 2015) scores, thesis eq. 3.4:
    beta_i = h_i^T W h_dec,   alpha = softmax(beta) over real words,   c~ = sum_i alpha_i h_i
The model then forms the attentional output c = tanh(W2 [c~; h_dec]) (thesis eq. 3.5).

What every source attention returns is declared here, once: :class:`Attention` (where the decoder
read: word attention, chunk attention, the hard choice's log-probability), carried as it is by the
decoder's, the step's and the teacher-forced pass's outputs, inside :class:`Context` (what one
attention call returns).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from c2fsum.modules.deferred import StepMatrix

NEG_INF = float("-inf")


@dataclass
class Attention:
    """Where the decoder read, for one step (the shapes below without T) or every step of a
    teacher-forced pass (a T dimension after B)."""

    attn: Tensor
    """``(B, [T,] M, N)`` word attention alpha (sums to 1 over real words; with the sampled / argmax
    chunk weights of hard coarse attention); a sparse COO ``(B, M, N)`` holding the chosen chunks
    only when hard coarse attention decodes lazily."""
    coarse: Tensor | None = None
    """``(B, [T,] M)`` chunk attention alpha^s (before any sampling) of hierarchical models, else None."""
    policy: Tensor | None = None
    """``(B, [T])`` log-probability of the hard chunk choice (MODEL 3 in training), else None."""

    @staticmethod
    def stack(steps: list[Attention]) -> Attention:
        """T one-step attentions ``(B, ...)`` -> every step ``(B, T, ...)``."""
        return Attention(
            attn=torch.stack([s.attn for s in steps], 1),  # (B, T, M, N)
            coarse=stack_steps([s.coarse for s in steps]),  # (B, T, M)
            policy=stack_steps([s.policy for s in steps]),  # (B, T)
        )


def stack_steps(steps: list[Tensor | None]) -> Tensor | None:
    """T one-step tensors ``(B, ...)`` -> ``(B, T, ...)``; None where the steps have none."""
    return None if steps[0] is None else torch.stack([s for s in steps if s is not None], 1)


@dataclass
class Context:
    """What a source attention returns for one step (or every step: a T dimension after B)."""

    ctx: Tensor
    """``(B, [T,] H)`` the context c~."""
    attention: Attention
    """Where it read: word attention ``(B, [T,] M, N)``, chunk attention and policy where they exist."""
    past: Tensor | None = None
    """``(B, S)`` the new intra-temporal state (one step of flat intra-temporal attention), or None."""
    coverage: Tensor | None = None
    """``(B, S)`` the new coverage c_{t+1} = c_t + alpha_t (See et al. 2017) of a model with coverage, or None."""


def masked_softmax(scores: Tensor, mask: Tensor, dim: int = -1) -> Tensor:
    """Softmax of ``scores`` over ``dim`` with zero weight where ``mask`` is False.

    A slice with no True entry gets all-zero weights (not NaN).
    """
    scores = scores.masked_fill(~mask, NEG_INF)
    mx = scores.amax(dim, keepdim=True).clamp(min=-1e30)
    e = torch.exp(scores - mx) * mask.to(scores.dtype)
    z = e.sum(dim, keepdim=True)
    return e / z.clamp(min=torch.finfo(scores.dtype).tiny)


class BilinearAttention(nn.Module):
    """Attention over all S = M*N words with bilinear scores, optionally intra-temporal.

    Scores (thesis eq. 3.4; Paulus eq. 2): e_ti = h_dec^T W h_i, as beta_i = h_i^T W h_dec.
    Plain: alpha_t = softmax_i(e_ti). Intra-temporal (Paulus eq. 3-4): e'_ti = exp(e_ti) /
    sum_{j<t} exp(e_ji) for t > 1, alpha_t = e'_t / sum_i e'_ti, computed in log space as
    softmax_i(e_ti - log sum_{j<t} exp(e_ji)); the running log-sum ``past`` ``(B, S)`` is part of
    the decoder state. ``prepare`` runs once per batch, ``forward`` once per decoder step.

    Coverage (See et al. 2017, eq. 10-11): with ``coverage``, the key of word i carries the sum of
    the attention it received so far, c_ti = sum_{j<t} alpha_ji, as h_i + c_ti w_c (See: W_h h_i +
    w_c c_i^t inside the additive score), so e_ti = h_dec^T W h_i + c_ti (h_dec^T W w_c): the
    decoder state decides how much attention already paid turns it away. The running ``coverage``
    ``(B, S)`` is part of the decoder state, zero before the first step.
    """

    def __init__(self, *, query_dim: int, key_dim: int, temporal: bool = False, coverage: bool = False):
        super().__init__()
        self.W = nn.Linear(query_dim, key_dim, bias=False)
        self.temporal = temporal
        self.coverage_w = nn.Parameter(torch.zeros(key_dim)) if coverage else None
        """w_c ``(H,)`` of coverage (See et al. eq. 11), or None."""

    @staticmethod
    def prepare(words: Tensor) -> tuple[Tensor, Tensor]:
        """``(B, M, N, H)`` -> values ``(B, S, H)`` and contiguous keys ``(B, H, S)``.

        The transposed copy makes the per-step score product a fast ``(1,H)x(H,S)`` bmm.
        """
        B, M, N, H = words.shape
        values = words.reshape(B, M * N, H)
        return values, values.transpose(1, 2).contiguous()

    @staticmethod
    def prepare_steps(values: Tensor, keys_t: Tensor) -> tuple[StepMatrix, StepMatrix]:
        """Values ``(B, S, H)`` and keys ``(B, H, S)`` (from :meth:`prepare`) as :class:`StepMatrix`:
        the same results, but their gradients are formed once per batch instead of once per step."""
        return StepMatrix(values, m_t=keys_t), StepMatrix(keys_t, m_t=values)

    def forward(
        self,
        query: Tensor,
        values: Tensor | StepMatrix,
        keys_t: Tensor | StepMatrix,
        mask: Tensor,
        past: Tensor | None = None,
        coverage: Tensor | None = None,
    ) -> tuple[Tensor, Tensor, Tensor | None]:
        """One step for ``B * R`` decoder rows against ``B`` memory rows: row ``b * R + r`` reads
        document ``b`` (R = 1 but for the beams of a beam search, which share their document's
        memory: the fast twin of this attention over the memory copied R times).

        Args:
            query: decoder states ``(B*R, Hd)``;
            values ``(B, S, H)``; keys_t ``(B, H, S)`` (either may be a :class:`StepMatrix` from
                :meth:`prepare_steps`);
            mask: ``(B, S)`` True on real words; past: ``(B*R, S)`` log sum_{j<t} exp(e_ji) or None.
            coverage: ``(B*R, S)`` c_t = sum_{j<t} alpha_j (a model with coverage; None: zero).
        Returns:
            context c~ ``(B*R, H)``, weights ``(B*R, S)`` (sum to 1 over real words), the new
            ``past`` ``(B*R, S)`` (None unless temporal).
        """
        B, S = mask.shape
        R = query.size(0) // B
        q = self.W(query).view(B, R, -1)  # (B, R, H)
        e = _left_mul(q, keys_t)  # (B, R, S)  e_ti
        if self.coverage_w is not None and coverage is not None:  # See et al. eq. 11: + c_ti (q . w_c)
            e = e + coverage.view(B, R, S) * (q @ self.coverage_w).unsqueeze(-1)
        mask = mask.unsqueeze(1)  # (B, 1, S)
        new_past = None
        if self.temporal:
            e = e.masked_fill(~mask, -1e4)  # padding stays finite in the log-sum
            before = None if past is None else past.view(B, R, S)
            scores = e if before is None else e - before  # log e'_ti
            new_past = (e if before is None else torch.logaddexp(before, e)).view(B * R, S)
        else:
            scores = e
        alpha = masked_softmax(scores, mask)  # (B, R, S)
        ctx = _left_mul(alpha, values)  # (B, R, H)  c~
        return ctx.view(B * R, -1), alpha.view(B * R, S), new_past

    def forward_steps(self, query: Tensor, values: Tensor, keys_t: Tensor, mask: Tensor) -> tuple[Tensor, Tensor]:
        """Every step of a teacher-forced target at once: what T calls of :meth:`forward` give.

        Args:
            query: decoder states ``(B, T, Hd)``; values ``(B, S, H)``; keys_t ``(B, H, S)``;
            mask ``(B, S)`` True on real words.
        Returns:
            contexts c~ ``(B, T, H)`` and weights ``(B, T, S)``.

        Intra-temporal (Paulus eq. 3-4): the log-sum over the steps before t of every word,
        log sum_{j<t} exp(e_ji), is the running ``logcumsumexp`` of the scores over t, shifted
        by one step (step 1 divides by nothing).
        """
        if self.coverage_w is not None:
            raise ValueError("BilinearAttention.forward_steps: coverage depends on every earlier step; call forward")
        mask = mask.unsqueeze(1)  # (B, 1, S)
        e = torch.bmm(self.W(query), keys_t)  # (B, T, S)  e_ti
        if self.temporal:
            e = e.masked_fill(~mask, -1e4)  # padding stays finite in the log-sum, as in forward
            before = torch.logcumsumexp(e, 1)[:, :-1]  # (B, T-1, S): log sum_{j<=t} exp(e_ji)
            e = torch.cat([e[:, :1], e[:, 1:] - before], 1)  # log e'_ti
        alpha = masked_softmax(e, mask)  # (B, T, S)
        return torch.bmm(alpha, values), alpha


def _left_mul(a: Tensor, m: Tensor | StepMatrix) -> Tensor:
    """``a`` ``(B, R, X)`` @ ``m`` ``(B, X, Y)``."""
    return m.left_mul(a) if isinstance(m, StepMatrix) else torch.bmm(a, m)
