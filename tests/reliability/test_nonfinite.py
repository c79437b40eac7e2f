"""Numerical faults: a NaN/Inf in the loss, the gradients or a REINFORCE reward skips the step
with a warning; past ``train.max_nonfinite_steps`` in a row training stops with a clear error
and the last checkpoint holds the last good parameters."""

from __future__ import annotations

import logging

import pytest
import torch
from safetensors.torch import load_file

import tiny
from c2fsum.config import load_config
from c2fsum.errors import TrainingError
from c2fsum.losses import reinforce
from c2fsum.losses.checks import NonFiniteError, require_finite
from c2fsum.losses.reinforce import MovingAverageBaseline, discounted_returns, reinforce_loss
from c2fsum.models.checkpoint import load_checkpoint
from c2fsum.training.trainer import Trainer

TINY = [
    *tiny.TINY,
    "train.seed=5",
    "data.vocab_size=500",
    "train.log_every=1",
]


def weights(run):
    return load_file(str(run / "last" / "model.safetensors"))


def poison_loss_at(trainer: Trainer, steps: set[int], value: float = float("nan")) -> None:
    """Make the training loss of the given (1-based) steps NaN/Inf, as an overflow would."""
    real = trainer.batch_loss

    def batch_loss(batch, docs=None, *reading):
        loss, nll = real(batch, docs, *reading)
        if trainer.pos.step + 1 in steps:
            loss = loss * value
        return loss, nll

    trainer.batch_loss = batch_loss


def test_a_nan_loss_skips_the_step_and_warns(prepared_small, tmp_path, caplog):
    t = Trainer(load_config(None, TINY + ["train.max_steps=2"]), prepared_small, tmp_path / "t", progress=False)
    poison_loss_at(t, {2})
    with caplog.at_level(logging.WARNING, logger="c2fsum.training.nonfinite"):
        summary = t.fit()
    assert summary["steps"] == 2 and t.pos.skipped == 1
    assert any(
        "step 2" in r.message and "skipped, training loss: 1 of 1 values are not finite (1 NaN" in r.message
        for r in caplog.records
    )
    # the skipped step left the parameters as step 1 made them
    one = Trainer(load_config(None, TINY + ["train.max_steps=1"]), prepared_small, tmp_path / "one", progress=False)
    one.fit()
    a, b = weights(tmp_path / "t"), weights(tmp_path / "one")
    assert all(torch.equal(a[k], b[k]) for k in a) and all(bool(torch.isfinite(v).all()) for v in a.values())
    rows = (tmp_path / "t" / "metrics.jsonl").read_text()
    assert "NaN" not in rows and "Infinity" not in rows


def test_inf_gradients_skip_the_step(prepared_small, tmp_path, caplog):
    t = Trainer(load_config(None, TINY + ["train.max_steps=2"]), prepared_small, tmp_path / "t", progress=False)
    p = next(t.model.parameters())
    p.register_hook(lambda g: g * float("inf") if t.pos.step + 1 == 2 else g)
    with caplog.at_level(logging.WARNING, logger="c2fsum.training.nonfinite"):
        t.fit()
    assert t.pos.skipped == 1 and any("gradient norm is" in r.message for r in caplog.records)
    one = Trainer(load_config(None, TINY + ["train.max_steps=1"]), prepared_small, tmp_path / "one", progress=False)
    one.fit()
    a, b = weights(tmp_path / "t"), weights(tmp_path / "one")
    assert all(torch.equal(a[k], b[k]) for k in a) and all(bool(torch.isfinite(v).all()) for v in a.values())


def test_too_many_faults_in_a_row_stop_with_the_last_good_checkpoint_intact(prepared_small, tmp_path):
    cfg = load_config(None, TINY + ["train.max_steps=10", "train.eval_every=1", "train.max_nonfinite_steps=2"])
    t = Trainer(cfg, prepared_small, tmp_path / "t", progress=False)
    poison_loss_at(t, set(range(2, 11)), float("inf"))
    with pytest.raises(
        TrainingError,
        match=r"step 4 .*3 consecutive steps with NaN/Inf \(train.max_nonfinite_steps=2\)"
        r".*last good checkpoint .*last is intact",
    ):
        t.fit()
    one = Trainer(load_config(None, TINY + ["train.max_steps=1"]), prepared_small, tmp_path / "one", progress=False)
    one.fit()
    good = load_checkpoint(tmp_path / "t", which="last").model.state_dict()
    ref = weights(tmp_path / "one")
    assert all(torch.equal(good[k], ref[k]) for k in ref)
    # a good step in between resets the count: faults at 2, 3, 5, 6 never make 3 in a row
    t = Trainer(cfg, prepared_small, tmp_path / "u", progress=False)
    poison_loss_at(t, {2, 3, 5, 6})
    assert t.fit()["steps"] == 10 and t.pos.skipped == 4


def test_require_finite_names_the_tensor_and_counts():
    assert require_finite("x", torch.ones(3)).sum() == 3
    with pytest.raises(NonFiniteError, match=r"my tensor: 2 of 4 values are not finite \(1 NaN, 1 Inf\)"):
        require_finite("my tensor", torch.tensor([1.0, float("nan"), float("-inf"), 0.0]))
    require_finite("ints are always finite", torch.tensor([1, 2]))


def test_reinforce_checks_rewards_returns_baseline_and_advantages():
    mask = torch.tensor([[True, True, False]])
    # -inf at a padded position is allowed (masked out); the golden returns are unchanged
    R = discounted_returns(torch.tensor([[1.0, 2.0, float("-inf")]]), mask, 0.5)
    assert torch.equal(R, torch.tensor([[2.0, 2.0, 0.0]]))
    with pytest.raises(NonFiniteError, match="REINFORCE rewards: 1 of 3"):
        discounted_returns(torch.tensor([[1.0, float("nan"), 0.0]]), mask, 0.5)
    logp = torch.zeros(1, 3, requires_grad=True)
    with pytest.raises(NonFiniteError, match="REINFORCE baseline"):
        reinforce_loss(logp, R, torch.tensor([0.0, float("inf"), 0.0]), mask, 0.3)
    with pytest.raises(NonFiniteError, match="REINFORCE returns"):
        reinforce_loss(logp, torch.tensor([[float("nan"), 0.0, 0.0]]), torch.zeros(3), mask, 0.3)
    with pytest.raises(NonFiniteError, match="REINFORCE advantages"):  # finite inputs, overflowing difference
        reinforce_loss(logp, torch.tensor([[3e38, 0.0, 0.0]]), torch.tensor([-3e38, 0.0, 0.0]), mask, 0.3)
    b = MovingAverageBaseline(0.1)
    with pytest.raises(NonFiniteError, match="baseline update"):
        b.update(torch.tensor([[float("nan"), 1.0, 1.0]]), mask)
    assert b.state() == []  # nothing absorbed


def test_model3_skips_a_step_whose_rewards_are_nan_and_keeps_its_baseline(
    prepared_small, tmp_path, monkeypatch, caplog
):
    cfg = load_config(None, TINY + ["model.family=model3", "model.chunk_filters=8", "train.max_steps=2"])
    t = Trainer(cfg, prepared_small, tmp_path / "m3", progress=False)
    real = reinforce.discounted_returns

    def poisoned(rewards, mask, gamma):
        if t.pos.step + 1 == 2:
            rewards = rewards.clone()
            rewards[0, 0] = float("nan")
        return real(rewards, mask, gamma)

    monkeypatch.setattr("c2fsum.training.objective.discounted_returns", poisoned)
    with caplog.at_level(logging.WARNING, logger="c2fsum.training.nonfinite"):
        t.fit()
    assert t.pos.skipped == 1 and any("REINFORCE rewards: 1 of" in r.message for r in caplog.records)
    assert all(v == v for v in t.baseline.state()) and t.baseline.state()  # updated at step 1 only
