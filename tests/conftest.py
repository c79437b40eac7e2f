"""Shared fixtures: small real CNN/DailyMail folders read from ../shared (never copied into git)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared_data import CNNDM, read_raw, write_raw_folder  # noqa: F401  (re-exported for tests)


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
