"""Every preset in configs/ trains a few steps and evaluates from the CLI (sizes shrunk, options kept)."""

import json
from pathlib import Path

import pytest
import torch

import tiny
from c2fsum.cli.main import main

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "configs").glob("*.yaml"))
SHRINK = tiny.SHRINK


def test_there_is_a_preset_for_every_row_of_table_6_1():
    names = {p.stem for p in CONFIGS}
    rows = [
        "model0",
        "model1",
        "model2",
        "model2-bow",
        "model2-pos",
        "model2-5x80",
        "model2-2x200",
        "model3",
        "model3-pos",
        "model3-multi2",
        "model3-pos-multi2",
        "model3-multi3",
        "model3-pretrain",
        "model3-alternate",
        "paulus-ml",
        "paulus-rl",
    ]
    for r in rows:
        assert r in names and f"{r}-cpu" in names, r


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.stem)
def test_preset_trains_and_evaluates(config, prepared_small, tmp_path, capsys):
    run, out = tmp_path / "run", tmp_path / "eval"
    assert main(tiny.train_argv(config, prepared_small, run, 2, SHRINK)) == 0
    assert json.loads(capsys.readouterr().out)["steps"] == 2
    assert (
        main(
            [
                "-q",
                "evaluate",
                "--model",
                str(run),
                "--data",
                str(prepared_small),
                "--split",
                "test",
                "--out",
                str(out),
                "--limit",
                "2",
                "--beam",
                "2",
            ]
        )
        == 0
    )
    m = json.loads((out / "metrics.json").read_text())
    assert m["n_docs"] == 2 and m["ppl"] > 1 and 0 <= m["entropy"] <= m["entropy_uniform"] + 1e-6
    preds = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert m["fine_fraction"] == pytest.approx(sum(p["fine_fraction"] for p in preds) / 2)
    assert m["seconds_per_doc"] > 0 and m["words_read"] > 0
    family = json.loads((run / "best" / "config.json").read_text())["model"]["family"]
    for p in preds:
        if family == "select-rewrite":  # the word level reads only the picked sentences
            assert 0 < p["fine_fraction"] < 1
            continue
        if family != "model3":  # every word of the grid went through the word-level encoder
            assert p["fine_fraction"] == 1.0
            continue
        # lazy MODEL 3 encoded at least the chunks its summary read (and the last one, the
        # decoder's initial state), words counted as the grid holds them (40 per full chunk)
        read = set(p["chunks"]) | {p["n_chunks"] - 1}
        assert 0 < p["fine_fraction"] <= 1 and len(p["chunks"]) >= 1
        assert p["fine_fraction"] >= (len(read) - 1) / p["n_chunks"] - 1e-9


def _train_recording_attention(config: Path, data: Path, out: Path, monkeypatch, steps: int, *extra: str):
    """Train ``config`` (shrunk) for ``steps`` steps; every coarse-attention call of a training
    step is recorded as ``(mode, samples, weights)`` (weights: the chunk weights it used)."""
    from c2fsum.config import load_config
    from c2fsum.modules import hierarchical
    from c2fsum.training.trainer import Trainer

    calls: list[tuple[str, int, object]] = []
    real_forward, real_sample = hierarchical.CoarseToFineAttention.forward, hierarchical.sample_chunks
    drawn: list = []

    def forward(self, *args, mode="soft", samples=1, **kw):
        out = real_forward(self, *args, mode=mode, samples=samples, **kw)
        if self.training:
            calls.append((mode, samples, drawn.pop() if drawn else None))
        return out

    def sample(alpha_s, k):
        weights, logp = real_sample(alpha_s, k)
        drawn.append(weights.detach())
        return weights, logp

    monkeypatch.setattr(hierarchical.CoarseToFineAttention, "forward", forward)
    monkeypatch.setattr(hierarchical, "sample_chunks", sample)
    cfg = load_config(config, [*SHRINK, f"train.max_steps={steps}", "train.log_every=1000", *extra])
    t = Trainer(cfg, data, out, progress=False)
    t.fit()
    return t, calls


CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"


def test_pretrain_preset_trains_softly_for_its_first_epoch(prepared_small, tmp_path, monkeypatch):
    # 40 documents in batches of 8: 5 steps make the first epoch; step 6 is in the second (hard)
    t, calls = _train_recording_attention(
        CONFIG_DIR / "model3-pretrain-cpu.yaml", prepared_small, tmp_path, monkeypatch, 6
    )
    assert t.cfg.train.soft_pretrain_epochs == 1
    per_step = len(calls) // 6
    assert per_step > 0 and len(calls) == 6 * per_step  # one call per target word, the same each step
    modes = [m for m, _, _ in calls]
    assert set(modes[: 5 * per_step]) == {"soft"} and set(modes[5 * per_step :]) == {"sample"}


def test_alternate_preset_mixes_soft_and_hard_batches(prepared_small, tmp_path, monkeypatch):
    t, calls = _train_recording_attention(
        CONFIG_DIR / "model3-alternate-cpu.yaml", prepared_small, tmp_path, monkeypatch, 12
    )
    assert t.cfg.train.alternate == 0.5
    per_step = len(calls) // 12
    steps = [{m for m, _, _ in calls[i : i + per_step]} for i in range(0, len(calls), per_step)]
    assert all(len(s) == 1 for s in steps)  # one choice per batch
    # P(all 12 batches alike) = 2 * 0.5**12 < 0.001 for a fair coin (seeded: deterministic here)
    assert {"soft"} in steps and {"sample"} in steps


@pytest.mark.parametrize("preset,k", [("model3-multi2-cpu", 2), ("model3-multi3-cpu", 3), ("model3-cpu", 1)])
def test_multi_presets_draw_k_chunks_per_step(preset, k, prepared_small, tmp_path, monkeypatch):
    _, calls = _train_recording_attention(CONFIG_DIR / f"{preset}.yaml", prepared_small, tmp_path, monkeypatch, 1)
    assert calls and all(m == "sample" and s == k for m, s, _ in calls)
    weights = [w for _, _, w in calls]
    # alpha~^s = mu / k: multiples of 1/k summing to 1; with k > 1 some steps mix two chunks
    for w in weights:
        assert torch.allclose(w.sum(-1), torch.ones(w.size(0)))
        assert torch.allclose(w * k, (w * k).round())
    mixed = any(((w > 0) & (w < 1)).any() for w in weights)
    assert mixed is (k > 1)


@pytest.mark.parametrize("preset", ["model2-pos-cpu", "model3-pos-cpu", "model3-pos-multi2-cpu"])
def test_pos_presets_give_chunks_a_learned_position(preset, prepared_small, tmp_path, monkeypatch):
    from c2fsum.config import load_config
    from c2fsum.training.trainer import Trainer

    cfg = load_config(CONFIG_DIR / f"{preset}.yaml", [*SHRINK, "train.max_steps=2"])
    t = Trainer(cfg, prepared_small, tmp_path, progress=False)
    enc = t.model.source.chunk_encoder
    assert cfg.model.pos_dim == 25 and enc.pos is not None and enc.pos.weight.shape == (cfg.data.chunks, 25)
    before = enc.pos.weight.detach().clone()
    # the same words in every chunk: the chunk vectors differ only by their position
    ids = torch.full((1, 3, 4), 7)
    mask = torch.ones(1, 3, 4, dtype=torch.bool)
    vec = enc(ids, t.model.source.emb(ids), mask)  # (1, 3, Hc)
    assert torch.allclose(vec[0, 0, :-25], vec[0, 1, :-25]) and not torch.allclose(vec[0, 0], vec[0, 1])
    t.fit()
    assert not torch.equal(before, enc.pos.weight)  # trained
