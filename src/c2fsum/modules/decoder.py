"""The decoder cell: a stack of LSTM cells with input feeding.

Two ways to run the same cells, with the same results:

* :meth:`InputFeedingLSTM.forward`, one step with ``nn.LSTMCell`` (decoding, and the reference);
* :meth:`InputFeedingLSTM.prepare_steps` + :meth:`InputFeedingLSTM.step`, for teacher forcing
  with gradients: the part of every step's input known in advance (the target embeddings) is
  multiplied by its weights once for all steps (one GEMM of B*T rows instead of T of B rows),
  each layer's remaining input and its recurrent state go through one product with the two
  weight matrices side by side, and the weight gradients are formed once per batch
  (:class:`c2fsum.modules.deferred.StepMatrix`) instead of as T rank-B products added one by one;
* :meth:`InputFeedingLSTM.run_steps`, for teacher forcing without input feeding: every step's
  input is known in advance, so each layer runs over all T steps in one LSTM call.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

import torch
from torch import Tensor, nn

from c2fsum.modules.deferred import StepMatrix


@dataclass
class DecoderSteps:
    """Per-batch tensors of the fast teacher-forcing path.

    Attributes:
        pre_gates: ``(B, T, 4H)`` the precomputed input's share of layer 0's gates, biases included.
        weights: per layer, ``[W_ih (rest of the input); W_hh]`` as a :class:`StepMatrix` ``(1, I_l + H, 4H)``.
        biases: per layer ``(4H,)`` b_ih + b_hh (None for layer 0, whose biases are in ``pre_gates``).
    """

    pre_gates: Tensor
    weights: list[StepMatrix]
    biases: list[Tensor | None]


def lstm_gates(gates: Tensor, c: Tensor) -> tuple[Tensor, Tensor]:
    """LSTM update from pre-activations ``gates`` ``(B, 4H)`` (order i, f, g, o as in nn.LSTMCell)
    and the cell ``c`` ``(B, H)`` -> new ``h``, ``c`` ``(B, H)``."""
    i, f, g, o = gates.chunk(4, 1)
    c1 = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c1), c1


class InputFeedingLSTM(nn.Module):
    """L stacked LSTM cells; the input at step t is ``[emb(y_{t-1}); c_{t-1}]``.

    Dropout is applied between layers (not on the top output, which the caller handles).
    """

    def __init__(self, *, input_dim: int, hidden: int, layers: int, dropout: float):
        super().__init__()
        self.cells = nn.ModuleList(nn.LSTMCell(input_dim if i == 0 else hidden, hidden) for i in range(layers))
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

    def run_steps(self, x: Tensor, h: Tensor, c: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """All T steps at once, for inputs known in advance (no input feeding).

        Args:
            x: ``(B, T, I)``; h, c: ``(L, B, H)`` the state before the first step.
        Returns:
            the top outputs of every step ``(B, T, H)`` and the state after the last, ``(L, B, H)``
            each: what T calls of :meth:`forward` return, stacked (dropout between layers is drawn
            for the whole sequence at once, as by ``nn.LSTM``).
        """
        inp = x
        hs, cs = [], []
        for i, cell in enumerate(cast(Iterable[nn.LSTMCell], self.cells)):
            params = [cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh]
            # one layer through ATen's LSTM (what nn.LSTM runs): (B, T, I_l) -> (B, T, H); its train
            # flag must be the module's: cuDNN refuses the backward of a pass run with train=False
            state = (h[i : i + 1], c[i : i + 1])
            out, hi, ci = torch._VF.lstm(inp, state, params, True, 1, 0.0, self.training, False, True)
            hs.append(hi)
            cs.append(ci)
            inp = self.dropout(out) if i + 1 < self.layers else out
        return inp, torch.cat(hs), torch.cat(cs)

    def prepare_steps(self, pre: Tensor) -> DecoderSteps:
        """``pre`` ``(B, T, P)``: the first P columns of every step's input ``x``, known in advance."""
        P = pre.size(-1)
        cell0 = cast(nn.LSTMCell, self.cells[0])
        pre_gates = nn.functional.linear(pre, cell0.weight_ih[:, :P], cell0.bias_ih + cell0.bias_hh)  # (B, T, 4H)
        weights, biases = [], []
        for i, cell in enumerate(cast(Iterable[nn.LSTMCell], self.cells)):
            w_ih = cell.weight_ih[:, P:] if i == 0 else cell.weight_ih
            w = torch.cat([w_ih, cell.weight_hh], 1)  # (4H, I_l + H)
            weights.append(StepMatrix(w.t().unsqueeze(0), m_t=w.unsqueeze(0)))
            biases.append(None if i == 0 else cell.bias_ih + cell.bias_hh)
        return DecoderSteps(pre_gates=pre_gates, weights=weights, biases=biases)

    def step(
        self, steps: DecoderSteps, t: int, rest: Tensor | None, h: Tensor, c: Tensor
    ) -> tuple[Tensor, Tensor, Tensor]:
        """Step ``t`` of the fast path; ``rest`` ``(B, I - P)`` is the rest of the input (or None).

        Same returns as :meth:`forward`.
        """
        hs, cs = [], []
        inp = rest
        for i in range(self.layers):
            a = h[i] if inp is None else torch.cat([inp, h[i]], -1)  # (B, I_l + H)
            gates = steps.weights[i].left_mul(a.unsqueeze(0)).squeeze(0)  # (B, 4H)
            gates = gates + (steps.pre_gates[:, t] if i == 0 else cast(Tensor, steps.biases[i]))  # None: layer 0
            hi, ci = lstm_gates(gates, c[i])
            hs.append(hi)
            cs.append(ci)
            inp = self.dropout(hi) if i + 1 < self.layers else hi
        assert inp is not None  # layers >= 1
        return inp, torch.stack(hs), torch.stack(cs)
