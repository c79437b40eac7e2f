"""The signs of MODEL 3's REINFORCE term and of Paulus's self-critical term, checked inside the
trainer: toy tasks trained through ``Trainer.fit`` (``train_step`` -> ``batch_loss``), so a sign or
a wiring error in the trainer (not only in :mod:`c2fsum.losses`) makes the policy learn the wrong
thing."""

import json
import random
from pathlib import Path

import pytest
import torch

from c2fsum.config import load_config
from c2fsum.data.batching import collate
from c2fsum.data.vocab import SPECIALS, Vocab
from c2fsum.losses.nll import loss_target
from c2fsum.training.trainer import Trainer

ANSWERS = ["alpha", "bravo", "charlie", "delta", "echo"]
FILLER = "filler"


def write_toy(d: Path, make_doc, n_train: int = 200, n_val: int = 20, seed: int = 0) -> Path:
    """A prepared data directory of ``make_doc(rng, i) -> (src words, answer, extra fields)``."""
    rng = random.Random(seed)
    d.mkdir(parents=True, exist_ok=True)
    Vocab([*SPECIALS, *ANSWERS, FILLER], [0] * len(SPECIALS) + [1] * (len(ANSWERS) + 1)).save(d / "vocab.txt")
    for split, n in (("train", n_train), ("val", n_val)):
        with open(d / f"{split}.jsonl", "w", encoding="utf-8") as f:
            for i in range(n):
                src, answer, extra = make_doc(rng)
                doc = {"id": f"{split}{i}", "src": [src], "tgt": [answer], "refs": [[answer]], **extra}
                f.write(json.dumps(doc) + "\n")
    return d


def chunk_choice_doc(rng):
    """Three chunks of four words: one (chunk 0 or 1) holds the answer four times, the others
    filler; the target is the answer. The last chunk, whose final state starts the decoder, is
    always filler, so only attention to the informative chunk tells the answer."""
    answer, where = rng.choice(ANSWERS), rng.randrange(2)
    chunks = [[FILLER] * 4 for _ in range(3)]
    chunks[where] = [answer] * 4
    return [w for c in chunks for w in c], answer, {"where": where}


TOY = [
    "model.emb_dim=16",
    "model.hidden=32",
    "model.enc_layers=1",
    "model.dec_layers=1",
    "model.dropout=0",
    "data.max_tgt_len=1",
    "train.batch_size=20",
    "train.log_every=1000",
    "train.epochs=1000",
    "train.lr_decay=1.0",
    "train.optimizer=adam",
    "train.lr=0.01",
    "train.seed=1",
]


@pytest.mark.parametrize("lam", [0.3, 0.0, -0.3])
def test_reinforce_in_the_trainer_learns_the_informative_chunk(lam, tmp_path):
    """lambda > 0 rewards choices that raise log p(target): the hard coarse attention learns to
    pick the chunk holding the answer (p -> 1); lambda = 0 gives the coarse scorer no gradient
    (p stays 1/3); lambda < 0 learns to avoid it (p -> 0)."""
    data = write_toy(tmp_path / "data", chunk_choice_doc)
    cfg = load_config(
        None,
        [
            *TOY,
            "model.family=model3",
            "model.chunk_encoder=bow",
            "data.chunks=3",
            "data.chunk_len=4",
            "train.lr_chunk_encoder=0.001",
            "train.max_steps=300",
            f"train.reinforce_scale={lam}",
        ],
    )
    t = Trainer(cfg, data, tmp_path / "run", progress=False)
    t.fit()
    where = torch.tensor([json.loads(x)["where"] for x in open(data / "val.jsonl")])
    b = collate(t.val_ex, chunks=3, chunk_len=4)
    with torch.no_grad():
        coarse = t.model.eval()(b.src, b.src_mask, b.tgt_in).attention.coarse  # (B, T, M) chunk attention
    p = float(coarse[torch.arange(len(where)), 0, where].mean())  # on the informative chunk, first word
    if lam > 0:
        assert p > 0.95
    elif lam == 0:
        assert abs(p - 1 / 3) < 0.05
    else:
        assert p < 0.05


def test_self_critical_in_the_trainer_learns_the_rewarded_summary(tmp_path):
    """Mixed objective with gamma = 1 (the self-critical term alone): sampled summaries that beat
    the greedy one in ROUGE-L are made likelier, so the model learns to write the answer its
    document holds (p(answer) from about 0.1 to 0.68-0.98 over seeds 1-4); a flipped sign
    drives it towards 0."""
    data = write_toy(tmp_path / "data", lambda rng: ([w := rng.choice(ANSWERS)] * 4, w, {}))
    cfg = load_config(
        None,
        [
            *TOY,
            "model.family=model0",
            "data.chunks=1",
            "data.chunk_len=4",
            "train.objective=mixed",
            "train.rl_weight=1.0",
            "train.batch_size=50",
            "train.max_steps=150",
        ],
    )
    t = Trainer(cfg, data, tmp_path / "run", progress=False)

    def p_answer() -> float:
        b = collate(t.val_ex, chunks=1, chunk_len=4)
        with torch.no_grad():
            out = t.model.eval()(b.src, b.src_mask, b.tgt_in, b.src_ext, b.n_ext, loss_target(t.model, b))
        t.model.train()
        return float(out.target_lp[:, 0].exp().mean())

    before = p_answer()
    t.fit()
    rows = [json.loads(x) for x in open(tmp_path / "run" / "metrics.jsonl")]
    assert before < 0.2
    assert p_answer() > 0.5
    assert any("reward_sample" in r for r in rows)  # the self-critical path ran
