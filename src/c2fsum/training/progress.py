"""The training loop's progress bar: steps, or the seconds of a time budget when there is one.

A run bounded by ``train.max_minutes`` ends when its time is up, long before the steps of its
epochs (a 2-minute run of ``cnndm-small-pretext`` would announce 25,080 steps and 13 hours). So
with a time budget the bar counts the budget's seconds, and the steps done are shown beside it::

    train (step 231):  45%|████▌     | 54/120 s of the time budget [00:54<01:06, loss=4.1, ppl=60.3]
    train:  12%|█▏        | 300/2508 [00:20<02:27, 15.0step/s, loss=4.1, ppl=60.3]   # no time budget
"""

from __future__ import annotations

import math
from typing import Any

from tqdm.auto import tqdm

from c2fsum.config import TrainConfig

BUDGET_FORMAT = (
    "{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} s of the time budget [{elapsed}<{remaining}{postfix}]"
)


class TrainingBar:
    """``advance(step, elapsed_s)`` after each step; ``set_postfix(...)`` as tqdm's; ``close()``.

    ``max_steps``: the steps the run may take (epochs x batches, or ``train.max_steps``);
    ``max_minutes``: the time budget (None or 0: none), ``elapsed_s`` the seconds already spent
    (a resumed run), ``step`` the steps already done.
    """

    def __init__(
        self,
        *,
        max_steps: int,
        max_minutes: float | None,
        step: int = 0,
        elapsed_s: float = 0.0,
        disable: bool = False,
    ):
        self.budget_s = max_minutes * 60 if max_minutes else None
        if self.budget_s is None:
            self._bar = tqdm(
                total=max_steps,
                initial=min(step, max_steps),
                disable=disable,
                desc="train",
                unit="step",
                dynamic_ncols=True,
            )
        else:
            self._bar = tqdm(
                total=self.budget_s,
                initial=min(elapsed_s, self.budget_s),
                disable=disable,
                desc=f"train (step {step})",
                bar_format=BUDGET_FORMAT,
                dynamic_ncols=True,
            )

    def advance(self, step: int, elapsed_s: float) -> None:
        """The run is at ``step`` after ``elapsed_s`` seconds of its budget."""
        if self.budget_s is None:
            self._bar.update(step - self._bar.n)
            return
        self._bar.set_description_str(f"train (step {step})", refresh=False)
        self._bar.update(min(elapsed_s, self.budget_s) - self._bar.n)

    @classmethod
    def for_run(cls, tc: TrainConfig, n_train: int, pos: Any, *, disable: bool = False) -> TrainingBar:
        """The bar of a run of ``train`` settings ``tc`` over ``n_train`` examples, at position
        ``pos`` (``step``, ``elapsed`` seconds: a resumed run starts where it stopped)."""
        total = tc.epochs * math.ceil(n_train / tc.batch_size)
        total = min(total, tc.max_steps) if tc.max_steps else total
        return cls(max_steps=total, max_minutes=tc.max_minutes, step=pos.step, elapsed_s=pos.elapsed, disable=disable)

    def show(self, row: dict) -> None:
        """A ``train`` log row beside the bar: loss, perplexity, target tokens per second."""
        self.set_postfix(loss=f"{row['loss']:.3f}", ppl=f"{row['ppl']:.1f}", tok_s=f"{row['tgt_tokens_per_s']:.0f}")

    def set_postfix(self, **kw) -> None:
        self._bar.set_postfix(**kw)

    def close(self) -> None:
        self._bar.close()

    @property
    def total(self) -> float:
        return self._bar.total

    @property
    def n(self) -> float:
        return self._bar.n
