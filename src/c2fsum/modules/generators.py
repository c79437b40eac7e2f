"""Output layers: a softmax over the vocabulary, optionally with shared weights, and the
pointer/generator mixture over the extended vocabulary (Paulus et al. 2017, section 2.3-2.4).

Shared weights, Paulus eq. 13: W_out = tanh(W_emb W_proj), so the output matrix follows the
target embeddings.

Pointer, Paulus eq. 9-12::

    p(u_t = 1) = sigmoid(W_u f_t + b_u)                 f_t = [h^d_t; c^e_t; c^d_t]
    p(y_t) = (1 - p(u_t=1)) softmax(W_out f_t + b)[y] + p(u_t=1) sum_{i: x_i = y} alpha^e_ti

over V' = V + (the document's own words), so source words outside the vocabulary can be copied.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn import functional as F


class VocabGenerator(nn.Module):
    """``(..., D)`` features -> ``(..., V)`` logits; with ``shared`` the weight is tanh(W_emb W_proj)."""

    def __init__(self, *, in_dim: int, vocab_size: int, shared_dim: int = 0):
        """With ``shared_dim`` = E > 0 the weight is tanh(W_emb W_proj), W_proj ``(E, D)``; the
        caller passes the embedding matrix W_emb ``(V, E)`` to :meth:`forward` (it is owned by the
        decoder's embedding, so checkpoints hold it once)."""
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(vocab_size))
        self.shared = shared_dim > 0
        if self.shared:
            self.proj = nn.Parameter(torch.empty(shared_dim, in_dim))
            nn.init.uniform_(self.proj, -0.1, 0.1)
        else:
            self.weight = nn.Parameter(torch.empty(vocab_size, in_dim))
            nn.init.uniform_(self.weight, -0.1, 0.1)

    def output_matrix(self, emb_weight: Tensor | None = None) -> Tensor:
        """W_out ``(V, D)``."""
        if self.shared:
            if emb_weight is None:
                raise ValueError("a shared-weight generator needs the embedding matrix")
            return torch.tanh(emb_weight @ self.proj)  # Paulus eq. 13
        return self.weight

    def forward(
        self,
        features: Tensor,
        emb_weight: Tensor | None = None,
        weight: Tensor | None = None,
        packed: Tensor | None = None,
    ) -> Tensor:
        """features ``(..., D)`` -> logits ``(..., V)``. ``weight``: W_out already computed (decoding
        step by step computes tanh(W_emb W_proj) once per batch, not once per step). ``packed``:
        W_out from :meth:`pack`, used for ``(B, D)`` features without gradients."""
        if packed is not None and features.dim() == 2 and not torch.is_grad_enabled():
            return torch.ops.mkldnn._linear_pointwise(features, packed, self.bias, "none", [], "")
        return F.linear(features, self.output_matrix(emb_weight) if weight is None else weight, self.bias)

    def log_prob(self, features: Tensor, target: Tensor, emb_weight: Tensor | None = None) -> Tensor:
        """log softmax(logits)[target] ``(...)`` for features ``(..., D)`` and target ``(...)``
        without the vocabulary-sized tensors of the plain composition (training loss; see
        :func:`linear_log_softmax_pick`)."""
        return linear_log_softmax_pick(features, self.output_matrix(emb_weight), self.bias, target)

    @staticmethod
    def pack(weight: Tensor) -> Tensor | None:
        """W_out ``(V, D)`` laid out for oneDNN's matrix product, or None where that does not apply.

        For decoding on CPU (no gradients, float32): the V x D generator product is most of a beam
        search step, and oneDNN runs it ~2x faster than the MKL path PyTorch's ``linear`` takes on
        non-Intel CPUs (same products, float rounding differs). Packing costs about one step's
        product, once per batch.
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


class _LinearLogSoftmaxPick(torch.autograd.Function):
    """log softmax(features W^T + b)[target] with a hand-written backward (see :func:`linear_log_softmax_pick`)."""

    @staticmethod
    def forward(ctx, features: Tensor, weight: Tensor, bias: Tensor, target: Tensor) -> Tensor:
        shape = target.shape
        f = features.reshape(-1, features.size(-1))  # (R, D)
        logits = torch.addmm(bias, f, weight.t())  # (R, V): ours alone, so backward may overwrite it
        x = logits.float() if logits.dtype in (torch.float16, torch.bfloat16) else logits  # as autocast's log_softmax
        idx = target.reshape(-1, 1)  # (R, 1)
        # log-softmax a slice of rows at a time, so the temporary stays small. The softmax kernels
        # stay fast where exp underflows (large negative logits), unlike torch.exp / logsumexp,
        # whose elementwise exp slows down ~10x there
        rows = max(1, _SLICE_BYTES // (4 * x.size(-1)))
        picked = torch.cat(
            [torch.log_softmax(x[i : i + rows], -1).gather(-1, idx[i : i + rows]) for i in range(0, x.size(0), rows)]
        )  # (R, 1)
        lse = x.gather(-1, idx) - picked  # (R, 1): log sum_v exp(x_v)
        ctx.save_for_backward(f, weight, x, idx, lse)
        ctx.compute_dtype = logits.dtype  # bfloat16 under autocast: the backward products too
        ctx.bias_dtype = bias.dtype
        ctx.shape = features.shape
        return picked.view(shape)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad: Tensor) -> tuple[Tensor | None, Tensor | None, Tensor | None, None]:
        f, weight, x, idx, lse = ctx.saved_tensors
        g = grad.reshape(-1, 1).to(x.dtype)  # (R, 1)
        # d/dlogits = g (onehot(target) - softmax(x)), written over the logits themselves: no
        # vocabulary-sized buffer. x - lse <= 0 is clamped at -87 before exp so that exp never
        # underflows into its slow path; the error, exp(-87) = 2e-38 per entry, is far below
        # float rounding.
        dx = (x.sub_(lse) if OVERWRITE_LOGITS else x - lse).clamp_(min=-87.0).exp_().mul_(-g)
        dx.scatter_add_(-1, idx, g)  # (R, V)
        need_f, need_w, need_b = ctx.needs_input_grad[:3]
        dtype = ctx.compute_dtype
        d = dx.to(dtype)
        d_features = (d @ weight.to(dtype)).to(f.dtype).view(ctx.shape) if need_f else None  # (..., D)
        d_weight = (d.t() @ f.to(dtype)).to(weight.dtype) if need_w else None  # (V, D)
        d_bias = dx.sum(0).to(ctx.bias_dtype) if need_b else None  # (V,)
        return d_features, d_weight, d_bias, None


OVERWRITE_LOGITS = True
"""The backward of :func:`linear_log_softmax_pick` writes the gradient over the logits. A second
backward through the same graph (``retain_graph=True``, ``torch.autograd.gradcheck``) then
fails with autograd's "modified by an inplace operation" error; set False for that, at the
cost of one more vocabulary-sized buffer."""

_SLICE_BYTES = 8 * 2**20
"""Logits log-softmaxed at a time in the forward pass of :func:`linear_log_softmax_pick` (bytes)."""


def linear_log_softmax_pick(features: Tensor, weight: Tensor, bias: Tensor, target: Tensor) -> Tensor:
    """``log_softmax(features @ weight.T + bias, -1).gather(-1, target)``: the generator and the
    training loss in one step.

    Args:
        features ``(..., D)``; weight ``(V, D)``; bias ``(V,)``; target ``(...)`` long.
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
    return _LinearLogSoftmaxPick.apply(features, weight, bias, target)


def pointer_mixture(vocab_logprobs: Tensor, p_copy: Tensor, attn: Tensor, src_ext: Tensor, n_ext: int) -> Tensor:
    """Mix generation and copying into log-probabilities over V'.

    Args:
        vocab_logprobs: ``(B, V)`` log p(y | u=0); p_copy: ``(B, 1)`` p(u=1);
        attn: ``(B, S)`` alpha^e (0 on padding); src_ext: ``(B, S)`` source ids in V'; n_ext: V' - V.
    Returns:
        ``(B, V')`` log-probabilities (sum to 1 in probability space).
    """
    B, V = vocab_logprobs.shape
    probs = torch.cat([vocab_logprobs.exp() * (1 - p_copy), vocab_logprobs.new_zeros(B, n_ext)], -1)
    probs = probs.scatter_add(1, src_ext, attn * p_copy)
    return torch.log(probs.clamp(min=1e-20))
