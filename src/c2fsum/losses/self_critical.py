"""Self-critical policy gradient and the mixed objective (Paulus et al. 2017, section 3.2).

    L_rl    = (r(y^) - r(y^s)) * sum_t log p(y^s_t | y^s_<t, x)        Paulus eq. 15
    L_mixed = gamma * L_rl + (1 - gamma) * L_ml                         Paulus eq. 16, gamma = 0.9984

y^s is sampled from the model, y^ is its greedy decode (the baseline), r is ROUGE-L F
against the reference. A sample better than the greedy decode (r(y^s) > r(y^)) gets a
negative coefficient, so minimizing L_rl raises its probability.
"""

from __future__ import annotations

from torch import Tensor


def self_critical_loss(sample_logprob: Tensor, sample_reward: Tensor, greedy_reward: Tensor) -> Tensor:
    """Summed over the batch. sample_logprob ``(B,)`` (differentiable); rewards ``(B,)``."""
    advantage = (greedy_reward - sample_reward).detach().to(sample_logprob.dtype)
    return (advantage * sample_logprob).sum()


def mixed_loss(rl: Tensor, ml: Tensor, gamma: float) -> Tensor:
    """gamma * L_rl + (1 - gamma) * L_ml."""
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"train.rl_weight: expected a value in [0, 1], got {gamma}")
    return gamma * rl + (1.0 - gamma) * ml
