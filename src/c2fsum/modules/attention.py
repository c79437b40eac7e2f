"""Attention over the words of the grid (MODEL 0 and MODEL 1).

Bilinear ("general", Luong et al. 2015) scores, thesis eq. 3.4:
    beta_i = h_i^T W h_dec,   alpha = softmax(beta) over real words,   c~ = sum_i alpha_i h_i
and the attentional output, thesis eq. 3.5:  c = tanh(W2 [c~; h_dec]).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

NEG_INF = float("-inf")


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
    """Soft attention over all S = M*N words of a document.

    ``prepare`` is called once per batch; ``forward`` once per decoder step.
    """

    def __init__(self, *, query_dim: int, key_dim: int, out_dim: int):
        super().__init__()
        self.W = nn.Linear(query_dim, key_dim, bias=False)   # W h_dec
        self.out = nn.Linear(key_dim + query_dim, out_dim, bias=False)  # W2 [c~; h_dec]

    @staticmethod
    def prepare(words: Tensor) -> tuple[Tensor, Tensor]:
        """``(B, M, N, H)`` -> values ``(B, S, H)`` and contiguous keys ``(B, H, S)``.

        The transposed copy makes the per-step score product a fast ``(1,H)x(H,S)`` bmm.
        """
        B, M, N, H = words.shape
        values = words.reshape(B, M * N, H)
        return values, values.transpose(1, 2).contiguous()

    def forward(self, query: Tensor, values: Tensor, keys_t: Tensor, mask: Tensor
                ) -> tuple[Tensor, Tensor]:
        """One step.

        Args:
            query: decoder state ``(B, Hd)``; values ``(B, S, H)``; keys_t ``(B, H, S)``;
            mask: ``(B, S)`` True on real words.
        Returns:
            attentional output ``(B, out_dim)`` and weights ``(B, S)`` (sum to 1 over real words).
        """
        q = self.W(query).unsqueeze(1)                         # (B, 1, H)
        scores = torch.bmm(q, keys_t).squeeze(1)               # (B, S)  beta_i
        alpha = masked_softmax(scores, mask)                   # (B, S)
        ctx = torch.bmm(alpha.unsqueeze(1), values).squeeze(1)  # (B, H)  c~
        out = torch.tanh(self.out(torch.cat([ctx, query], -1)))  # (B, out_dim)  c
        return out, alpha
