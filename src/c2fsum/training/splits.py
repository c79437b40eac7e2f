"""The training and validation examples of a prepared data directory, and why training cannot start.

``train.jsonl`` and ``val.jsonl`` (written by ``c2fsum prepare``) are encoded with the run's
vocabulary and grid (``data.chunks`` x ``data.chunk_len``); ``data.val_holdout`` > 0 moves all
but the last ``val_holdout`` validation documents into training.
"""

from __future__ import annotations

from pathlib import Path

from c2fsum.config import Config
from c2fsum.data.batching import Example, encode_document
from c2fsum.data.prepare import read_prepared
from c2fsum.data.vocab import Vocab
from c2fsum.errors import TrainingError


def encode_split(path: Path, vocab: Vocab, cfg: Config) -> list[Example]:
    """Every document of a prepared split on the run's grid (:func:`encode_document`)."""
    return [encode_document(d, vocab, cfg.data) for d in read_prepared(path)]


def load_splits(data_dir: Path, vocab: Vocab, cfg: Config) -> tuple[list[Example], list[Example]]:
    """Train and validation examples; with ``data.val_holdout`` > 0 all but the last
    ``val_holdout`` validation documents join the training set."""
    train_path, val_path = data_dir / "train.jsonl", data_dir / "val.jsonl"
    if not train_path.exists():
        raise TrainingError(f"{data_dir}: no train.jsonl (run `c2fsum prepare` first)")
    train = encode_split(train_path, vocab, cfg)
    val = encode_split(val_path, vocab, cfg) if val_path.exists() else []
    if cfg.data.val_holdout > 0:
        if len(val) <= cfg.data.val_holdout:
            raise TrainingError(f"data.val_holdout={cfg.data.val_holdout} but {val_path} has only {len(val)} documents")
        train = train + val[: -cfg.data.val_holdout]
        val = val[-cfg.data.val_holdout :]
    if not train:
        raise TrainingError(f"{train_path}: no training documents")
    if not val:
        raise TrainingError(f"{data_dir}: no validation documents (val.jsonl missing or empty)")
    return train, val
