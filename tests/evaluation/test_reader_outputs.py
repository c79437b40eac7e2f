"""``evaluate`` and ``baseline`` write what a reader meets beside ROUGE, and bench/reader_measures.py
reads the same figures back from their predictions (two paths that must agree)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from c2fsum.evaluation.baselines import run_baseline
from c2fsum.evaluation.evaluate import evaluate

ROOT = Path(__file__).resolve().parents[2]
SHARES = ("novel_words", "novel_specific_words", "top_opening_share", "summaries_with_back_to_back", "unfinished")


def _rows(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "predictions.jsonl").read_text(encoding="utf-8").splitlines()]


def _agree(metrics: dict, rows: list[dict], n_split: int) -> None:
    content = sum(r["content_words"] for r in rows)
    assert metrics["novel_words"] == pytest.approx(100 * sum(r["novel_words"] for r in rows) / max(content, 1))
    assert metrics["novel_specific_words"] == pytest.approx(
        100 * sum(r["novel_specific_words"] for r in rows) / max(content, 1)
    )
    assert metrics["back_to_back_repeats"] == sum(r["back_to_back"] for r in rows)
    assert metrics["unfinished"] == pytest.approx(100 * sum(r["unfinished"] for r in rows) / len(rows))
    assert metrics["specific_df_docs"] == n_split and metrics["specific_df_from"] == "test split"


@pytest.fixture(scope="module")
def outputs(prepared_small, tmp_path_factory):
    root = tmp_path_factory.mktemp("reader")
    model = evaluate("cnndm-small", prepared_small, "test", root / "model", beam=2, limit=3, progress=False)
    lead = run_baseline("lead", prepared_small, "test", root / "lead", ilp_budget=30)
    return root, model, lead


def test_metrics_and_predictions_agree(outputs):
    root, model, lead = outputs
    _agree(model, _rows(root / "model"), n_split=10)  # 3 summarized, frequencies from all 10
    _agree(lead, _rows(root / "lead"), n_split=10)
    # LEAD cut at 30 words stops mid-sentence wherever the budget falls inside one
    assert lead["unfinished"] > 0
    assert all(
        r["unfinished"] == int(not r["candidate"].rstrip().endswith((".", "!", "?", "''")))
        for r in _rows(root / "lead")
    )
    assert lead["novel_words"] == 0.0  # an extract uses only its article's words


def test_bench_prints_the_same_figures(outputs, prepared_small):
    root, model, lead = outputs
    cmd = [sys.executable, str(ROOT / "bench" / "reader_measures.py"), str(root / "model"), str(root / "lead")]
    out = subprocess.run(
        [*cmd, "--data", str(prepared_small), "--split", "test", "--json"], capture_output=True, text=True, check=True
    ).stdout
    printed = [json.loads(x) for x in out.splitlines()]
    for got, want in zip(printed, (model, lead), strict=True):
        for key in (*SHARES, "back_to_back_repeats", "top_opening", "top_novel_specific"):
            assert got[key] == pytest.approx(want[key]), key
    table = subprocess.run([*cmd, "--data", str(prepared_small)], capture_output=True, text=True, check=True).stdout
    assert "novel specific %" in table and "unfinished %" in table and "lead" in table
