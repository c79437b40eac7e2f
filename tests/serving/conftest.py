"""A tiny MODEL 2 (coarse-to-fine soft attention) trained once per session for the serving tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tiny

ROOT = Path(__file__).resolve().parents[2]
TINY = [
    *tiny.SMALL,
    "model.chunk_filters=16",
    "data.vocab_size=3000",
    "data.val_holdout=0",
    "train.log_every=5",
    "train.eval_every=1000",
    "train.max_steps=12",
    "decode.beam=2",
    "decode.block_trigrams=true",
    "decode.min_len=6",
    "decode.max_len=14",
]


@pytest.fixture(scope="session")
def served_run(prepared_small, tmp_path_factory) -> Path:
    """A run directory of MODEL 2 (4 chunks x 20 words) trained for a few steps on the 40 corpus documents."""
    return tiny.train_tiny(
        prepared_small, tmp_path_factory.mktemp("served") / "model2", TINY, ROOT / "configs" / "model2-cpu.yaml"
    )


@pytest.fixture(scope="session")
def articles(raw_small) -> list[str]:
    """Three test articles of the committed corpus."""
    lines = (raw_small / "test.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    return [json.loads(line)["article"] for line in lines]
