"""Speed paths, each beside its plain twin, and the one switch that chooses between them.

A model computes the same thing two ways: a plain composition of PyTorch operations, the
reference, and a fast path that saves time or memory. The fast path gives the plain one's
values and gradients up to the order of float additions (or float rounding where a different
matrix-product kernel runs); ``tests/modules/test_kernels.py`` checks every pair.

fast path -> its plain twin (where it runs):

* :func:`linear_log_softmax_pick` -> :func:`linear_log_softmax_pick_plain` (the training loss
  of a model that does not copy);
* :func:`packed_linear` with :func:`pack_linear_weight` -> ``F.linear`` (decoding on CPU: the
  generator product, most of a beam search step);
* :class:`~c2fsum.modules.deferred.StepMatrix` -> ``torch.bmm`` (attention memory and decoder
  weights in teacher forcing), with :meth:`InputFeedingLSTM.prepare_steps` + ``step`` ->
  :meth:`InputFeedingLSTM.forward` (the decoder cell);
* :class:`~c2fsum.modules.deferred.RowSource` -> ``index_select`` (lazy MODEL 3 training);
* teacher forcing of a model without input feeding with every decoder step at once
  (:meth:`InputFeedingLSTM.run_steps`, the attentions' ``*_steps`` methods) -> the step-by-step
  loop of ``Decoder.attend`` (:mod:`c2fsum.models.seq2seq`: the same cells and attentions,
  one step at a time);
* the pointer model's training loss from log p(target) alone (:func:`c2fsum.modules.generators.pointer_target_logprob`)
  -> the whole mixture over V' (:func:`c2fsum.modules.generators.pointer_mixture`), then the target's entry;
* :class:`LSTMWordEncoder` unpacked on a batch without padding -> packed (the word encoder);
* :meth:`BilinearAttention.forward` with R beams per memory row -> the same attention over
  the memory copied R times (beam search).

Which paths a model takes is one typed value, :class:`Kernels`, the model's ``kernels`` attribute
(``FAST`` when built; ``model.kernels = PLAIN`` runs the reference everywhere), read by the model's code:
no module-level flags. The paths that apply only without gradients (packing) or only with
them (deferred gradients) check that themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor
from torch.nn import functional as F


@dataclass(frozen=True)
class Kernels:
    """Which speed paths a model takes (True: the fast path; False: its plain twin)."""

    deferred_grads: bool = True
    """Teacher forcing with gradients: the attention memory's and the decoder weights' gradients
    formed once per batch, the decoder's input projection hoisted out of the step loop
    (:class:`~c2fsum.modules.deferred.StepMatrix`, :meth:`InputFeedingLSTM.prepare_steps`)."""
    packed_generator: bool = True
    """Decoding without gradients on CPU: the generator product through oneDNN
    (:func:`pack_linear_weight`, :func:`packed_linear`)."""
    fused_loss: bool = True
    """Forward given the target: log p(target) by :func:`linear_log_softmax_pick`, without
    vocabulary-sized tensors besides the logits; a pointer model adds the copy term of the
    target alone (:func:`c2fsum.modules.generators.pointer_target_logprob`), never the mixture
    over V'."""
    skip_packing: bool = True
    """The word encoder runs a batch without padding through the LSTM unpacked (a faster
    oneDNN path) instead of as a packed sequence (:class:`LSTMWordEncoder`)."""
    parallel_steps: bool = True
    """Teacher forcing of a model without input feeding: the decoder LSTM runs over all target
    steps in one call, and the attentions (source, coarse, intra-decoder), the pointer switch
    and the generator over all steps at once. Nothing of step t then depends on step t-1's
    attention, so the result is the step-by-step loop's; MODEL 3 draws the chunks of every step
    at once (the same distribution, another order of draws from the generator)."""


FAST = Kernels()
"""Every speed path (the default)."""
PLAIN = Kernels(
    deferred_grads=False, packed_generator=False, fused_loss=False, skip_packing=False, parallel_steps=False
)
"""Every plain twin: the reference the fast paths are tested against."""


# -- the training loss: linear + log-softmax + pick --------------------------------------------

SLICE_BYTES = 8 * 2**20
"""Logits log-softmaxed at a time in the forward pass of :func:`linear_log_softmax_pick` (bytes)."""


def linear_log_softmax_pick_plain(features: Tensor, weight: Tensor, bias: Tensor, target: Tensor) -> Tensor:
    """``log_softmax(features @ weight.T + bias, -1).gather(-1, target)``, plainly.

    Args:
        features ``(..., D)``; weight ``(V, D)``; bias ``(V,)``; target ``(...)`` long.
    Returns:
        log p(target) ``(...)`` (float32 for half-precision logits, as autocast's log_softmax).
    """
    logits = F.linear(features, weight, bias)  # (..., V)
    x = logits.float() if logits.dtype in (torch.float16, torch.bfloat16) else logits
    return torch.log_softmax(x, -1).gather(-1, target.unsqueeze(-1)).squeeze(-1)


def linear_log_softmax_pick(
    features: Tensor,
    weight: Tensor,
    bias: Tensor,
    target: Tensor,
    *,
    overwrite: bool = True,
    slice_bytes: int = SLICE_BYTES,
) -> Tensor:
    """:func:`linear_log_softmax_pick_plain` (the generator and the training loss) in one step.

    Args:
        features ``(..., D)``; weight ``(V, D)``; bias ``(V,)``; target ``(...)`` long.
        overwrite: the backward writes the gradient over the logits (no second vocabulary-sized
            buffer). A second backward through the same graph (``retain_graph=True``,
            ``torch.autograd.gradcheck``) then fails with autograd's "modified by an inplace
            operation" error; pass False for that.
        slice_bytes: logits log-softmaxed at a time in the forward pass.
    Returns:
        log p(target) ``(...)``.

    The training loss needs only the target's log-probability. The plain composition allocates
    three vocabulary-sized tensors besides the logits and keeps one to the backward pass
    (log-probabilities; the gathered gradient scattered back into zeros; the log-softmax
    gradient). This one keeps the logits alone (they never leave the function) and its
    backward overwrites them with their gradient, g (onehot(target) - softmax), before the two
    products of the linear layer's backward. Under autocast the products run in the autocast
    dtype and the softmax in float32, as autocast does for ``linear`` and ``log_softmax``;
    gradients equal the plain composition's to float rounding.
    """
    return _LinearLogSoftmaxPick.apply(features, weight, bias, target, overwrite, slice_bytes)


class _LinearLogSoftmaxPick(torch.autograd.Function):
    """log softmax(features W^T + b)[target] with a hand-written backward (see :func:`linear_log_softmax_pick`)."""

    @staticmethod
    def forward(
        ctx, features: Tensor, weight: Tensor, bias: Tensor, target: Tensor, overwrite: bool, slice_bytes: int
    ) -> Tensor:
        shape = target.shape
        f = features.reshape(-1, features.size(-1))  # (R, D)
        logits = torch.addmm(bias, f, weight.t())  # (R, V): ours alone, so backward may overwrite it
        x = logits.float() if logits.dtype in (torch.float16, torch.bfloat16) else logits  # as autocast's log_softmax
        idx = target.reshape(-1, 1)  # (R, 1)
        # log-softmax a slice of rows at a time, so the temporary stays small. The softmax kernels
        # stay fast where exp underflows (large negative logits), unlike torch.exp / logsumexp,
        # whose elementwise exp slows down ~10x there
        rows = max(1, slice_bytes // (4 * x.size(-1)))
        picked = torch.cat(
            [torch.log_softmax(x[i : i + rows], -1).gather(-1, idx[i : i + rows]) for i in range(0, x.size(0), rows)]
        )  # (R, 1)
        lse = x.gather(-1, idx) - picked  # (R, 1): log sum_v exp(x_v)
        ctx.save_for_backward(f, weight, x, idx, lse)
        ctx.compute_dtype = logits.dtype  # bfloat16 under autocast: the backward products too
        ctx.bias_dtype = bias.dtype
        ctx.shape = features.shape
        ctx.overwrite = overwrite
        return picked.view(shape)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad: Tensor) -> tuple[Tensor | None, Tensor | None, Tensor | None, None, None, None]:
        f, weight, x, idx, lse = ctx.saved_tensors
        g = grad.reshape(-1, 1).to(x.dtype)  # (R, 1)
        # d/dlogits = g (onehot(target) - softmax(x)), written over the logits themselves: no
        # vocabulary-sized buffer. x - lse <= 0 is clamped at -87 before exp so that exp never
        # underflows into its slow path; the error, exp(-87) = 2e-38 per entry, is far below
        # float rounding.
        dx = (x.sub_(lse) if ctx.overwrite else x - lse).clamp_(min=-87.0).exp_().mul_(-g)
        dx.scatter_add_(-1, idx, g)  # (R, V)
        need_f, need_w, need_b = ctx.needs_input_grad[:3]
        dtype = ctx.compute_dtype
        d = dx.to(dtype)
        d_features = (d @ weight.to(dtype)).to(f.dtype).view(ctx.shape) if need_f else None  # (..., D)
        d_weight = (d.t() @ f.to(dtype)).to(weight.dtype) if need_w else None  # (V, D)
        d_bias = dx.sum(0).to(ctx.bias_dtype) if need_b else None  # (V,)
        return d_features, d_weight, d_bias, None, None, None


# -- the decoding product: a linear layer through oneDNN-packed weights --------------------------


def pack_linear_weight(weight: Tensor) -> Tensor | None:
    """``weight`` ``(V, D)`` laid out for oneDNN's matrix product, or None where that does not apply.

    For decoding on CPU (no gradients, float32): the V x D generator product is most of a beam
    search step, and oneDNN runs it ~2x faster than the MKL path PyTorch's ``linear`` takes on
    non-Intel CPUs (same products, float rounding differs). Packing costs about one step's
    product, once per batch. The plain twin is ``F.linear`` with the unpacked weight.
    """
    if (
        torch.is_grad_enabled()
        or weight.device.type != "cpu"
        or weight.dtype != torch.float32
        or not torch.backends.mkldnn.is_available()
        or not hasattr(torch.ops.mkldnn, "_reorder_linear_weight")
    ):
        return None
    try:
        return torch.ops.mkldnn._reorder_linear_weight(weight.detach())
    except RuntimeError:  # a build without this kernel
        return None


def packed_linear(features: Tensor, packed: Tensor, bias: Tensor) -> Tensor:
    """``F.linear(features, weight, bias)`` for ``features`` ``(B, D)`` and ``packed`` =
    :func:`pack_linear_weight` (weight) -> ``(B, V)``. No gradients."""
    return torch.ops.mkldnn._linear_pointwise(features, packed, bias, "none", [], "")
