"""The tiny models the tests train and build: one definition of their sizes.

Each test file adds only what it needs after these lists: overrides apply in order
(``c2fsum.config.resolve``), so a later ``section.key=value`` wins. A plain module (not a
conftest) so tests in any folder can import it.
"""

from __future__ import annotations

from pathlib import Path

# over a preset (configs/*.yaml, which keeps its layers and target length): 16-dimensional
# embeddings, 24 hidden units, a grid of 4 chunks of 20 words, 8 documents a batch
SMALL = ["model.emb_dim=16", "model.hidden=24", "data.chunks=4", "data.chunk_len=20", "train.batch_size=8"]

# from the defaults: SMALL with one layer each way and targets cut at 20 words
TINY = [*SMALL, "model.enc_layers=1", "model.dec_layers=1", "data.max_tgt_len=20"]

# the tiny MODEL 0 / MODEL 3 of the campaigns in bench/ (hostile_campaign.py, kill_campaign.py):
# SMALL over a preset with 8 chunk filters, targets cut at 20 words, a 500-word vocabulary, every
# validation document kept for validation, one thread
CAMPAIGN = [
    *SMALL,
    "model.chunk_filters=8",
    "data.max_tgt_len=20",
    "data.vocab_size=500",
    "data.val_holdout=0",
    "train.threads=1",
]

# every preset made small enough to train a few steps in a test (test_every_preset, test_experiment)
SHRINK = [
    "model.emb_dim=16",
    "model.hidden=24",
    "model.chunk_filters=8",
    "data.vocab_size=2000",
    "train.batch_size=8",
    "data.val_holdout=0",
    "data.max_tgt_len=10",
    "train.eval_every=0",
]


def train_tiny(data: Path, out: Path, overrides: list[str], preset: Path | None = None) -> Path:
    """Train ``preset`` (or the defaults) with ``overrides`` on the prepared folder ``data`` into
    the run directory ``out``, without a progress bar; returns ``out``."""
    from c2fsum.config import load_config
    from c2fsum.training.trainer import Trainer

    Trainer(load_config(preset, overrides), data, out, progress=False).fit()
    return out


def tiny_model(family: str, vocab: int, *, seed: int = 0, max_chunks: int = 4, **kw):
    """A model of ``family`` built (not trained) with 8-dimensional embeddings, 12 hidden units,
    one layer each way, no dropout and 6 chunk filters of width 3 (``kw`` overrides any field),
    its weights drawn after ``torch.manual_seed(seed)``; in eval mode."""
    import torch

    from c2fsum.config import ModelConfig
    from c2fsum.models import build_model

    torch.manual_seed(seed)
    sizes = dict(emb_dim=8, hidden=12, enc_layers=1, dec_layers=1, dropout=0.0, chunk_filters=6, chunk_width=3)
    cfg = ModelConfig(family=family, **{**sizes, **kw})
    return build_model(cfg, vocab, max_chunks=max_chunks).eval()


def train_argv(config: Path, data: Path, out: Path, steps: int, sets: list[str], *more: str) -> list[str]:
    """The arguments of ``c2fsum -q train``: preset ``config`` on the prepared folder ``data`` into
    the run directory ``out`` for ``steps`` steps, ``more`` options (``--resume``), ``--set sets``."""
    argv = ["-q", "train", "--config", str(config), "--data", str(data), "--out", str(out)]
    return [*argv, "--max-steps", str(steps), *more, "--set", *sets]
