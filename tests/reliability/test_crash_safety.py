"""Crash safety: training killed with SIGKILL at random moments and at chosen points of
checkpoint writing, then resumed, ends with the parameters of an uninterrupted run (CPU), and
after every kill each checkpoint of the run directory is complete and readable.

The training runs in child processes of a ``forkserver`` (torch imported once, before any
thread pool exists), so each start costs a fork rather than a Python start-up.
"""

from __future__ import annotations

import json
import multiprocessing
import random
import signal
import time
from pathlib import Path

import crash_child
import pytest
import torch
from safetensors.torch import load_file

import tiny
from c2fsum.models.checkpoint import load_checkpoint, verify_checkpoint
from c2fsum.utils.io import existing_checkpoint_dir

STEPS = 16
# 40 training documents in batches of 8: 5 batches per epoch, so 16 steps cross three epoch ends;
# validating and checkpointing after every step makes checkpoint writing most of the time
CFG = [
    *tiny.TINY,
    "train.seed=11",
    "data.vocab_size=500",
    "train.log_every=1",
    "train.eval_every=1",
    "train.threads=1",
    "train.optimizer=adam",
    "train.lr=0.01",
    f"train.max_steps={STEPS}",
]


@pytest.fixture(scope="module")
def ctx():
    c = multiprocessing.get_context("forkserver")
    # torch.optim imports torch._dynamo on first use (seconds): import it once, in the server
    c.set_forkserver_preload(
        ["torch", "torch._dynamo", "torch.utils.tensorboard", "c2fsum.training.trainer", "crash_child"]
    )
    return c


def run_child(
    ctx, data, out, *, kill_after: float | None = None, fault: str | None = None, after_saves: int = 0
) -> int:
    """Train in a child process (resuming if ``out`` holds a checkpoint); return its exit code."""
    resume = existing_checkpoint_dir(out / "last") is not None
    p = ctx.Process(target=crash_child.train, args=(CFG, str(data), str(out), resume, fault, after_saves))
    p.start()
    if kill_after is not None:
        p.join(kill_after)
        if p.is_alive():
            p.kill()  # SIGKILL
    p.join(120)
    assert p.exitcode is not None, "training child did not finish"
    return p.exitcode


def assert_every_checkpoint_readable(out: Path, seen: set[str]) -> None:
    for name in ("last", "best"):
        d = existing_checkpoint_dir(out / name)
        if d is None:
            assert name not in seen, f"{name} existed before the kill and is gone now"
            continue
        seen.add(name)
        assert (d / "manifest.json").exists(), f"{d}: no manifest"
        verify_checkpoint(d)  # every file present, complete, unaltered
        load_checkpoint(d)  # and the model rebuilds from it
        assert set(json.loads((d / "rng.json").read_text())) >= {"torch_cpu", "python", "numpy"}


def weights(d: Path) -> dict[str, torch.Tensor]:
    return load_file(str(d / "model.safetensors"))


def test_sigkill_at_random_moments_and_during_checkpoint_writing(ctx, prepared_small, tmp_path):
    ref = tmp_path / "uninterrupted"
    t0 = time.monotonic()
    assert run_child(ctx, prepared_small, ref) == 0
    whole_run = time.monotonic() - t0  # random kills fall inside a run, however fast the machine

    out, seen, kills = tmp_path / "killed", set(), []
    rng = random.Random(2026)
    for fault in crash_child.CHECKPOINT_FAULTS:  # at chosen points of a checkpoint write
        code = run_child(ctx, prepared_small, out, fault=fault, after_saves=rng.randint(1, 4))
        kills.append((fault, code))
        assert code == -signal.SIGKILL, (fault, code)
        assert_every_checkpoint_readable(out, seen)
    # at random moments, in runs of their own from the start: resumed late in the run above, the
    # child could finish before a random kill comes, and that kill would test nothing. A run that
    # finished anyway (a fast machine) is replaced by a fresh one killed sooner.
    for attempt in range(6):
        out_random, seen_random, random_kills = tmp_path / f"killed-at-random-{attempt}", set(), 0
        for _ in range(3):
            t0 = time.monotonic()
            kill_after = rng.uniform(0.2, 0.8) * whole_run * 0.5**attempt
            code = run_child(ctx, prepared_small, out_random, kill_after=kill_after)
            kills.append(("random", code, round(time.monotonic() - t0, 2)))
            assert_every_checkpoint_readable(out_random, seen_random)
            random_kills += code == -signal.SIGKILL
            if code == 0:
                break
        if random_kills:
            break
    assert sum(1 for k in kills if k[1] == -signal.SIGKILL) >= len(crash_child.CHECKPOINT_FAULTS) + 1, kills
    for run in (out, out_random):  # finish both runs
        assert run_child(ctx, prepared_small, run) == 0, run.name

    for run in (out, out_random):
        for name in ("last", "best"):
            a, b = weights(ref / name), weights(run / name)
            assert a.keys() == b.keys()
            for k in a:
                assert torch.equal(a[k], b[k]), (run.name, name, k, kills)
    for run in (out, out_random):
        assert not list(run.glob(".*.tmp")) and not list(run.glob("*.old")), sorted(p.name for p in run.iterdir())
