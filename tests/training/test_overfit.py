"""Tiny MODEL 0, 2 and 3 must learn 20 corpus documents by heart (the loop, losses and decoder all work)."""

import shutil

import pytest
import torch

from c2fsum.config import load_config
from c2fsum.decoding.greedy import greedy_decode
from c2fsum.evaluation.perplexity import perplexity
from c2fsum.training.trainer import Trainer


@pytest.mark.parametrize("family", ["model0", "model2", "model3"])
def test_tiny_model_overfits_20_documents(family, prepared_small, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    lines = (prepared_small / "train.jsonl").read_text(encoding="utf-8").splitlines()[:20]
    (data / "train.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (data / "val.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    shutil.copy(prepared_small / "vocab.txt", data / "vocab.txt")
    cfg = load_config(
        None,
        [
            f"model.family={family}",
            "model.chunk_filters=32",
            "model.chunk_width=3",
            "model.emb_dim=32",
            "model.hidden=64",
            "model.enc_layers=1",
            "model.dec_layers=1",
            "model.dropout=0.0",
            "data.chunks=2",
            "data.chunk_len=20",
            "data.max_tgt_len=12",
            "train.optimizer=sgd",
            "train.lr=1.0",
            "train.batch_size=10",
            "train.epochs=400",
            "train.max_steps=600",
            "train.seed=3",
            "train.log_every=50",
            "train.lr_decay=1.0",
        ],
    )
    t = Trainer(cfg, data, tmp_path / "run", progress=False)
    t.fit()
    ppl, _, _ = perplexity(t.model, t.train_ex, cfg, torch.device("cpu"))
    assert ppl < 1.3, ppl
    # greedy decoding reproduces the (truncated) first highlight of most documents
    from c2fsum.data.batching import collate

    b = collate(t.train_ex, chunks=2, chunk_len=20)
    t.model.eval()
    with torch.no_grad():
        hyps = greedy_decode(t.model, t.model.encode(b.src, b.src_mask), max_len=13)
    exact = sum(h.tokens == ex.tgt for h, ex in zip(hyps, t.train_ex, strict=True))
    assert exact >= 16, exact
