"""Shared fixtures: small raw and prepared folders of the committed corpus (``tests/data/corpus``),
and the ``real_data`` marker for the tests that read ../shared/data (see ``shared_data``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared_data import CNNDM, DATA, REAL_DATA_SKIP, missing_reason, write_raw_folder


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "real_data(*paths): reads real data under ../shared/data (default: the CNN/DM sample); "
        "skipped, and counted in the summary, when a path is missing",
    )


def pytest_collection_modifyitems(config, items):
    for item in items:
        for mark in item.iter_markers("real_data"):
            for path in mark.args or (CNNDM,):
                if not Path(path).exists():
                    item.add_marker(pytest.mark.skip(reason=missing_reason(Path(path))))
                    break


def pytest_terminal_summary(terminalreporter):
    """One line that says how many real-data tests ran and how many could not (never silent)."""
    skipped = [
        r
        for r in terminalreporter.stats.get("skipped", [])
        if isinstance(r.longrepr, tuple) and REAL_DATA_SKIP in str(r.longrepr[2])
    ]
    ran = [
        r
        for key in ("passed", "failed")
        for r in terminalreporter.stats.get(key, [])
        if r.when == "call" and "real_data" in r.keywords
    ]
    if skipped:
        terminalreporter.write_line(
            f"{len(skipped)} real-data tests skipped: {DATA} (or part of it) missing (set C2FSUM_SHARED to "
            "the folder that holds data/cnndm)",
            yellow=True,
        )
    elif ran:
        terminalreporter.write_line(f"{len(ran)} real-data tests ran on {DATA}")


@pytest.fixture(scope="session")
def raw_small(tmp_path_factory) -> Path:
    """A folder with 40 train, 10 val and 10 test documents of the committed corpus (raw JSONL)."""
    return write_raw_folder(tmp_path_factory.mktemp("raw_small"), {"train": 40, "val": 10, "test": 10})


@pytest.fixture(scope="session")
def prepared_small(raw_small, tmp_path_factory) -> Path:
    """``raw_small`` prepared by ``c2fsum.data.prepare.prepare`` (one process)."""
    from c2fsum.data.prepare import prepare

    out = tmp_path_factory.mktemp("prepared_small")
    prepare(raw_small, out, vocab_size=50000, workers=1, progress=False)
    return out
