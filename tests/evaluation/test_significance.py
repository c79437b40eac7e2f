"""Paired bootstrap: deterministic with a seed, exact on degenerate cases, end to end through `c2fsum compare`."""

from __future__ import annotations

import json

import numpy as np
import pytest

from c2fsum.cli.main import main
from c2fsum.evaluation.baselines import run_baseline
from c2fsum.evaluation.significance import compare_systems, paired_bootstrap


def test_same_seed_same_answer_other_seed_other_answer():
    rng = np.random.default_rng(1)
    a, b = rng.random(50), rng.random(50)
    r1 = paired_bootstrap(a, b, samples=500, seed=7)
    r2 = paired_bootstrap(list(a), list(b), samples=500, seed=7)
    r3 = paired_bootstrap(a, b, samples=500, seed=8)
    assert r1 == r2
    assert (r1["low"], r1["high"]) != (r3["low"], r3["high"])
    assert r1["diff"] == pytest.approx(float(np.mean(a - b)))
    assert r1["low"] < r1["diff"] < r1["high"]


def test_hand_worked_values():
    # a constant difference is resampled to itself: the interval is that value
    r = paired_bootstrap([3.0, 5.0, 4.0], [1.0, 3.0, 2.0], samples=200, seed=0)
    assert (r["diff"], r["low"], r["high"], r["p_value"]) == (2.0, 2.0, 2.0, 0.0)
    assert (r["mean_a"], r["mean_b"], r["n_docs"]) == (4.0, 2.0, 3)
    # identical systems: zero difference, p = 1
    r = paired_bootstrap([1.0, 2.0], [1.0, 2.0], samples=100, seed=0)
    assert (r["diff"], r["low"], r["high"], r["p_value"]) == (0.0, 0.0, 0.0, 1.0)
    # one document of two: each resample is {d1,d1}, {d1,d2}, {d2,d1} or {d2,d2} -> means in {1, 0, -1}
    r = paired_bootstrap([2.0, 0.0], [1.0, 1.0], samples=4000, seed=3)
    assert r["diff"] == 0.0 and r["low"] == -1.0 and r["high"] == 1.0
    assert 0.9 < r["p_value"] <= 1.0  # P(mean <= 0) = P(mean >= 0) = 3/4 -> p = 1 (capped)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match=r"same length, got \(2,\) and \(3,\)"):
        paired_bootstrap([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="samples: expected at least 1, got 0"):
        paired_bootstrap([1], [1], samples=0)
    with pytest.raises(ValueError, match=r"confidence: expected a value in \(0, 1\), got 95"):
        paired_bootstrap([1], [1], confidence=95)


def test_compare_cli_end_to_end(prepared_small, tmp_path, capsys):
    run_baseline("lead3", prepared_small, "test", tmp_path / "lead3")
    run_baseline("first", prepared_small, "test", tmp_path / "first")
    result = compare_systems(tmp_path / "lead3", tmp_path / "first", samples=300, seed=5)
    for m in ("rouge1", "rouge2", "rougeL"):
        a = json.loads((tmp_path / "lead3" / "metrics.json").read_text())[m]
        b = json.loads((tmp_path / "first" / "metrics.json").read_text())[m]
        assert result[m]["mean_a"] == pytest.approx(a) and result[m]["mean_b"] == pytest.approx(b)
        assert result[m]["diff"] == pytest.approx(a - b)
    assert (
        main(
            [
                "-q",
                "compare",
                str(tmp_path / "lead3"),
                str(tmp_path / "first"),
                "--samples",
                "300",
                "--seed",
                "5",
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(result))
    assert (
        main(
            [
                "-q",
                "compare",
                str(tmp_path / "lead3" / "predictions.jsonl"),
                str(tmp_path / "first"),
                "--samples",
                "300",
                "--seed",
                "5",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "rougeL" in text and f"{result['rougeL']['diff']:+.2f}" in text


def test_compare_refuses_different_documents(prepared_small, tmp_path, capsys):
    run_baseline("first", prepared_small, "test", tmp_path / "all")
    run_baseline("lead3", prepared_small, "test", tmp_path / "some", limit=4)
    assert main(["-q", "compare", str(tmp_path / "all"), str(tmp_path / "some")]) == 2
    err = capsys.readouterr().err
    assert "6 document ids of" in err and "are missing" in err
    assert main(["-q", "compare", str(tmp_path / "nowhere"), str(tmp_path / "all")]) == 2
    assert "no such predictions file" in capsys.readouterr().err


def test_compare_rouge_clean_matches_the_baselines_metrics(prepared_small, tmp_path, capsys):
    # compare rescoring predictions with --rouge-clean ptb gives the means baseline --rouge-clean ptb wrote
    for name in ("lead3", "first"):
        run_baseline(name, prepared_small, "test", tmp_path / name, rouge_clean="ptb")
    args = ["-q", "compare", str(tmp_path / "lead3"), str(tmp_path / "first"), "--samples", "50", "--json"]
    assert main([*args, "--rouge-clean", "ptb"]) == 0
    ptb = json.loads(capsys.readouterr().out)
    assert ptb["rouge_clean"] == "ptb"
    for name, side in (("lead3", "mean_a"), ("first", "mean_b")):
        metrics = json.loads((tmp_path / name / "metrics.json").read_text())
        assert metrics["rouge_clean"] == "ptb" and metrics["rouge_official"] is False
        assert ptb["rouge1"][side] == pytest.approx(metrics["rouge1"])
    assert main(args) == 0
    raw = json.loads(capsys.readouterr().out)
    assert raw["rouge_clean"] == "none" and raw["rouge1"]["mean_b"] != pytest.approx(ptb["rouge1"]["mean_b"])


def test_compare_concat_compares_the_concat_protocol(prepared_small, tmp_path, capsys):
    """--concat bootstraps rouge1_concat ...: its means are the baselines' concat figures."""
    for name in ("lead3", "first"):
        run_baseline(name, prepared_small, "test", tmp_path / name)
    args = ["-q", "compare", str(tmp_path / "lead3"), str(tmp_path / "first"), "--samples", "50", "--json"]
    assert main([*args, "--concat"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "rouge1" not in out
    for name, side in (("lead3", "mean_a"), ("first", "mean_b")):
        metrics = json.loads((tmp_path / name / "metrics.json").read_text())
        for m in ("rouge1", "rouge2", "rougeL"):
            assert out[f"{m}_concat"][side] == pytest.approx(metrics[f"{m}_concat"])
        assert metrics["rouge1_concat"] != pytest.approx(metrics["rouge1"])


def test_compare_fields_bootstraps_the_recorded_numbers(tmp_path, capsys):
    """--fields compares numbers recorded per prediction (entropy), paired by id, as recorded."""
    rows_a = [
        {"id": str(i), "candidate": "x", "references": ["x"], "entropy": e} for i, e in enumerate([0.5, 1.0, 1.5])
    ]
    rows_b = [
        {"id": str(i), "candidate": "x", "references": ["x"], "entropy": e} for i, e in enumerate([2.5, 1.0, 2.5])
    ]
    for name, rows in (("a", rows_a), ("b", rows_b[::-1])):  # b in another order: paired by id
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    r = compare_systems(tmp_path / "a.jsonl", tmp_path / "b.jsonl", metrics=("entropy",), samples=200)
    e = r["entropy"]
    assert (e["mean_a"], e["mean_b"], e["diff"]) == pytest.approx((1.0, 2.0, -1.0))
    assert -2.0 <= e["low"] <= e["high"] <= 0.0  # differences per document: -2, 0, -1
    assert "rouge1" not in r
    assert main(["compare", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "--fields", "entropy", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["entropy"]["diff"] == pytest.approx(-1.0)
    del rows_b[1]["entropy"]
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows_b), encoding="utf-8")
    with pytest.raises(ValueError, match=r"b.jsonl:2: no number entropy"):
        compare_systems(tmp_path / "a.jsonl", tmp_path / "b.jsonl", metrics=("entropy",))
