"""Where a training run stands: starting it, or taking it up again from a checkpoint.

A checkpoint's ``trainer.json`` holds the schedule, the :class:`Position`, MODEL 3's baseline and
the log's state (:meth:`c2fsum.training.run_log.RunLog.state`); with several processes it also
holds the random generators of every rank but 0 (``rank_rng``; rank 0's are ``rng.json``, written
with the weights). The batch order of an epoch is a pure function of ``(seed, epoch)``, so a run
stopped after k steps and resumed reaches the same parameters as an uninterrupted one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

import torch

from c2fsum.config import TrainConfig
from c2fsum.errors import CheckpointError, TrainingError
from c2fsum.losses.reinforce import MovingAverageBaseline
from c2fsum.models import Model
from c2fsum.models.checkpoint import warm_start
from c2fsum.training import rng
from c2fsum.training.checkpoint import restore_training
from c2fsum.training.distributed import DistContext, rank_seed
from c2fsum.training.optim import Schedule
from c2fsum.training.run_log import RunLog
from c2fsum.utils.io import existing_checkpoint_dir

log = logging.getLogger(__name__)


@dataclass
class Position:
    step: int = 0
    epoch: int = 0
    batch: int = 0
    """Index of the next batch of ``epoch``."""
    tokens: int = 0
    elapsed: float = 0.0
    history: list = field(default_factory=list)
    skipped: int = 0
    """Steps skipped because the loss, rewards or gradients were NaN/Inf (:mod:`c2fsum.training.nonfinite`)."""
    nonfinite_in_a_row: int = 0


def trainer_state(
    schedule: Schedule, pos: Position, baseline: MovingAverageBaseline, run_log: RunLog, dist: DistContext
) -> dict:
    """``trainer.json`` of a checkpoint (every rank takes part: the other ranks' generators are gathered)."""
    state = {
        "schedule": vars(schedule).copy(),
        "position": vars(pos).copy(),
        "baseline": baseline.state(),
        "log": run_log.state(),
    }
    if dist.enabled:
        state["rank_rng"] = dist.gather(rng.capture())[1:]  # rank 0's: rng.json
    return state


def start(
    out: Path,
    model: Model,
    optimizer: torch.optim.Optimizer,
    vocab_size: int,
    tc: TrainConfig,
    dist: DistContext,
    run_log: RunLog,
    *,
    resume: bool,
) -> tuple[Schedule, Position, MovingAverageBaseline]:
    """The schedule, position and baseline a run starts from: with ``resume``, those of ``out/last``
    (weights, optimizer, generators and log restored as it saved them,
    :func:`c2fsum.training.checkpoint.restore_training`); else a new run (refused when ``out``
    already holds one), from ``train.init_from``'s weights if set, with an empty log."""
    last = existing_checkpoint_dir(out / "last")
    if not resume:
        if last is not None:
            raise TrainingError(f"{out} already holds a run; use --resume to continue it or choose another --out")
        if tc.init_from:
            try:
                log.info(warm_start(model, tc.init_from))
            except CheckpointError as e:
                raise TrainingError(f"train.init_from={tc.init_from}: {e}") from e
        run_log.start()
        return Schedule(), Position(), MovingAverageBaseline(tc.reinforce_beta)
    if last is None:
        raise TrainingError(f"--resume: {out}/last does not exist")
    state = restore_training(last, model=model, optimizer=optimizer, vocab_size=vocab_size)
    pos = Position(**state["position"])
    if dist.rank > 0:
        restore_rank_rng(last, state.get("rank_rng") or [], dist, tc.seed + pos.step)
    run_log.resume(state.get("log"), pos.step)  # checkpoints written before "log": rows by step
    log.info("resumed from %s at step %d (epoch %d, batch %d)", last, pos.step, pos.epoch, pos.batch)
    return Schedule(**state["schedule"]), pos, MovingAverageBaseline(tc.reinforce_beta, state.get("baseline"))


def restore_rank_rng(ckpt: Path, ranks: list, dist: DistContext, seed: int) -> None:
    """This process's (rank > 0) random generators as the checkpoint saved them; new ones, drawn
    from ``seed``, when the checkpoint was written by another number of processes."""
    if len(ranks) == dist.world - 1:
        rng.restore(ranks[dist.rank - 1])
        return
    log.warning(
        "%s was written by %d process(es), this run has %d: rank %d draws new random numbers",
        ckpt,
        len(ranks) + 1,
        dist.world,
        dist.rank,
    )
    torch.manual_seed(rank_seed(seed, dist.rank))
