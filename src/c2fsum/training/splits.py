"""The vocabulary, training and validation examples of a prepared data directory, and why training
cannot start.

``train.jsonl`` and ``val.jsonl`` (written by ``c2fsum prepare``) are encoded with the run's
vocabulary and grid (``data.chunks`` x ``data.chunk_len``); ``data.val_holdout`` > 0 moves all
but the last ``val_holdout`` validation documents into training.
"""

from __future__ import annotations

from pathlib import Path

from c2fsum.config import Config
from c2fsum.data.batching import Example, bucketed_batches, encode_document
from c2fsum.data.prepare import read_prepared
from c2fsum.data.vocab import Vocab
from c2fsum.errors import TrainingError


def read_vocab(data_dir: Path, vocab_size: int = 0) -> Vocab:
    """A prepared data folder's ``vocab.txt``: the specials and its ``vocab_size`` most frequent words
    (``data.vocab_size``; 0: all of it)."""
    path = data_dir / "vocab.txt"
    if not path.exists():
        raise TrainingError(f"{data_dir}: no vocab.txt (run `c2fsum prepare` first)")
    vocab = Vocab.load(path)
    if vocab_size and len(vocab) > vocab_size + 4:  # keep the specials and the n most frequent
        vocab = Vocab(vocab.itos[: vocab_size + 4], vocab.counts[: vocab_size + 4])
    return vocab


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


def epoch_batches(train: list[Example], cfg: Config, epoch: int) -> list[list[int]]:
    """The batches (indices into ``train``) of ``epoch``: a pure function of ``(train.seed, epoch)``,
    so a resumed run sees them again; lengths bucketed (``data.bucket_size``)."""
    return bucketed_batches(
        len(train),
        [len(e.tgt) * 1000 + len(e.src) for e in train],
        batch_size=cfg.train.batch_size,
        bucket_size=cfg.data.bucket_size,
        seed=cfg.train.seed,
        epoch=epoch,
    )
