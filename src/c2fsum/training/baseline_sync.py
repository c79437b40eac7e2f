"""MODEL 3's moving-average baseline across micro-batches and processes: the summed returns of
one optimizer step's batches are collected, summed over every rank, and move the baseline once,
after the optimizer step (thesis section 4.3; :class:`c2fsum.losses.reinforce.MovingAverageBaseline`)."""

from __future__ import annotations

from torch import Tensor

from c2fsum.losses.reinforce import MovingAverageBaseline
from c2fsum.training.distributed import DistContext, sync_return_sums
from c2fsum.training.objective import BatchLoss, add_return_sums


class StepReturns:
    """The returns of the batches of one step (``sums``: per batch, summed returns and counts
    per target position; ``used``: the step had a policy term, so every rank takes part in the
    update, even one whose batch only kept it busy) and the last self-critical rewards (sampled,
    greedy) for the log."""

    def __init__(self) -> None:
        self.sums: list[tuple[Tensor, Tensor]] = []
        self.used = False
        self.last_rewards: tuple[float, float] | None = None

    def start(self) -> None:
        """A new step."""
        self.sums, self.used = [], False

    def clear(self) -> None:
        """Drop the returns collected (a skipped step, or a batch that only kept this rank busy)."""
        self.sums = []

    def add(self, out: BatchLoss) -> None:
        if out.rewards is not None:
            self.last_rewards = out.rewards
        if out.return_sums is not None:
            self.sums.append(out.return_sums)
            self.used = True

    def update(self, baseline: MovingAverageBaseline, dist: DistContext) -> None:
        """Move the baselines towards the mean return of the whole global batch (all ranks)."""
        sums, counts = sync_return_sums(dist, *add_return_sums(self.sums))
        baseline.update_from_sums(sums, counts)
        self.sums = []
