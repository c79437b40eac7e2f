"""REINFORCE for hard coarse attention (thesis section 4.4.1).

Per decoder step t the model chose chunk(s) with log-probability log pi_t. The reward of
step t is r_t = log p(y_t | y_<t, x); the choice at step t influences every later word, so
its return is the discounted sum R_t = sum_{s >= t} gamma^(s - t) r_s (gamma = 0.5). A
baseline b_t per time step is an exponential moving average of the minibatch mean return,
b_t <- b_t + beta (mean_b R_t - b_t) (beta = 0.1). The surrogate loss

    L = - lambda * sum_t (R_t - b_t) * log pi_t          (lambda = 0.3)

has the REINFORCE gradient -lambda * (R_t - b_t) * grad log pi_t; the advantage is a
constant (detached), so only the coarse attention and what feeds it receive this gradient.

Rewards, returns, baselines and advantages are checked (:func:`~c2fsum.losses.checks.require_finite`):
a NaN or Inf raises :class:`~c2fsum.losses.checks.NonFiniteError` instead of reaching the
parameters or the moving-average baseline.
"""

from __future__ import annotations

import torch
from torch import Tensor

from c2fsum.losses.checks import require_finite


def discounted_returns(rewards: Tensor, mask: Tensor, gamma: float) -> Tensor:
    """R_t = sum_{s >= t, s real} gamma^(s-t) r_s.  rewards, mask ``(B, T)`` -> ``(B, T)``.

    thesis eq. 4.15: the reward influenced by the choice at step t.
    """
    r = require_finite("REINFORCE rewards", rewards.masked_fill(~mask.bool(), 0.0))  # padding may hold -inf
    out = torch.zeros_like(r)
    acc = torch.zeros_like(r[:, 0])
    for t in range(r.size(1) - 1, -1, -1):
        acc = r[:, t] + gamma * acc
        out[:, t] = acc
    return out * mask.to(rewards.dtype)


class MovingAverageBaseline:
    """b_t, one per decoder time step, updated as b_t <- b_t + beta (mean over the batch - b_t)."""

    def __init__(self, beta: float = 0.1, values: list[float] | None = None):
        self.beta = beta
        self.values = torch.tensor(values or [], dtype=torch.float64)

    def get(self, T: int, device: torch.device | str = "cpu", dtype: torch.dtype = torch.float32) -> Tensor:
        """``(T,)`` current baselines (0 for steps never seen)."""
        self._grow(T)
        return self.values[:T].to(device=device, dtype=dtype)

    def update(self, returns: Tensor, mask: Tensor) -> None:
        """Move b_t towards the minibatch mean of ``returns`` ``(B, T)`` over real positions."""
        self.update_from_sums(*self.return_sums(returns, mask))

    @staticmethod
    def return_sums(returns: Tensor, mask: Tensor) -> tuple[Tensor, Tensor]:
        """Per time step, the summed ``returns`` ``(B, T)`` over real positions and their count:
        two float64 CPU tensors ``(T,)``. Sums of several minibatch parts (micro-batches,
        processes) add up to the sums of the whole minibatch."""
        m = mask.to(torch.float64).cpu()
        return (returns.detach().to(torch.float64).cpu() * m).sum(0), m.sum(0)

    def update_from_sums(self, sums: Tensor, counts: Tensor) -> None:
        """b_t <- b_t + beta (sums_t / counts_t - b_t) where counts_t > 0; sums, counts ``(T,)``."""
        T = sums.numel()
        require_finite("REINFORCE returns (baseline update)", sums)
        self._grow(T)
        mean = sums / counts.clamp(min=1)
        seen = counts > 0
        b = self.values[:T]
        b[seen] = b[seen] + self.beta * (mean[seen] - b[seen])

    def _grow(self, T: int) -> None:
        if self.values.numel() < T:
            self.values = torch.cat([self.values, torch.zeros(T - self.values.numel(), dtype=torch.float64)])

    def state(self) -> list[float]:
        return self.values.tolist()


def reinforce_loss(policy_logprob: Tensor, returns: Tensor, baseline: Tensor, mask: Tensor, scale: float) -> Tensor:
    """Surrogate loss ``-scale * sum_t (R_t - b_t) log pi_t`` (summed over the batch).

    Args:
        policy_logprob: ``(B, T)`` log pi_t (differentiable); returns ``(B, T)``; baseline ``(T,)``;
        mask ``(B, T)``.
    """
    real = mask.bool()
    require_finite("REINFORCE returns", returns.masked_fill(~real, 0.0))
    require_finite("REINFORCE baseline", baseline)
    adv = require_finite("REINFORCE advantages", torch.where(real, (returns - baseline.unsqueeze(0)).detach(), 0.0))
    return -scale * (adv * policy_logprob).sum()
