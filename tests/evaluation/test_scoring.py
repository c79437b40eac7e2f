"""Scoring prediction files, their error messages, and the FIRST / LEAD-k baselines."""

from __future__ import annotations

import gzip
import json
import logging
from pathlib import Path

import pytest

from c2fsum.baselines.extractive import first_sentence_baseline, lead_k
from c2fsum.evaluation.scoring import read_jsonl_with_errors, rouge_files
from c2fsum.metrics.rouge import score_document


def _write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path) -> tuple[Path, Path]:
    cands = _write_lines(
        tmp_path / "cands.jsonl",
        [
            json.dumps({"id": "a", "candidate": "the cat sat on the mat"}),
            '{"id": "broken", "candidate": "no closing brace"',  # line 2: bad JSON
            json.dumps({"id": "b", "candidate": ["w3 w4 w6", "w1 w2 w7"]}),
            "",
            json.dumps({"id": "c", "candidate": 7}),  # line 5: wrong type
            json.dumps({"id": "a", "candidate": "duplicate"}),  # line 6: duplicate id
        ],
    )
    refs = _write_lines(
        tmp_path / "refs.jsonl",
        [
            json.dumps({"id": "b", "highlights": "w1 w2 w3 w4 w5\n"}),
            json.dumps(["not", "an", "object"]),  # line 2
            json.dumps({"id": "a", "references": ["the cat lay on the mat", "a dog sat on a log"]}),
            json.dumps({"id": "z", "references": []}),  # line 4: empty references
            json.dumps({"id": "unused", "references": "x y"}),
        ],
    )
    return cands, refs


def test_rouge_files_skips_and_names_malformed_lines(files, caplog):
    cands, refs = files
    with caplog.at_level(logging.WARNING, logger="c2fsum.evaluation.scoring"):
        out = rouge_files(cands, refs)
    assert out["n_docs"] == 2
    assert out["n_skipped"] == 5
    assert out["skipped"] == [
        f"{cands}:2: invalid JSON (Expecting ',' delimiter at column 49)",
        f"{cands}:5: id c: field 'candidate': expected a string or a list of strings",
        f"{cands}:6: id a: duplicate id (the first occurrence is kept)",
        f"{refs}:2: expected a JSON object, got list",
        f"{refs}:4: id z: field 'references' (or 'highlights'): expected a non-empty list of strings "
        "or a newline-separated string",
    ]
    assert f"{cands}:2: invalid JSON" in caplog.text
    # the rest is still scored, in candidate-file order, matched by id
    per_doc = out["per_doc"]
    assert [d["id"] for d in per_doc] == ["a", "b"]
    # per-document F as ROUGE-1.5.5 prints it: P and R rounded to 5 decimals, then F (<= 1.5e-5 off)
    assert per_doc[0]["rouge1"] == 0.83333
    assert per_doc[0]["rouge1_concat"] == pytest.approx(2 / 3, abs=1.5e-5)
    assert per_doc[1]["rougeL"] == pytest.approx(8 / 11, abs=1.5e-5)
    expected_b = score_document(["w3 w4 w6", "w1 w2 w7"], ["w1 w2 w3 w4 w5"], perl_rounding=True)
    assert {k: per_doc[1][k] for k in expected_b} == expected_b
    assert out["rouge1"] == pytest.approx(100 * (per_doc[0]["rouge1"] + per_doc[1]["rouge1"]) / 2, abs=1e-12)
    assert out["rouge1"] == pytest.approx(100 * (5 / 6 + 8 / 11) / 2, abs=1.5e-3)


def test_rouge_files_errors_on_candidates_without_references(tmp_path):
    lines = [json.dumps({"id": i, "candidate": "x"}) for i in ("p", "q", "r")]
    cands = _write_lines(tmp_path / "c.jsonl", lines)
    refs = _write_lines(tmp_path / "r.jsonl", [json.dumps({"id": "q", "references": ["x"]})])
    with pytest.raises(
        ValueError,
        match=r"c.jsonl: 2 of 3 candidate ids have no reference in .*r.jsonl "
        r"\(first: 'p'\)",
    ):
        rouge_files(cands, refs)


def test_rouge_files_errors_when_nothing_is_valid(tmp_path):
    cands = _write_lines(tmp_path / "c.jsonl", ["{oops"])
    refs = _write_lines(tmp_path / "r.jsonl", [json.dumps({"id": "q", "references": ["x"]})])
    with pytest.raises(ValueError, match=r"c.jsonl: no valid candidate lines \(1 skipped\)"):
        rouge_files(cands, refs)
    with pytest.raises(FileNotFoundError, match="nope.jsonl: no such file"):
        rouge_files(tmp_path / "nope.jsonl", refs)


def test_read_jsonl_with_errors_reads_gzip_and_integer_ids(tmp_path):
    path = tmp_path / "refs.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write(json.dumps({"id": 1, "highlights": "a b\nc d"}) + "\n\n" + "nope\n")
    read = read_jsonl_with_errors(path)
    assert read.rows == [(1, {"id": 1, "highlights": "a b\nc d"})]
    assert read.errors == [f"{path}:3: invalid JSON (Expecting value at column 1)"]
    cands = _write_lines(tmp_path / "c.jsonl", [json.dumps({"id": 1, "candidate": "a b"})])
    out = rouge_files(cands, path)
    assert out["per_doc"][0]["id"] == "1"
    assert out["per_doc"][0]["rouge1"] == pytest.approx(1.0)  # best highlight "a b"
    assert out["per_doc"][0]["rouge1_concat"] == 0.66667  # P 1, R 1/2, as the script prints it


SRC = [
    ["-lrb-", "cnn", "-rrb-", "the", "cat", "sat", ".", "</s>"],
    ["</s>"],
    ["it", "was", "#", "pm", "</s>"],
    ["third", "</s>"],
    ["fourth", "</s>"],
]


def test_first_sentence_baseline():
    assert first_sentence_baseline(SRC) == "-lrb- cnn -rrb- the cat sat ."
    assert first_sentence_baseline([["</s>"], ["b", "</s>"]]) == "b"
    assert first_sentence_baseline([]) == ""


def test_lead_k():
    assert lead_k(SRC, 3) == "-lrb- cnn -rrb- the cat sat .\nit was # pm\nthird"
    assert lead_k(SRC[:1], 3) == first_sentence_baseline(SRC)
    with pytest.raises(ValueError, match="k: expected at least 1 sentence, got 0"):
        lead_k(SRC, 0)
