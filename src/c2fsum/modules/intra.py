"""Intra-decoder attention (Paulus, Xiong & Socher 2017, section 2.2; the intra-temporal
attention over the input is :class:`c2fsum.modules.attention.BilinearAttention` with ``temporal``).

Paulus eq. 6-8::

    e^d_tt' = h^d_t^T W^d_attn h^d_t'   (t' < t),   alpha^d = softmax_t'(e^d),
    c^d_t = sum_t' alpha^d_tt' h^d_t'   (c^d_1 = 0)
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from c2fsum.modules.attention import masked_softmax


class IntraDecoderAttention(nn.Module):
    """Attention over the decoder's own previous states h^d_1 .. h^d_{t-1}."""

    def __init__(self, *, hidden: int):
        super().__init__()
        self.W = nn.Linear(hidden, hidden, bias=False)

    def forward(self, h: Tensor, history: Tensor | None) -> tuple[Tensor, Tensor | None]:
        """h ``(B, H)``; history ``(B, t-1, H)`` or None at t = 1 -> c^d ``(B, H)``, weights ``(B, t-1)``."""
        if history is None or history.size(1) == 0:
            return torch.zeros_like(h), None
        scores = torch.bmm(history, self.W(h).unsqueeze(-1)).squeeze(-1)  # (B, t-1)
        alpha = torch.softmax(scores, -1)
        return torch.bmm(alpha.unsqueeze(1), history).squeeze(1), alpha

    def forward_steps(self, h: Tensor) -> Tensor:
        """Every step at once: h ``(B, T, H)`` the decoder's top outputs -> c^d ``(B, T, H)``, row t
        attending over h_1 .. h_{t-1} only (a strictly lower-triangular mask; c^d_1 = 0), what T
        calls of :meth:`forward` give."""
        T = h.size(1)
        scores = torch.bmm(self.W(h), h.transpose(1, 2))  # (B, T, T): [t, t'] = h_t'^T W h_t
        before = torch.ones(T, T, dtype=torch.bool, device=h.device).tril(-1)  # t' < t
        alpha = masked_softmax(scores, before.unsqueeze(0))  # row 0: all zero
        return torch.bmm(alpha, h)
