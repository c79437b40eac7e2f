"""Coarse-to-fine attention (thesis sections 4.3 and 4.4).

Coarse attention over chunks and fine attention over the words of each chunk::

    alpha^s_i  = softmax_i( h^s_i^T W_s h_dec )                over chunks        (B, M)
    alpha^w_ij = softmax_j( h_ij^T  W_w h_dec )                inside chunk i     (B, M, N)
    alpha_ij   = alpha^s_i * alpha^w_ij                         sums to 1          (B, M, N)
    c~ = sum_ij alpha_ij h_ij          (the model forms c = tanh(W2 [c~; h_dec]) as for MODEL 0)

Soft (MODEL 2) uses alpha^s as is. Hard (MODEL 3) replaces it by a one-hot sample in
training (``k`` samples: mu ~ Multinomial(k, alpha^s), alpha~^s = mu / k, thesis +MULTI) and
by the argmax at test time, and returns the log-probability of the choice for REINFORCE.
At test time the hard path reads only the chosen chunk: its cost per step is O(N), not O(M N).
"""

from __future__ import annotations

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
        scores = torch.bmm(self.W_s(query).unsqueeze(1), chunk_keys_t).squeeze(1)   # (B, M)
        return masked_softmax(scores, chunk_mask)

    def forward(self, query: Tensor, values: Tensor, keys_t: Tensor, chunk_keys_t: Tensor,
                word_mask: Tensor, chunk_mask: Tensor, *, mode: str = "soft", samples: int = 1
                ) -> HierarchicalAttentionOutput:
        """One step.

        Args:
            query ``(B, Hd)``; values ``(B, S, H)``; keys_t ``(B, H, S)``; chunk_keys_t ``(B, Hc, M)``;
            word_mask ``(B, M, N)``; chunk_mask ``(B, M)``.
            mode: ``soft``, ``sample`` (hard, training: draw ``samples`` chunks) or ``argmax``.
        """
        B, M, N = word_mask.shape
        alpha_s = self.coarse_weights(query, chunk_keys_t, chunk_mask)               # (B, M)
        if mode == "argmax":
            return self._argmax(query, values, alpha_s, word_mask)
        q_w = self.W_w(query).unsqueeze(1)                                           # (B, 1, H)
        scores = torch.bmm(q_w, keys_t).view(B, M, N)                                # (B, M, N)
        alpha_w = masked_softmax(scores, word_mask)                                  # per chunk
        policy = None
        if mode == "soft":
            weights = alpha_s
        elif mode == "sample":
            weights, policy = sample_chunks(alpha_s, samples)
        else:
            raise ValueError(f"attention mode: got {mode!r}, expected soft, sample or argmax")
        alpha = weights.unsqueeze(-1) * alpha_w                                      # (B, M, N)
        ctx = torch.bmm(alpha.view(B, 1, M * N), values).squeeze(1)                  # (B, H)
        return HierarchicalAttentionOutput(ctx=ctx, attn=alpha, coarse=alpha_s, policy=policy)

    def _argmax(self, query: Tensor, values: Tensor, alpha_s: Tensor, word_mask: Tensor
                ) -> HierarchicalAttentionOutput:
        """Test-time hard attention that reads only the chosen chunk's N words."""
        B, M, N = word_mask.shape
        H = values.size(-1)
        choice = alpha_s.argmax(-1)                                                  # (B,)
        rows = torch.arange(B, device=values.device)
        words = values.view(B, M, N, H)[rows, choice]                                # (B, N, H)
        mask = word_mask[rows, choice]                                               # (B, N)
        scores = torch.bmm(words, self.W_w(query).unsqueeze(-1)).squeeze(-1)         # (B, N)
        alpha_w = masked_softmax(scores, mask)
        ctx = torch.bmm(alpha_w.unsqueeze(1), words).squeeze(1)                      # (B, H)
        attn = values.new_zeros(B, M, N)
        attn[rows, choice] = alpha_w
        return HierarchicalAttentionOutput(ctx=ctx, attn=attn, coarse=alpha_s, policy=None)


def sample_chunks(alpha_s: Tensor, k: int) -> tuple[Tensor, Tensor]:
    """Draw mu ~ Multinomial(k, alpha^s); return alpha~^s = mu / k ``(B, M)`` and log p(mu) ``(B,)``.

    log p(mu) = log(k! / prod_i mu_i!) + sum_i mu_i log alpha^s_i; the gradient reaches
    alpha^s through the second term (the multinomial coefficient is constant).
    """
    if k < 1:
        raise ValueError(f"model.samples: expected >= 1, got {k}")
    draws = torch.multinomial(alpha_s.detach(), k, replacement=True)                # (B, k)
    mu = torch.zeros_like(alpha_s).scatter_add_(1, draws, torch.ones_like(draws, dtype=alpha_s.dtype))
    logp = (mu * torch.log(alpha_s.clamp(min=1e-30))).sum(-1)                        # (B,)
    logp = logp + torch.lgamma(torch.tensor(k + 1.0, device=mu.device)) - torch.lgamma(mu + 1).sum(-1)
    return mu / k, logp
