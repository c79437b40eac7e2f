"""Shared fixtures: small real CNN/DailyMail folders read from ../shared (never copied into git)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CNNDM = ROOT.parent / "shared" / "data" / "cnndm"


def read_raw(split: str, n: int, skip: int = 0) -> list[dict]:
    """The first ``n`` documents (after ``skip``) of a split of the shared CNN/DM sample."""
    path = CNNDM / f"{split}.jsonl.gz"
    if not path.exists():
        pytest.skip(f"{path} not found: the shared CNN/DailyMail sample is needed")
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i < skip:
                continue
            out.append(json.loads(line))
            if len(out) >= n:
                break
    return out


def write_raw_folder(folder: Path, sizes: dict[str, int]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for split, n in sizes.items():
        with open(folder / f"{split}.jsonl", "w", encoding="utf-8") as f:
            for d in read_raw(split, n):
                f.write(json.dumps(d) + "\n")
    return folder


@pytest.fixture(scope="session")
def raw_small(tmp_path_factory) -> Path:
    """A folder with 40 train, 10 val and 10 test real documents in Hugging Face layout."""
    return write_raw_folder(tmp_path_factory.mktemp("raw_small"), {"train": 40, "val": 10, "test": 10})


@pytest.fixture(scope="session")
def prepared_small(raw_small, tmp_path_factory) -> Path:
    """``raw_small`` prepared by ``c2fsum.data.prepare.prepare`` (one process)."""
    from c2fsum.data.prepare import prepare

    out = tmp_path_factory.mktemp("prepared_small")
    prepare(raw_small, out, vocab_size=50000, workers=1, progress=False)
    return out
