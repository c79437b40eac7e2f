"""``model.lazy_fine``: MODEL 3 trained with lazy fine encoding reaches the same weights as eager."""

import torch
from safetensors.torch import load_file

import tiny
from c2fsum.config import load_config
from c2fsum.training.trainer import Trainer

TINY = [
    *tiny.TINY,
    "model.family=model3",
    "model.dropout=0",
    "model.chunk_filters=12",
    "model.samples=2",
    "data.chunks=0",
    "data.max_words=200",
    "data.max_tgt_len=15",
    "train.max_steps=2",
    "train.seed=3",
    "data.vocab_size=2000",
    "train.optimizer=sgd",
    "train.lr=0.5",
]


def test_lazy_training_reaches_the_same_weights(prepared_small, tmp_path):
    runs = {}
    for lazy in ("false", "true"):
        cfg = load_config(None, [*TINY, f"model.lazy_fine={lazy}"])
        Trainer(cfg, prepared_small, tmp_path / lazy, progress=False).fit()
        runs[lazy] = load_file(str(tmp_path / lazy / "last" / "model.safetensors"))
    eager, lazy = runs["false"], runs["true"]
    assert eager.keys() == lazy.keys()
    for k in eager:
        assert torch.allclose(eager[k], lazy[k], atol=1e-5), k
    assert not torch.allclose(eager["source.encoder.rnn.weight_ih_l0"], load_init(prepared_small, tmp_path), atol=1e-4)


def load_init(data, tmp_path):
    """The initial encoder weights (0 steps), to show that training moved them."""
    cfg = load_config(None, [*TINY, "train.max_steps=0"])
    t = Trainer(cfg, data, tmp_path / "init", progress=False)
    return t.model.source.encoder.rnn.weight_ih_l0.detach().clone()
