"""Maximum-likelihood loss with teacher forcing."""

from __future__ import annotations

from torch import Tensor


def token_nll(logprobs: Tensor, target: Tensor, mask: Tensor) -> Tensor:
    """Summed negative log-likelihood of the target tokens.

    Args:
        logprobs: ``(B, T, V')``; target: ``(B, T)`` ids in V'; mask: ``(B, T)`` True on real tokens.
    Returns:
        scalar: sum over real tokens of -log p(y_t).
    """
    picked = logprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1)   # (B, T)
    return -(picked * mask.to(picked.dtype)).sum()
