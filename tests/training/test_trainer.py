import json

import pytest
import torch
from safetensors.torch import load_file

import tiny
from c2fsum.config import load_config
from c2fsum.errors import TrainingError
from c2fsum.models.checkpoint import load_checkpoint
from c2fsum.training.trainer import Trainer

TINY = [
    *tiny.TINY,
    "train.batch_size=4",  # not tiny's 8
    "train.log_every=1",
    "train.seed=7",
    "data.vocab_size=2000",
]


def tiny_cfg(*extra):
    return load_config(None, TINY + list(extra))


def test_resumed_training_equals_uninterrupted(prepared_small, tmp_path):
    # 40 training documents in batches of 16 -> 3 batches per epoch; 7 steps cross two epoch ends
    bs = "train.batch_size=16"
    full = Trainer(tiny_cfg("train.max_steps=7", bs), prepared_small, tmp_path / "full", progress=False)
    full.fit()
    part = Trainer(tiny_cfg("train.max_steps=4", bs), prepared_small, tmp_path / "part", progress=False)
    part.fit()
    resumed = Trainer(tiny_cfg("train.max_steps=7", bs), prepared_small, tmp_path / "part", resume=True, progress=False)
    summary = resumed.fit()
    assert summary["steps"] == 7
    a = load_file(str(tmp_path / "full" / "last" / "model.safetensors"))
    b = load_file(str(tmp_path / "part" / "last" / "model.safetensors"))
    assert a.keys() == b.keys()
    for k in a:
        assert torch.equal(a[k], b[k]), k

    # the log of the resumed run reads like the uninterrupted one
    def train_rows(p):
        return [
            (r["step"], round(r["ppl"], 6)) for r in map(json.loads, open(p / "metrics.jsonl")) if r["split"] == "train"
        ]

    assert train_rows(tmp_path / "full") == train_rows(tmp_path / "part")


EVERY_EPOCH = ("train.batch_size=16", "train.eval_every=3")  # 3 batches an epoch: eval_every divides it


def _rows(run) -> list[tuple]:
    """metrics.jsonl without the timing column."""
    return [
        (r["split"], r["step"], round(r["ppl"], 6))
        for r in map(json.loads, open(run / "metrics.jsonl", encoding="utf-8"))
    ]


def _same_params(a, b) -> None:
    x, y = (load_file(str(p / "last" / "model.safetensors")) for p in (a, b))
    assert x.keys() == y.keys() and all(torch.equal(x[k], y[k]) for k in x)


def test_each_step_is_validated_once_and_resuming_a_finished_run_adds_no_row(prepared_small, tmp_path):
    """eval_every dividing the epoch: one validation at the epoch's last step, not two; and a run
    killed after its final checkpoint, resumed, does not validate that step again (issue 27)."""
    cfg = tiny_cfg("train.max_steps=6", *EVERY_EPOCH)
    Trainer(cfg, prepared_small, tmp_path / "full", progress=False).fit()
    rows = _rows(tmp_path / "full")
    assert [step for split, step, _ in rows if split == "val"] == [3, 6]
    state = json.loads((tmp_path / "full" / "last" / "trainer.json").read_text())
    assert state["log"]["rows"] == len(rows) and state["log"]["last_val"]["step"] == 6
    summary = Trainer(cfg, prepared_small, tmp_path / "full", resume=True, progress=False).fit()
    assert _rows(tmp_path / "full") == rows and summary["steps"] == 6


def test_a_run_killed_between_two_rows_of_one_step_resumes_to_the_same_log(prepared_small, tmp_path, monkeypatch):
    """Rows written after the last checkpoint with that checkpoint's step number (a validation at
    an epoch's end) are dropped on resume: the log is truncated to the rows the checkpoint counted."""
    cfg = tiny_cfg("train.max_steps=6", *EVERY_EPOCH)
    Trainer(cfg, prepared_small, tmp_path / "full", progress=False).fit()

    class Killed(Exception):
        pass

    def killed_after_a_row(self, run):  # a row of step 3 after the step-3 checkpoint, then the kill
        self.run_log.write({"split": "val", "step": self.pos.step, "epoch": self.pos.epoch, "ppl": 1.0})
        raise Killed

    with monkeypatch.context() as m:
        m.setattr(Trainer, "_end_epoch", killed_after_a_row)
        with pytest.raises(Killed):
            Trainer(cfg, prepared_small, tmp_path / "part", progress=False).fit()
    Trainer(cfg, prepared_small, tmp_path / "part", resume=True, progress=False).fit()
    assert _rows(tmp_path / "part") == _rows(tmp_path / "full")
    _same_params(tmp_path / "full", tmp_path / "part")


def test_a_checkpoint_without_the_log_count_still_resumes(prepared_small, tmp_path):
    """trainer.json written before ``log`` was recorded: the log is rewound by step, as before."""
    bs = "train.batch_size=16"
    Trainer(tiny_cfg("train.max_steps=7", bs), prepared_small, tmp_path / "full", progress=False).fit()
    Trainer(tiny_cfg("train.max_steps=4", bs), prepared_small, tmp_path / "part", progress=False).fit()
    ckpt = tmp_path / "part" / "last"
    state = json.loads((ckpt / "trainer.json").read_text())
    del state["log"]
    (ckpt / "trainer.json").write_text(json.dumps(state))
    (ckpt / "manifest.json").unlink()  # an old checkpoint (its files are still read structurally)
    Trainer(tiny_cfg("train.max_steps=7", bs), prepared_small, tmp_path / "part", resume=True, progress=False).fit()
    _same_params(tmp_path / "full", tmp_path / "part")
    assert [r for r in _rows(tmp_path / "part") if r[0] == "train"] == [
        r for r in _rows(tmp_path / "full") if r[0] == "train"
    ]
    state = json.loads((tmp_path / "part" / "last" / "trainer.json").read_text())
    assert state["log"]["rows"] == len(_rows(tmp_path / "part"))  # counted again from the rewound log


def test_refuses_to_overwrite_a_run_and_resume_needs_one(prepared_small, tmp_path):
    Trainer(tiny_cfg("train.max_steps=1"), prepared_small, tmp_path / "r", progress=False).fit()
    with pytest.raises(TrainingError, match="--resume"):
        Trainer(tiny_cfg("train.max_steps=1"), prepared_small, tmp_path / "r", progress=False)
    with pytest.raises(TrainingError, match="does not exist"):
        Trainer(tiny_cfg(), prepared_small, tmp_path / "nothing", resume=True, progress=False)


def test_checkpoint_rebuilds_the_model(prepared_small, tmp_path):
    t = Trainer(tiny_cfg("train.max_steps=2"), prepared_small, tmp_path / "r", progress=False)
    t.fit()
    loaded = load_checkpoint(tmp_path / "r", which="last")
    for k, v in t.model.state_dict().items():
        assert torch.equal(v, loaded.model.state_dict()[k])
    assert len(loaded.vocab) == t.model.vocab_size == 2000 + 4  # data.vocab_size words + specials
    files = sorted(p.name for p in (tmp_path / "r" / "last").iterdir())
    assert "model.safetensors" in files and "config.json" in files and "vocab.txt" in files
    assert not any(p.suffix in (".pt", ".pkl", ".bin") for p in (tmp_path / "r").rglob("*"))


def test_learning_rate_halves_once_validation_stops_improving():
    from c2fsum.training.optim import Schedule

    s = Schedule()
    for ppl in (50.0, 40.0, 41.0, 30.0, 29.0):
        s.end_of_epoch(ppl, 0.5)
    # epochs 1-2 improve (scale 1), epoch 3 worsens -> decay starts and continues every epoch
    assert s.scale == 0.125 and s.decaying


def test_val_holdout_moves_validation_documents_into_training(prepared_small):
    cfg = tiny_cfg("data.val_holdout=3")
    t = Trainer.__new__(Trainer)
    from c2fsum.data.vocab import Vocab
    from c2fsum.training.splits import load_splits

    vocab = Vocab.load(prepared_small / "vocab.txt")
    train, val = load_splits(prepared_small, vocab, cfg)
    assert len(val) == 3 and len(train) == 40 + 10 - 3
    del t


def test_mixed_objective_trains_from_an_ml_model(prepared_small, tmp_path):
    # the wiring (init_from, logged rewards); the sign of the self-critical term is checked by
    # tests/training/test_policy_gradients_in_trainer.py (this test passes with it flipped)
    paulus = [
        "model.bidirectional=true",
        "model.temporal=true",
        "model.intra_decoder=true",
        "model.pointer=true",
        "model.share_embeddings=true",
        "model.output=paulus",
        "train.optimizer=adam",
        "train.lr=0.001",
    ]
    ml = Trainer(tiny_cfg("train.max_steps=2", *paulus), prepared_small, tmp_path / "ml", progress=False)
    ml.fit()
    rl_cfg = tiny_cfg("train.max_steps=2", *paulus, "train.objective=mixed", f"train.init_from={tmp_path / 'ml'}")
    rl = Trainer(rl_cfg, prepared_small, tmp_path / "rl", progress=False)
    start = {k: v.clone() for k, v in rl.model.state_dict().items()}
    best_ml = load_checkpoint(tmp_path / "ml").model.state_dict()
    assert all(torch.equal(start[k], best_ml[k]) for k in start)  # init_from copied the weights
    rl.fit()
    rows = [json.loads(x) for x in open(tmp_path / "rl" / "metrics.jsonl")]
    train = [r for r in rows if r["split"] == "train"]
    assert train and all(0.0 <= r["reward_sample"] <= 1.0 and 0.0 <= r["reward_greedy"] <= 1.0 for r in train)
    assert any(not torch.equal(start[k], v) for k, v in rl.model.state_dict().items())


def test_init_from_refuses_a_different_architecture(prepared_small, tmp_path):
    Trainer(tiny_cfg("train.max_steps=1"), prepared_small, tmp_path / "a", progress=False).fit()
    with pytest.raises(TrainingError, match="does not match"):
        Trainer(
            tiny_cfg("model.hidden=32", f"train.init_from={tmp_path / 'a'}"),
            prepared_small,
            tmp_path / "b",
            progress=False,
        )


def test_best_checkpoint_by_validation_rouge(prepared_small, tmp_path):
    t = Trainer(
        tiny_cfg("train.max_steps=2", "train.best_metric=rougeL", "train.rouge_val_docs=4", "decode.max_len=5"),
        prepared_small,
        tmp_path / "r",
        progress=False,
    )
    t.fit()
    val = [json.loads(x) for x in open(tmp_path / "r" / "metrics.jsonl") if '"val"' in x]
    assert val and all(0.0 <= r["rougeL"] <= 100.0 for r in val)
    assert t.schedule.best == max(r["rougeL"] for r in val)
    assert (tmp_path / "r" / "best" / "model.safetensors").exists()
    assert any((tmp_path / "r" / "tb").iterdir())  # TensorBoard event file


def test_a_flat_model_warm_starts_a_hard_one(prepared_small, tmp_path):
    """init_from a MODEL 0 run into MODEL 3 of the same sizes: every shared weight is copied (the
    word attention W becomes the fine W_w); the chunk encoder and W_s keep their own init. A
    MODEL 3 run does not start MODEL 0 (it would lose the chunk encoder silently)."""
    flat = ["model.pointer=true", "model.bidirectional=true"]
    Trainer(tiny_cfg("train.max_steps=2", *flat), prepared_small, tmp_path / "m0", progress=False).fit()
    source = load_file(str(tmp_path / "m0" / "best" / "model.safetensors"))
    hard = ["model.family=model3", "model.chunk_filters=8", *flat]
    fresh = Trainer(tiny_cfg(*hard), prepared_small, tmp_path / "m3-fresh", progress=False).model.state_dict()
    t = Trainer(tiny_cfg(*hard, f"train.init_from={tmp_path / 'm0'}"), prepared_small, tmp_path / "m3", progress=False)
    got = t.model.state_dict()
    new = {k for k in got if k.startswith(("source.chunk_encoder.", "attention.W_s."))}
    assert new == {
        "source.chunk_encoder.body.conv.weight",
        "source.chunk_encoder.body.conv.bias",
        "attention.W_s.weight",
    }
    for k in new:  # same seed, same construction: the fresh model's own initialization
        assert torch.equal(got[k], fresh[k]), k
    assert torch.equal(got["attention.W_w.weight"], source["attention.W.weight"])
    for k, v in got.items():
        if k not in new and k != "attention.W_w.weight":
            assert torch.equal(v, source[k]), k
    Trainer(tiny_cfg(*hard, "train.max_steps=1"), prepared_small, tmp_path / "m3-run", progress=False).fit()
    with pytest.raises(TrainingError, match="does not match"):
        Trainer(
            tiny_cfg(*flat, f"train.init_from={tmp_path / 'm3-run'}"), prepared_small, tmp_path / "x", progress=False
        )


def test_val_rouge_logs_a_rouge_learning_curve_while_best_follows_perplexity(prepared_small, tmp_path):
    t = Trainer(
        tiny_cfg("train.max_steps=2", "train.val_rouge=true", "train.rouge_val_docs=3", "decode.max_len=5"),
        prepared_small,
        tmp_path / "v",
        progress=False,
    )
    t.fit()
    val = [json.loads(x) for x in open(tmp_path / "v" / "metrics.jsonl") if '"val"' in x]
    assert val and all(0.0 <= r["rouge1_concat"] <= 100.0 and 0.0 <= r["rouge1"] <= 100.0 for r in val)
    assert t.schedule.best == min(r["ppl"] for r in val)  # best_metric stays ppl
