"""Read small real CNN/DailyMail samples from ../shared (never copied into git).

A plain module (not a conftest) so tests in any folder can import it: several folders have
their own ``conftest.py``, and ``from conftest import ...`` would find whichever came first.
"""

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
