"""The training bar counts the time budget when there is one, not the epochs' steps (issue 29)."""

from __future__ import annotations

import re

from c2fsum.config import load_config
from c2fsum.training.progress import TrainingBar
from c2fsum.training.trainer import Trainer
from tiny import TINY


def test_with_a_time_budget_the_bar_counts_its_seconds(capsys):
    bar = TrainingBar(max_steps=25_080, max_minutes=2, step=0)
    assert bar.total == 120
    bar.advance(231, 54.4)
    bar.advance(232, 500.0)  # a step that ends past the budget fills the bar, no more
    bar.close()
    err = capsys.readouterr().err
    assert "/120 s of the time budget" in err and "train (step 232)" in err and "100%" in err
    assert "25080" not in err and "25,080" not in err


def test_a_resumed_run_starts_where_its_budget_was(capsys):
    bar = TrainingBar(max_steps=500, max_minutes=1, step=40, elapsed_s=30.0)
    assert bar.n == 30.0
    bar.close()
    assert " 50%|" in capsys.readouterr().err


def test_without_a_time_budget_the_bar_counts_steps(capsys):
    bar = TrainingBar(max_steps=10, max_minutes=None, step=2)
    bar.advance(3, 1.0)
    bar.advance(4, 2.0)
    bar.close()
    assert bar.n == 4 and bar.total == 10
    assert "4/10" in capsys.readouterr().err


def test_a_training_run_with_a_time_budget_shows_the_budget(prepared_small, tmp_path, capsys):
    cfg = load_config(None, [*TINY, "train.max_minutes=0.02", "train.eval_every=0", "data.vocab_size=2000"])
    summary = Trainer(cfg, prepared_small, tmp_path / "run", progress=True).fit()
    err = capsys.readouterr().err
    assert summary["stop"] == "max_minutes"
    assert re.search(r"\| \d/1 s of the time budget", err)  # 0.02 minutes: 1.2 s, shown as 1
    assert f"train (step {summary['steps']})" in err and "step/s" not in err
