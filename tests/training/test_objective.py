"""The training objective (training/objective.py): hand-computed losses on a stub model, the
soft/hard schedule, and two paths that must agree (fused vs plain NLL; the trainer vs the
benchmarks on the same batch)."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest
import torch
from torch import nn

from c2fsum.config import Config, load_config
from c2fsum.data.batching import Example, collate
from c2fsum.losses.reinforce import MovingAverageBaseline
from c2fsum.models.base import Capabilities, ForwardOutput
from c2fsum.modules.attention import Attention
from c2fsum.training.objective import (
    Objective,
    add_return_sums,
    batch_loss,
    soft_attention_for_batch,
    update_baseline,
)
from c2fsum.training.trainer import Trainer

BENCH = Path(__file__).resolve().parents[2] / "bench"


class StubModel(nn.Module):
    """Returns fixed log p(y_t) and log pi_t: ``target_lp`` and ``policy`` ``(B, T)``."""

    capabilities = Capabilities(hierarchical=True, hard=True)

    def __init__(self, target_lp: list[list[float]], policy: list[list[float]] | None):
        super().__init__()
        self.target_lp = nn.Parameter(torch.tensor(target_lp, dtype=torch.float64))
        self.policy = None if policy is None else nn.Parameter(torch.tensor(policy, dtype=torch.float64))

    def forward(self, src, src_mask, tgt_in, src_ext=None, n_ext=0, target=None, reading=None):
        return ForwardOutput(None, Attention(torch.zeros(1), policy=self.policy), target_lp=self.target_lp)


def stub_batch(lengths: list[int]):
    """A batch whose targets have ``lengths`` tokens (``</s>`` added by collate: T = max + 1)."""
    exs = [
        Example(
            id=str(i),
            words=[],
            src=[5] * 4,
            src_ext=[5] * 4,
            oovs=[],
            tgt=[6] * n,
            tgt_ext=[6] * n,
            tgt_words=[],
            refs=[],
        )
        for i, n in enumerate(lengths)
    ]
    return collate(exs, chunks=1, chunk_len=4)


def test_ml_loss_is_the_summed_nll_per_document_by_hand():
    # two documents: 1 target word + </s> (T = 2) and 0 words + </s>; padding holds -9 (ignored)
    batch = stub_batch([1, 0])
    model = StubModel([[-1.0, -2.0], [-0.5, -9.0]], policy=None)
    out = batch_loss(model, batch, Objective(), MovingAverageBaseline())
    assert out.nll.item() == pytest.approx(3.5)  # 1 + 2 + 0.5
    assert out.loss.item() == pytest.approx(3.5 / 2)  # per document
    assert out.return_sums is None and out.rewards is None
    out = batch_loss(model, batch, Objective(), MovingAverageBaseline(), docs=5.0)  # a shard of 5 global documents
    assert out.loss.item() == pytest.approx(3.5 / 5)


def test_reinforce_term_and_baseline_update_by_hand():
    """thesis eq. 4.15 with gamma 0.5: rewards r = (-1, -2) -> returns R = (-1 + 0.5 (-2), -2) = (-2, -2);
    baseline b = (0, 0) at first, so the advantages are (-2, -2) and the surrogate
    -lambda sum_t (R_t - b_t) log pi_t = -0.3 (-2 ln 0.5 - 2 ln 0.25) = 0.6 ln 0.125."""
    batch = stub_batch([1])
    model = StubModel([[-1.0, -2.0]], policy=[[math.log(0.5), math.log(0.25)]])
    baseline = MovingAverageBaseline(0.1)
    out = batch_loss(model, batch, Objective(reinforce_gamma=0.5, reinforce_scale=0.3), baseline)
    assert out.nll.item() == pytest.approx(3.0)
    assert out.loss.item() == pytest.approx(3.0 + 0.6 * math.log(0.125))
    sums, counts = out.return_sums
    assert sums.tolist() == [-2.0, -2.0] and counts.tolist() == [1.0, 1.0]
    # gradient of log pi_t: -lambda (R_t - b_t) = 0.6 each; of log p(y_t): 1 (the NLL; returns are detached)
    out.loss.backward()
    assert model.policy.grad[0].tolist() == pytest.approx([0.6, 0.6])
    assert model.target_lp.grad[0].tolist() == pytest.approx([-1.0, -1.0])
    # b_t <- b_t + beta (mean R_t - b_t) = 0.1 * -2
    update_baseline(baseline, [out.return_sums])
    assert baseline.state() == pytest.approx([-0.2, -0.2])
    # the next batch's advantages use the moved baseline: (-2 + 0.2) per step
    out = batch_loss(model, batch, Objective(reinforce_gamma=0.5, reinforce_scale=0.3), baseline)
    assert out.loss.item() == pytest.approx(3.0 + 0.3 * 1.8 * math.log(0.125))


def test_return_sums_of_parts_add_up_and_pad():
    a = (torch.tensor([1.0, 2.0], dtype=torch.float64), torch.tensor([1.0, 1.0], dtype=torch.float64))
    b = (torch.tensor([3.0], dtype=torch.float64), torch.tensor([2.0], dtype=torch.float64))
    sums, counts = add_return_sums([a, b])
    assert sums.tolist() == [4.0, 2.0] and counts.tolist() == [3.0, 1.0]
    assert [t.tolist() for t in add_return_sums([])] == [[], []]


def test_mixed_objective_needs_a_reward():
    with pytest.raises(ValueError, match="reward"):
        batch_loss(StubModel([[-1.0, -2.0]], None), stub_batch([1]), Objective(kind="mixed"), MovingAverageBaseline())


def test_soft_hard_schedule():
    hard, soft_model = StubModel([[0.0]], None), nn.Linear(1, 1)
    soft_model.capabilities = Capabilities(hierarchical=True)  # type: ignore[assignment]  # MODEL 2
    assert soft_attention_for_batch(soft_model, epoch=0, soft_pretrain_epochs=3, alternate=0.5) is None
    # +PRETRAIN: soft for the first epochs, no random draw
    state = torch.get_rng_state()
    assert soft_attention_for_batch(hard, epoch=1, soft_pretrain_epochs=2, alternate=0.0) is True
    assert soft_attention_for_batch(hard, epoch=2, soft_pretrain_epochs=2, alternate=0.0) is False
    assert torch.equal(state, torch.get_rng_state())
    # +ALTERNATE: one draw u ~ U(0, 1), soft when u < alternate
    torch.manual_seed(3)
    u = float(torch.rand(()))
    torch.manual_seed(3)
    assert soft_attention_for_batch(hard, epoch=5, soft_pretrain_epochs=2, alternate=0.5) is (u < 0.5)
    assert soft_attention_for_batch(hard, epoch=5, soft_pretrain_epochs=2, alternate=1.0) is True


def test_objective_defaults_are_the_train_config_defaults():
    """The benchmarks use ``Objective()``: it must be the objective a default run trains with."""
    cfg = Config()
    assert Objective.from_config(cfg) == Objective(max_len=cfg.data.max_tgt_len + 1)


# MODEL 3 at tiny sizes on 40 shared documents (grid 4 x 20)
TINY3 = (
    "model.family=model3 model.emb_dim=16 model.hidden=24 model.enc_layers=1 model.dec_layers=1 "
    "model.chunk_filters=8 data.chunks=4 data.chunk_len=20 data.max_tgt_len=15 train.batch_size=8 "
    "data.vocab_size=2000"
).split()


def load_speed():
    spec = importlib.util.spec_from_file_location("c2fsum_bench_speed", BENCH / "speed.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("family", ["model0", "model3"])
def test_the_benchmarks_and_the_trainer_give_the_same_loss(family, prepared_small, tmp_path):
    """bench/speed.py (and bench/train_policy.py, which calls it) and ``Trainer.batch_loss``: the
    same loss, NLL and MODEL 3 return sums for the same batch, weights and random state."""
    speed = load_speed()
    t = Trainer(load_config(None, [*TINY3, f"model.family={family}"]), prepared_small, tmp_path / "r", progress=False)
    batch = collate(t.train_ex[:8], chunks=4, chunk_len=20)
    t.model.train()
    torch.manual_seed(11)
    loss, nll = t.batch_loss(batch)
    torch.manual_seed(11)
    bench = speed.bench_loss(t.model, batch, MovingAverageBaseline())
    assert torch.equal(loss, bench.loss) and torch.equal(nll, bench.nll)
    if family == "model3":
        (sums, counts), bsums = t.returns.sums[0], bench.return_sums
        assert torch.equal(sums, bsums[0]) and torch.equal(counts, bsums[1])
    # --plain-loss (log-softmax over V, then gather) is the same objective by another path
    torch.manual_seed(11)
    plain = speed.bench_loss(t.model, batch, MovingAverageBaseline(), plain=True)
    torch.testing.assert_close(plain.loss, loss, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(plain.nll, nll, rtol=1e-5, atol=1e-4)


def test_mixed_loss_is_the_weighted_self_critical_and_ml_terms(prepared_small, tmp_path):
    """Paulus eq. 16: gamma L_rl / D + (1 - gamma) L_ml / D, with L_rl from :func:`self_critical`
    on the same random stream (the teacher-forced pass first, as in ``batch_loss``)."""
    from c2fsum.training.objective import self_critical

    cfg = load_config(None, [*TINY3, "model.family=model0", "train.objective=mixed", "train.rl_weight=0.25"])
    t = Trainer(cfg, prepared_small, tmp_path / "r", progress=False)
    batch = collate(t.train_ex[:4], chunks=4, chunk_len=20)
    t.model.train()
    torch.manual_seed(5)
    mixed = batch_loss(t.model, batch, t.objective, t.baseline, reward=t.reward)
    torch.manual_seed(5)
    ml = batch_loss(t.model, batch, Objective(), t.baseline)
    rl, r_sample, r_greedy = self_critical(t.model, batch, t.reward, max_len=cfg.data.max_tgt_len + 1)
    assert mixed.rewards == (float(r_sample.mean()), float(r_greedy.mean()))
    torch.testing.assert_close(mixed.loss, 0.25 * rl / 4 + 0.75 * ml.loss, rtol=0, atol=1e-6)


def test_coarse_supervision_adds_its_weighted_loss_on_the_same_pass(prepared_small, tmp_path):
    """train.coarse_supervision = mu: the loss of the same batch, weights and random stream is the
    loss without it plus mu L_c / D, L_c computed from that pass's chunk attention."""
    from c2fsum.losses.coarse import chunks_holding_targets, coarse_supervision_loss
    from c2fsum.training.objective import COARSE_MIN_ID

    cfg = load_config(None, [*TINY3, "model.pointer=true", "train.coarse_supervision=0.5"])
    t = Trainer(cfg, prepared_small, tmp_path / "r", progress=False)
    assert t.objective.coarse_supervision == 0.5
    batch = collate(t.train_ex[:8], chunks=4, chunk_len=20)
    t.model.train()
    torch.manual_seed(7)
    sup = batch_loss(t.model, batch, t.objective, MovingAverageBaseline())
    torch.manual_seed(7)
    plain = batch_loss(
        t.model,
        batch,
        Objective.from_config(load_config(None, [*TINY3, "model.pointer=true"])),
        MovingAverageBaseline(),
    )
    assert sup.forward is not None and sup.forward.attention.coarse is not None
    held = chunks_holding_targets(batch.src_ext, batch.tgt_ext, min_id=COARSE_MIN_ID)
    lc, steps = coarse_supervision_loss(sup.forward.attention.coarse, held, batch.tgt_mask)
    assert steps > 10  # the documents' rare target words are found in their chunks
    torch.testing.assert_close(sup.loss, plain.loss + 0.5 * lc / 8, rtol=0, atol=1e-5)
