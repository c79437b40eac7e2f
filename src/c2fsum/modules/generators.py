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

from c2fsum.modules.kernels import (
    linear_log_softmax_pick,
    linear_log_softmax_pick_plain,
    packed_linear,
)


class VocabGenerator(nn.Module):
    """``(..., D)`` features -> ``(..., V)`` logits; with ``shared`` the weight follows the embeddings."""

    SHARED_OUTPUTS = ("tanh", "linear")

    def __init__(self, *, in_dim: int, vocab_size: int, shared_dim: int = 0, shared_output: str = "tanh"):
        """With ``shared_dim`` = E > 0 the weight is tanh(W_emb W_proj), W_proj ``(E, D)``
        (``shared_output="tanh"``, Paulus eq. 13), or W_emb W_proj (``"linear"``: weight tying
        with a projection, Press & Wolf 2017), which factorizes: the features are projected to E
        first, logits = (f W_proj^T) W_emb^T, so the vocabulary-sized product is E wide, not D.
        The caller passes the embedding matrix W_emb ``(V, E)`` to :meth:`forward` (it is owned
        by the decoder's embedding, so checkpoints hold it once)."""
        super().__init__()
        if shared_output not in self.SHARED_OUTPUTS:
            raise ValueError(f"model.shared_output: got {shared_output!r}, expected one of {self.SHARED_OUTPUTS}")
        self.bias = nn.Parameter(torch.zeros(vocab_size))
        self.shared = shared_dim > 0
        self.factorized = self.shared and shared_output == "linear"
        if self.shared:
            self.proj = nn.Parameter(torch.empty(shared_dim, in_dim))
            nn.init.uniform_(self.proj, -0.1, 0.1)
        else:
            self.weight = nn.Parameter(torch.empty(vocab_size, in_dim))
            nn.init.uniform_(self.weight, -0.1, 0.1)

    def project(self, features: Tensor) -> Tensor:
        """What the output matrix multiplies: ``(..., D)`` features, or ``(..., E)`` = f W_proj^T for a
        factorized shared output."""
        return F.linear(features, self.proj) if self.factorized else features

    def output_matrix(self, emb_weight: Tensor | None = None) -> Tensor:
        """W_out ``(V, D)`` (``(V, E)`` = W_emb for a factorized shared output)."""
        if self.shared:
            if emb_weight is None:
                raise ValueError("a shared-weight generator needs the embedding matrix")
            return emb_weight if self.factorized else torch.tanh(emb_weight @ self.proj)  # Paulus eq. 13
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
        W_out packed by :func:`c2fsum.modules.kernels.pack_linear_weight` (a speed path), used for
        ``(B, D)`` features without gradients."""
        features = self.project(features)
        if packed is not None and features.dim() == 2 and not torch.is_grad_enabled():
            return packed_linear(features, packed, self.bias)
        return F.linear(features, self.output_matrix(emb_weight) if weight is None else weight, self.bias)

    def log_prob(
        self, features: Tensor, target: Tensor, emb_weight: Tensor | None = None, *, fused: bool = True
    ) -> Tensor:
        """log softmax(logits)[target] ``(...)`` for features ``(..., D)`` and target ``(...)``
        (the training loss). ``fused``: without the vocabulary-sized tensors of the plain
        composition (:func:`c2fsum.modules.kernels.linear_log_softmax_pick`); False: its plain twin."""
        pick = linear_log_softmax_pick if fused else linear_log_softmax_pick_plain
        return pick(self.project(features), self.output_matrix(emb_weight), self.bias, target)


def pointer_mixture(vocab_logprobs: Tensor, p_copy: Tensor, attn: Tensor, src_ext: Tensor, n_ext: int) -> Tensor:
    """Mix generation and copying into log-probabilities over V'.

    Args:
        vocab_logprobs: ``(B, V)`` log p(y | u=0); p_copy: ``(B, 1)`` p(u=1);
        attn: ``(B, S)`` alpha^e (0 on padding); src_ext: ``(B, S)`` source ids in V'; n_ext: V' - V.
    Returns:
        ``(B, V')`` log-probabilities (sum to 1 in probability space).
    """
    probs = _generation_probs(vocab_logprobs, p_copy, n_ext).scatter_add(1, src_ext, attn * p_copy)
    return torch.log(probs.clamp(min=1e-20))


def pointer_mixture_sparse(vocab_logprobs: Tensor, p_copy: Tensor, attn: Tensor, src_ext: Tensor, n_ext: int) -> Tensor:
    """:func:`pointer_mixture` for attention stored as a sparse COO ``(B, M, N)`` tensor (lazy
    MODEL 3 at test time: only the chosen chunks' k*N words): the copy term is added from the
    stored entries only, not scattered from a dense ``(B, M*N)`` grid of zeros.

    Args:
        vocab_logprobs ``(B, V)``; p_copy ``(B, 1)``; attn sparse COO ``(B, M, N)``;
        src_ext ``(B, M, N)`` source ids in V'; n_ext: V' - V.
    Returns:
        ``(B, V')`` log-probabilities, equal to :func:`pointer_mixture` of the dense attention.
    """
    b, m, n = attn.indices()  # (nnz,) each
    ids = src_ext[b, m, n]  # (nnz,)
    probs = _generation_probs(vocab_logprobs, p_copy, n_ext)
    probs = probs.index_put((b, ids), attn.values() * p_copy[b, 0], accumulate=True)
    return torch.log(probs.clamp(min=1e-20))


def pointer_target_logprob(
    vocab_lp: Tensor, p_copy: Tensor, attn: Tensor, src_ext: Tensor, target: Tensor, vocab_size: int
) -> Tensor:
    """log p(target) under the pointer mixture (Paulus eq. 12), without the distribution over V'.

    p(y) = (1 - p(u=1)) p(y | u=0) [y in V] + p(u=1) sum_{i: x_i = y} alpha_i: the entry of
    :func:`pointer_mixture` at the target (the training loss needs no other), from the target's
    generation log-probability and the attention on the source positions holding it.

    Args:
        vocab_lp: ``(...)`` log p(target | u=0) where target < V (any finite value elsewhere);
        p_copy: ``(...)`` p(u=1); attn: ``(..., S)`` alpha (0 on padding); src_ext: ``(..., S)``
        source ids in V' (broadcast against attn); target: ``(...)`` ids in V'.
    Returns:
        ``(...)`` log p(target), clamped at log 1e-20 as :func:`pointer_mixture`.
    """
    gen = vocab_lp.exp() * (1 - p_copy) * (target < vocab_size).to(vocab_lp.dtype)
    copy = (attn * (src_ext == target.unsqueeze(-1)).to(attn.dtype)).sum(-1) * p_copy
    return torch.log((gen + copy).clamp(min=1e-20))


def _generation_probs(vocab_logprobs: Tensor, p_copy: Tensor, n_ext: int) -> Tensor:
    """(1 - p(u=1)) p(y | u=0) over V' ``(B, V + n_ext)`` (0 on the document's own words): the
    generation term both mixtures add the copy term to."""
    gen = vocab_logprobs.exp() * (1 - p_copy)
    return torch.cat([gen, gen.new_zeros(gen.size(0), n_ext)], -1)
