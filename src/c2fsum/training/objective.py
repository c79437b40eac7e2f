"""The training objective of every model, in one place: the trainer and ``bench/`` call it.

The loss of one training batch of B documents, D of which count for the normalization (a
shard of a global batch, or a micro-batch, uses the global count; see ``docs``)::

    L_ml  = sum_b sum_t -log p(y_t | y_<t, x)                 teacher forcing (losses/nll.py)
    loss  = L_ml / D                                          seq2seq-attn: summed NLL per document

    objective "mixed" (Paulus et al. 2017, section 3.2):
    L_rl  = sum_b (r(y^) - r(y^s)) sum_t log p(y^s_t | ...)  Paulus eq. 15 (losses/self_critical.py)
    loss  = gamma L_rl / D + (1 - gamma) L_ml / D             Paulus eq. 16, gamma = train.rl_weight
            y^s sampled (training mode), y^ the greedy decode (eval mode, no gradient),
            r = ROUGE-L F of the summary against the reference

    MODEL 3 with hard coarse attention (thesis section 4.4.1), added to either objective:
    r_t   = log p(y_t | y_<t, x)                              the reward of step t (detached)
    R_t   = sum_{s >= t} gamma^(s-t) r_s                      thesis eq. 4.15, gamma = reinforce_gamma
    b_t  <- b_t + beta (mean_b R_t - b_t)                     moving-average baseline, after the step
    loss += -lambda sum_b sum_t (R_t - b_t) log pi_t / D      lambda = reinforce_scale (losses/reinforce.py)
    loss += mu L_c / D   (MODEL 2/3, mu = coarse_supervision > 0: chunk attention on the chunks
                          holding y_t, losses/coarse.py; c2fsum's addition)

    A model with coverage (See et al. 2017, model.coverage), added to either objective:
    loss += lambda sum_b sum_t sum_i min(alpha_ti, c_ti) / D   See eq. 12-13, lambda = coverage_weight
                                                               (losses/coverage.py)

The soft/hard schedule of MODEL 3 (+PRETRAIN, +ALTERNATE) decides per batch whether the hard
model attends softly: :func:`soft_attention_for_batch`.

What stays in :mod:`c2fsum.training.trainer`: the loop, micro-batches and processes, the
NaN/Inf guard, the baseline update after the optimizer step (with the sums of every rank),
checkpoints and logging.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from c2fsum.config import CHOICES, Config, DataConfig, TrainConfig
from c2fsum.data.batching import Batch, Example
from c2fsum.decoding.greedy import greedy_decode
from c2fsum.decoding.postprocess import ids_to_words, words_to_text
from c2fsum.decoding.sampling import sample
from c2fsum.losses.checks import require_finite
from c2fsum.losses.coarse import chunks_holding_targets, coarse_supervision_loss
from c2fsum.losses.coverage import coverage_loss
from c2fsum.losses.nll import loss_target, masked_target_logprobs
from c2fsum.losses.reinforce import MovingAverageBaseline, discounted_returns, reinforce_loss
from c2fsum.losses.self_critical import mixed_loss, self_critical_loss
from c2fsum.metrics.rouge import score_pair
from c2fsum.models import Model, Selector, Summarizer
from c2fsum.models.base import DEFAULT_READING, ForwardOutput, Reading

Reward = Callable[[list[int], Example], float]
"""r(summary ids in V', example) -> a float, e.g. ROUGE-L F against the reference."""

OBJECTIVES = CHOICES["train.objective"]
COARSE_MIN_ID = 100
"""Coarse supervision skips target words among the vocabulary's 100 most frequent (and the special
tokens): they are in nearly every chunk."""


@dataclass(frozen=True)
class Objective:
    """The settings of the loss: ``kind`` is ``train.objective`` (``ml`` or ``mixed``); ``rl_weight``
    (gamma of Paulus eq. 16), ``reinforce_gamma`` (thesis eq. 4.15) and ``reinforce_scale``
    (lambda) are the ``train.*`` fields of the same names; ``max_len`` bounds the self-critical
    summaries (``data.max_tgt_len + 1`` steps, ``</s>`` included)."""

    kind: str = TrainConfig.objective
    rl_weight: float = TrainConfig.rl_weight
    reinforce_gamma: float = TrainConfig.reinforce_gamma
    reinforce_scale: float = TrainConfig.reinforce_scale
    coarse_supervision: float = TrainConfig.coarse_supervision
    max_len: int = DataConfig.max_tgt_len + 1
    coverage_weight: float = 0.0
    """lambda of the coverage loss (See et al. eq. 13); 0 unless the model has coverage."""

    @classmethod
    def from_config(cls, cfg: Config) -> Objective:
        tc = cfg.train
        return cls(
            kind=tc.objective,
            rl_weight=tc.rl_weight,
            reinforce_gamma=tc.reinforce_gamma,
            reinforce_scale=tc.reinforce_scale,
            coarse_supervision=tc.coarse_supervision,
            max_len=cfg.data.max_tgt_len + 1,
            coverage_weight=tc.coverage_weight if cfg.model.coverage else 0.0,
        )


@dataclass
class BatchLoss:
    """What one batch's loss computation returns."""

    loss: Tensor
    """Scalar to minimize (already divided by ``docs``)."""
    nll: Tensor
    """Scalar: the summed token NLL of the batch (for perplexity)."""
    return_sums: tuple[Tensor, Tensor] | None = None
    """MODEL 3: summed returns and their counts per step, float64 ``(T,)`` each, for the
    baseline update after the optimizer step (:func:`update_baseline`); None without policy."""
    rewards: tuple[float, float] | None = None
    """Mixed objective: mean reward of the sampled and of the greedy summaries."""
    forward: ForwardOutput | None = None
    """The teacher-forced pass (attention, MODEL 3's ``fine_fraction``), for diagnostics."""


def nll_units(model: Model, examples: Sequence[Example]) -> int:
    """What :attr:`BatchLoss.nll` of ``examples`` sums over, so that a train row's perplexity is the
    validation's (:func:`c2fsum.evaluation.perplexity.perplexity`): target tokens with ``</s>``, or a
    sentence selector's labels (its picks and the STOP)."""
    return model.nll_units(examples)


def soft_attention_for_batch(model: Model, *, epoch: int, soft_pretrain_epochs: int, alternate: float) -> bool | None:
    """MODEL 3's soft/hard schedule: whether this training batch attends softly.

    +PRETRAIN: soft for the first ``soft_pretrain_epochs`` epochs; +ALTERNATE: afterwards each
    batch is soft with probability ``alternate`` (one draw of torch's generator, made only when
    ``alternate > 0``). None for a model without hard coarse attention (nothing to choose).
    """
    if not model.capabilities.hard:
        return None
    soft = epoch < soft_pretrain_epochs
    if not soft and alternate > 0:
        soft = bool(torch.rand(()) < alternate)
    return soft


def batch_loss(
    model: Model,
    batch: Batch,
    objective: Objective,
    baseline: MovingAverageBaseline,
    *,
    docs: float | None = None,
    reward: Reward | None = None,
    fused: bool = True,
    reading: Reading = DEFAULT_READING,
) -> BatchLoss:
    """The loss of one training batch (see the module docstring for the equations).

    Args:
        model: in training mode.
        batch: ``src`` ``(B, M, N)``, targets ``(B, T)``.
        objective: the settings.
        baseline: MODEL 3's b_t; read here, updated by the caller after the step.
        docs: divides the summed losses (default: the batch's B documents).
        reward: the self-critical reward; needed when ``objective.kind == "mixed"``.
        fused: take log p(y_t) from the model's fused loss (``ForwardOutput.target_lp``, the
            trainer's path); False: from the whole ``(B, T, V')`` distribution (log-softmax,
            then gather; the same values up to float rounding, slower: ``bench/speed.py
            --plain-loss``).
        reading: how the model reads the batch (``Reading.soft``: MODEL 3 attends softly,
            +PRETRAIN / +ALTERNATE, :func:`soft_attention_for_batch`).
    """
    docs = batch.size if docs is None else docs
    if isinstance(model, Selector):  # a sentence selector: its picks' loss (models/select_rewrite.py)
        rl_weight = objective.rl_weight if objective.kind == "mixed" else 0.0
        picks = model.selection_loss(batch.src, batch.src_mask, batch.examples, rl_weight=rl_weight)
        return BatchLoss(loss=picks.loss / docs, nll=picks.nll, rewards=picks.rewards)
    target = loss_target(model, batch)  # (B, T)
    if fused:
        out = model(batch.src, batch.src_mask, batch.tgt_in, batch.src_ext, batch.n_ext, target, reading)
        assert out.target_lp is not None  # forward was given the target
        target_lp = out.target_lp
    else:
        out = model(batch.src, batch.src_mask, batch.tgt_in, batch.src_ext, batch.n_ext, reading=reading)
        assert out.logprobs is not None  # forward was not given the target
        target_lp = out.logprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1)  # (B, T)
    lp = masked_target_logprobs(target_lp, batch.tgt_mask)  # (B, T), 0 on padding
    nll = -lp.sum()
    loss = nll / docs
    rewards = None
    if objective.kind == "mixed":
        if reward is None:
            raise ValueError("batch_loss: the mixed objective needs a reward function, got reward=None")
        rl, r_sample, r_greedy = self_critical(model, batch, reward, max_len=objective.max_len, reading=reading)
        loss = mixed_loss(rl / docs, loss, objective.rl_weight)  # Paulus eq. 16
        rewards = (float(r_sample.mean()), float(r_greedy.mean()))
    sums, attention = None, out.attention  # attn (B, T, M, N), coarse (B, T, M), policy (B, T)
    if attention.policy is not None:
        returns = discounted_returns(lp.detach(), batch.tgt_mask, objective.reinforce_gamma)  # (B, T), eq. 4.15
        base = baseline.get(returns.size(1), returns.device, returns.dtype)  # (T,)
        loss = loss + reinforce_loss(attention.policy, returns, base, batch.tgt_mask, objective.reinforce_scale) / docs
        sums = MovingAverageBaseline.return_sums(returns, batch.tgt_mask)
    if objective.coarse_supervision > 0 and attention.coarse is not None:  # losses/coarse.py
        src = batch.src_ext if model.capabilities.copies else batch.src  # the id space of `target`
        held = chunks_holding_targets(src, target, min_id=COARSE_MIN_ID)  # (B, T, M)
        lc, _ = coarse_supervision_loss(attention.coarse, held, batch.tgt_mask)
        loss = loss + objective.coarse_supervision * lc / docs
    if objective.coverage_weight > 0:  # See et al. eq. 13 (losses/coverage.py)
        loss = loss + objective.coverage_weight * coverage_loss(attention.attn, batch.tgt_mask) / docs
    return BatchLoss(loss=loss, nll=nll, return_sums=sums, rewards=rewards, forward=out)


def self_critical(
    model: Summarizer, batch: Batch, reward: Reward, *, max_len: int, reading: Reading = DEFAULT_READING
) -> tuple[Tensor, Tensor, Tensor]:
    """L_rl summed over the batch (Paulus eq. 15) and the rewards ``(B,)`` of the sampled and
    the greedy summaries.

    y^s is sampled in training mode (differentiable log-probability); y^ is decoded greedily in
    eval mode without gradient, so the batch is encoded twice here (dropout on, then off) besides
    the teacher-forced pass: one encoding cannot serve both modes.
    """
    memory = model.encode(batch.src, batch.src_mask, batch.src_ext, batch.n_ext, reading)
    drawn = sample(model, memory, max_len=max_len)
    model.eval()
    with torch.no_grad():
        greedy = greedy_decode(
            model, model.encode(batch.src, batch.src_mask, batch.src_ext, batch.n_ext), max_len=max_len
        )
    model.train()
    r_sample = torch.tensor(
        [reward(t, ex) for t, ex in zip(drawn.token_lists(), batch.examples, strict=True)], dtype=torch.float32
    )
    r_greedy = torch.tensor(
        [reward(h.tokens, ex) for h, ex in zip(greedy, batch.examples, strict=True)], dtype=torch.float32
    )
    require_finite("self-critical rewards of the sampled summaries", r_sample)
    require_finite("self-critical rewards of the greedy summaries", r_greedy)
    device = drawn.logprob.device
    return self_critical_loss(drawn.logprob, r_sample.to(device), r_greedy.to(device)), r_sample, r_greedy


def rouge_l_reward(itos: list[str]) -> Reward:
    """r(y) = ROUGE-L F of the summary's words against the example's target words."""

    def reward(tokens: list[int], ex: Example) -> float:
        words = ids_to_words(tokens, itos, ex.oovs)
        return score_pair(words_to_text(words), " ".join(ex.tgt_words))["rougeL"]

    return reward


def add_return_sums(parts: Sequence[tuple[Tensor, Tensor]]) -> tuple[Tensor, Tensor]:
    """The return sums and counts ``(T,)`` of a whole batch from those of its parts
    (micro-batches), padded to the longest part."""
    T = max((s.numel() for s, _ in parts), default=0)
    sums, counts = torch.zeros(T, dtype=torch.float64), torch.zeros(T, dtype=torch.float64)
    for s, c in parts:
        sums[: s.numel()] += s
        counts[: c.numel()] += c
    return sums, counts


def update_baseline(baseline: MovingAverageBaseline, parts: Sequence[tuple[Tensor, Tensor]]) -> None:
    """b_t <- b_t + beta (mean R_t - b_t) from the return sums of one batch's parts (one process)."""
    baseline.update_from_sums(*add_return_sums(parts))
