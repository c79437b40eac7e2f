"""Where the tests' documents come from: the committed synthetic corpus, or the real data in ../shared.

Most tests read ``tests/data/corpus`` (made by ``tests/data/make_corpus.py``, committed), so they
run the same on a fresh clone as on a machine with the data. Tests whose assertions need real
text (tokenizer and reader goldens, ROUGE against the reference script, the shipped model) read
``../shared/data`` (``C2FSUM_SHARED`` names another folder holding ``data/``; the real data is
never copied into git) and carry the ``real_data`` marker: when the data is missing they skip
with a reason that says so, and the session's summary counts them.

A plain module (not a conftest) so tests in any folder can import it: several folders have
their own ``conftest.py``, and ``from conftest import ...`` would find whichever came first.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("C2FSUM_SHARED", ROOT.parent / "shared"))
DATA = SHARED / "data"
CNNDM = DATA / "cnndm"
CORPUS = Path(__file__).resolve().parent / "data" / "corpus"
REAL_DATA_SKIP = "real-data test"
"""How every skip for missing real data starts; ``conftest.pytest_terminal_summary`` counts them."""


def missing_reason(path: Path) -> str:
    return f"{REAL_DATA_SKIP}: {path} missing (set C2FSUM_SHARED to the folder that holds data/cnndm)"


def need_real(path: Path) -> Path:
    """``path`` under ../shared, or skip the calling test with the real-data reason."""
    if not path.exists():
        pytest.skip(missing_reason(path))
    return path


def read_raw(split: str, n: int, skip: int = 0, *, real: bool = False) -> list[dict]:
    """The first ``n`` raw documents (after ``skip``) of a split: of the committed corpus, or
    (``real=True``) of the shared CNN/DM sample, skipping the test when that is missing."""
    path = need_real(CNNDM / f"{split}.jsonl.gz") if real else CORPUS / f"{split}.jsonl"
    out = []
    with gzip.open(path, "rt", encoding="utf-8") if real else open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i < skip:
                continue
            out.append(json.loads(line))
            if len(out) >= n:
                break
    if len(out) < n:
        raise ValueError(f"{path}: asked for {n} documents after {skip}, it has {len(out)}")
    return out


def write_raw_folder(folder: Path, sizes: dict[str, int]) -> Path:
    """A raw input folder (``{split}.jsonl``, what ``c2fsum prepare`` reads) of the committed corpus."""
    folder.mkdir(parents=True, exist_ok=True)
    for split, n in sizes.items():
        with open(folder / f"{split}.jsonl", "w", encoding="utf-8") as f:
            for d in read_raw(split, n):
                f.write(json.dumps(d) + "\n")
    return folder
