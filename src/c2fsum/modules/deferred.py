"""A matrix read once per decoder step, whose gradient is formed once per batch.

Attention multiplies the same memory matrix ``M`` ``(B, X, Y)`` (keys or values, built once per
batch) by one small ``a_t`` ``(B, R, X)`` at every decoder step t. Plain autograd then forms, in
backward, one rank-R outer product ``a_t^T g_t`` ``(B, X, Y)`` per step and adds it to M's
gradient: T full-size writes and T full-size additions (for MODEL 0 at the paper's sizes, 16 x 2
matrices of 20 x 400 x 500 per training step, the largest item of the profile after the encoder).
:class:`StepMatrix` keeps the pairs ``(a_t, g_t)`` instead and forms

    dL/dM = sum_t a_t^T g_t = A^T G,    A = [a_1; ...; a_T] (B, T*R, X),  G = [g_1; ...; g_T] (B, T*R, Y)

with one batched matrix product once every step's backward has run. The gradient of ``a_t``,
``g_t M^T``, uses a contiguous ``M^T`` handed in by the caller (attention keeps both the values
``(B, S, H)`` and the keys ``(B, H, S)`` contiguous), so every product reads memory in its fast
orientation. The result equals plain autograd's up to the order of the float additions.

How the gradient waits for all steps: ``_Anchor`` turns M into an empty token that every step's
product takes as an input; autograd runs a node's backward only once all its consumers' backward
have run, so ``_Anchor.backward`` sees every ``(a_t, g_t)`` pair.

Without gradients (decoding, ``torch.no_grad``) or when M needs none, :meth:`StepMatrix.left_mul` is a
plain ``torch.bmm``.
"""

from __future__ import annotations

import torch
from torch import Tensor
from torch.autograd import Function


class _Stash:
    """The ``(a_t, g_t)`` pairs collected during backward."""

    def __init__(self) -> None:
        self.a: list[Tensor] = []
        self.g: list[Tensor] = []

    def reduce(self) -> Tensor | None:
        """``sum_t a_t^T g_t`` ``(B, X, Y)`` in one bmm, or None if no step needed a gradient."""
        if not self.a:
            return None
        A = torch.cat(self.a, 1) if len(self.a) > 1 else self.a[0]  # (B, T*R, X)
        G = torch.cat(self.g, 1) if len(self.g) > 1 else self.g[0]  # (B, T*R, Y)
        self.a.clear()
        self.g.clear()
        return torch.bmm(A.transpose(1, 2), G)  # (B, X, Y)


class _Anchor(Function):
    """M -> an empty token; backward hands M the gradient reduced from every step."""

    @staticmethod
    def forward(ctx, m: Tensor, stash: _Stash) -> Tensor:
        ctx.stash = stash
        return m.new_empty(0)

    @staticmethod
    def backward(ctx, _unused: Tensor) -> tuple[Tensor | None, None]:
        return ctx.stash.reduce(), None


class _StepBmm(Function):
    """``a (B, R, X) @ M (B, X, Y)``; M's gradient is left to the anchor."""

    @staticmethod
    def forward(ctx, a: Tensor, token: Tensor, m: Tensor, m_t: Tensor, stash: _Stash) -> Tensor:
        ctx.save_for_backward(a)
        ctx.m_t, ctx.stash = m_t, stash
        return torch.bmm(a, m)

    @staticmethod
    def backward(ctx, g: Tensor) -> tuple[Tensor | None, None, None, None, None]:
        (a,) = ctx.saved_tensors
        dtype = ctx.m_t.dtype  # under autocast the forward ran in lower precision: reduce in M's dtype
        g = g.to(dtype)
        ctx.stash.a.append(a.to(dtype))
        ctx.stash.g.append(g)
        grad_a = torch.bmm(g, ctx.m_t).to(a.dtype) if ctx.needs_input_grad[0] else None  # (B, R, X)
        return grad_a, None, None, None, None


class StepMatrix:
    """A batch of matrices ``m`` ``(B, X, Y)`` multiplied from the left at every decoder step.

    Args:
        m: the matrix, usually part of the autograd graph (encoder output).
        m_t: the same data as ``(B, Y, X)``, contiguous (default: a contiguous copy of
            ``m.transpose(1, 2)``, made only when gradients are needed).
    """

    def __init__(self, m: Tensor, m_t: Tensor | None = None):
        self.m = m
        self.deferred = torch.is_grad_enabled() and m.requires_grad
        if self.deferred:
            self._m = m.detach()
            self._m_t = (m.transpose(1, 2).contiguous() if m_t is None else m_t).detach()
            self._stash = _Stash()
            self._token = _Anchor.apply(m, self._stash)

    def left_mul(self, a: Tensor) -> Tensor:
        """``a`` ``(B, R, X)`` -> ``a @ m`` ``(B, R, Y)``."""
        if not (self.deferred and torch.is_grad_enabled()):
            return torch.bmm(a, self.m)
        return _StepBmm.apply(a, self._token, self._m, self._m_t, self._stash)


class _RowsAnchor(Function):
    """rows -> an empty token; backward hands rows the gradient summed into one buffer."""

    @staticmethod
    def forward(ctx, rows: Tensor, acc: list[Tensor | None]) -> Tensor:
        ctx.acc = acc
        return rows.new_empty(0)

    @staticmethod
    def backward(ctx, _unused: Tensor) -> tuple[Tensor | None, None]:
        grad = ctx.acc[0]
        ctx.acc[0] = None
        return grad, None


class _ReadRows(Function):
    """``rows[index]``; the gradient is added into the shared buffer, not returned."""

    @staticmethod
    def forward(ctx, index: Tensor, token: Tensor, rows: Tensor, acc: list[Tensor | None]) -> Tensor:
        ctx.save_for_backward(index)
        ctx.shape, ctx.acc = rows.shape, acc
        return rows.index_select(0, index)

    @staticmethod
    def backward(ctx, g: Tensor) -> tuple[None, None, None, None]:
        (index,) = ctx.saved_tensors
        if ctx.acc[0] is None:
            ctx.acc[0] = g.new_zeros(ctx.shape)
        ctx.acc[0].index_add_(0, index, g)
        return None, None, None, None


class RowSource:
    """A tensor ``rows`` ``(S, ...)`` read a few rows at a time, many times per batch.

    Plain autograd gives every read ``rows[index]`` a backward that writes a zero tensor of the
    full size of ``rows`` and adds it to ``rows``'s gradient: for lazy MODEL 3 training, one read of
    the grid's embeddings per decoder step, each a full ``(B*M, N, E)`` write (a third of a
    training step on whole papers). Here every read adds its rows' gradient into one buffer, handed
    to ``rows`` once all reads' backward have run (the anchor of :class:`StepMatrix`). The result
    equals plain autograd's up to the order of the float additions; without gradients a read is a
    plain ``index_select``.
    """

    def __init__(self, rows: Tensor):
        self.rows = rows
        self.deferred = torch.is_grad_enabled() and rows.requires_grad
        if self.deferred:
            self._rows = rows.detach()
            self._acc: list[Tensor | None] = [None]
            self._token = _RowsAnchor.apply(rows, self._acc)

    def read(self, index: Tensor) -> Tensor:
        """``index`` ``(U,)`` long -> ``rows[index]`` ``(U, ...)``."""
        if not (self.deferred and torch.is_grad_enabled()):
            return self.rows.index_select(0, index)
        return _ReadRows.apply(index, self._token, self._rows, self._acc)
