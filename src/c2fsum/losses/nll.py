"""Maximum-likelihood loss with teacher forcing (the ML term of every training objective).

    L_ml = sum_b sum_t -log p(y_t | y_<t, x)        summed over the real target tokens

The trainer divides it by the number of documents (seq2seq-attn's normalization; see
:mod:`c2fsum.training.objective`). Models return ``log p(y_t)`` of the target directly
(``ForwardOutput.target_lp``, the fused loss); :func:`token_nll` is the same sum computed from
the whole distribution, for code that holds ``(B, T, V')`` log-probabilities.
"""

from __future__ import annotations

from torch import Tensor, nn

from c2fsum.data.batching import Batch


def masked_target_logprobs(target_lp: Tensor, mask: Tensor) -> Tensor:
    """log p(y_t) of each target token, 0 on padding: ``(B, T)``, mask ``(B, T)`` -> ``(B, T)``."""
    return target_lp * mask.to(target_lp.dtype)


def sequence_nll(target_lp: Tensor, mask: Tensor) -> Tensor:
    """Summed negative log-likelihood of the real target tokens (a scalar).

    Args:
        target_lp: ``(B, T)`` log p(y_t) of each target token (padding may hold anything finite);
        mask: ``(B, T)`` True on real tokens.
    """
    return -masked_target_logprobs(target_lp, mask).sum()


def token_nll(logprobs: Tensor, target: Tensor, mask: Tensor) -> Tensor:
    """:func:`sequence_nll` from the whole distribution.

    Args:
        logprobs: ``(B, T, V')``; target: ``(B, T)`` ids in V'; mask: ``(B, T)`` True on real tokens.
    Returns:
        scalar: sum over real tokens of -log p(y_t).
    """
    picked = logprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1)  # (B, T)
    return sequence_nll(picked, mask)


def loss_target(model: nn.Module, batch: Batch) -> Tensor:
    """``(B, T)`` target ids: in V' (``tgt_ext``) for a model that copies (its declared
    ``capabilities.copies``), in V (``tgt_out``) otherwise."""
    return batch.tgt_ext if model.capabilities.copies else batch.tgt_out  # type: ignore[union-attr]
