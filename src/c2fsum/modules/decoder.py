"""The decoder cell: a stack of LSTM cells with input feeding."""

from __future__ import annotations

import torch
from torch import Tensor, nn


class InputFeedingLSTM(nn.Module):
    """L stacked LSTM cells; the input at step t is ``[emb(y_{t-1}); c_{t-1}]``.

    Dropout is applied between layers (not on the top output, which the caller handles).
    """

    def __init__(self, *, input_dim: int, hidden: int, layers: int, dropout: float):
        super().__init__()
        self.cells = nn.ModuleList(
            nn.LSTMCell(input_dim if i == 0 else hidden, hidden) for i in range(layers))
        self.dropout = nn.Dropout(dropout)
        self.hidden = hidden
        self.layers = layers

    def forward(self, x: Tensor, h: Tensor, c: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """One step.

        Args:
            x: ``(B, I)``; h, c: ``(L, B, H)``.
        Returns:
            top output ``(B, H)`` and new ``h``, ``c`` ``(L, B, H)``.
        """
        hs, cs = [], []
        inp = x
        for i, cell in enumerate(self.cells):
            hi, ci = cell(inp, (h[i], c[i]))
            hs.append(hi)
            cs.append(ci)
            inp = self.dropout(hi) if i + 1 < self.layers else hi
        return inp, torch.stack(hs), torch.stack(cs)
