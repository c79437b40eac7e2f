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
    picked = logprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1)  # (B, T)
    return -(picked * mask.to(picked.dtype)).sum()


def target_logprobs(logprobs: Tensor, target: Tensor, mask: Tensor) -> Tensor:
    """log p(y_t) of each target token, 0 on padding: ``(B, T, V')``, ``(B, T)`` -> ``(B, T)``."""
    return logprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1) * mask.to(logprobs.dtype)
