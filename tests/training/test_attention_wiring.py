"""MODEL 3's attention switches inside the trainer: +PRETRAIN / +ALTERNATE choose soft attention per
training batch (``Trainer.choose_attention``), and validation always scores the hard model."""

import json
import math

import pytest
import torch

import tiny
from c2fsum.config import load_config
from c2fsum.evaluation.perplexity import perplexity
from c2fsum.models.base import Reading
from c2fsum.training.trainer import Trainer

TINY3 = [
    *tiny.TINY,
    "model.family=model3",
    "model.chunk_filters=12",
    "data.max_tgt_len=15",
    "train.log_every=1",
    "train.seed=5",
    "data.vocab_size=2000",
]


def trainer(data, out, *extra):
    return Trainer(load_config(None, TINY3 + list(extra)), data, out, progress=False)


def test_pretrain_is_soft_for_its_epochs_then_hard(prepared_small, tmp_path):
    t = trainer(prepared_small, tmp_path / "r", "train.soft_pretrain_epochs=2")
    for epoch, soft in ((0, True), (1, True), (2, False), (5, False)):
        t.pos.epoch = epoch
        chosen = t.choose_attention()
        assert chosen is soft, epoch
        # what train_step passes with one batch; the model keeps nothing of it
        assert t.model.resolve(Reading(soft=chosen)).mode == ("soft" if soft else "sample")
        assert t.model.resolve(Reading()).mode == "sample"


def test_alternate_draws_soft_batches_with_its_probability(prepared_small, tmp_path):
    t = trainer(prepared_small, tmp_path / "r", "train.alternate=0.25")
    torch.manual_seed(0)
    draws = []
    for _ in range(2000):
        draws.append(t.choose_attention())
    share = sum(draws) / len(draws)
    assert abs(share - 0.25) < 4 * math.sqrt(0.25 * 0.75 / 2000)  # ~4 standard deviations
    assert 0 < sum(a != b for a, b in zip(draws, draws[1:], strict=False))  # it changes from batch to batch
    # alternate 0 (and no pretraining): always hard
    t.cfg.train.alternate = 0.0
    assert t.choose_attention() is False


def test_choose_attention_leaves_a_soft_model_alone(prepared_small, tmp_path):
    t = trainer(prepared_small, tmp_path / "r", "model.family=model2", "train.soft_pretrain_epochs=3")
    assert t.choose_attention() is None and t.model.resolve(Reading()).mode == "soft"


@pytest.mark.parametrize("option", ["train.soft_pretrain_epochs=5", "train.alternate=1.0"])
def test_validation_scores_the_hard_model_after_a_soft_batch(option, prepared_small, tmp_path):
    """+PRETRAIN / +ALTERNATE: the learning-rate schedule and ``best/`` follow validation, which
    must read the model as ``evaluate`` decodes it (hard argmax), whatever the last batch used."""
    t = trainer(prepared_small, tmp_path / "r", option, "train.max_steps=1")
    t.fit()  # one soft training step, then validation
    val = [r for r in map(json.loads, open(tmp_path / "r" / "metrics.jsonl")) if r["split"] == "val"]
    m = t.model
    hard, _, _ = perplexity(m, t.val_ex, t.cfg, t.device)
    assert val[-1]["ppl"] == pytest.approx(hard, rel=1e-9)
    m.eval()
    soft_read = m.resolve(Reading(soft=True))
    assert soft_read.mode == "argmax" and soft_read.lazy  # outside training the switch has no effect
    m.train()
    assert m.resolve(Reading(soft=True)).mode == "soft"
    # the check can fail: soft attention gives another perplexity on these documents
    m.coarse = "soft"
    soft, _, _ = perplexity(m, t.val_ex, t.cfg, t.device)
    m.coarse = "hard"
    assert abs(soft - hard) > 1e-6 * hard
