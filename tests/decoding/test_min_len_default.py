"""No empty summary unless asked (issue 17.3): the model's default ``min_len`` from its training targets.

A tiny MODEL 0 trained for 20 steps on the 40 corpus documents puts its first choice on ``</s>``: with
``min_len=0`` it writes the empty summary. Its checkpoint records the training targets' lengths,
and the CLI, the Python API and the HTTP server all decode with the recorded minimum by default.
"""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import asdict
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import c2fsum
import tiny
from c2fsum.cli.main import main
from c2fsum.config import decode_fields
from c2fsum.data.lengths import FALLBACK_MIN_LEN, LENGTHS_FILE, target_length_facts
from c2fsum.models.checkpoint import load_checkpoint, write_manifest
from c2fsum.serving import create_app

ROOT = Path(__file__).resolve().parents[2]
TINY = [
    *tiny.SMALL,
    "data.vocab_size=3000",
    "data.val_holdout=0",
    "train.eval_every=1000",
    "train.max_steps=20",
    "decode.beam=2",
    "decode.max_len=30",
]


@pytest.fixture(scope="module")
def barely_trained(prepared_small, tmp_path_factory) -> Path:
    from c2fsum.config import load_config
    from c2fsum.training.trainer import Trainer

    run = tmp_path_factory.mktemp("barely") / "model0"
    cfg = load_config(ROOT / "configs" / "model0-cpu.yaml", TINY)
    assert cfg.decode.min_len is None  # the default: the model's own
    Trainer(cfg, prepared_small, run, progress=False).fit()
    return run


@pytest.fixture(scope="module")
def article(raw_small) -> str:
    return json.loads((raw_small / "test.jsonl").read_text(encoding="utf-8").splitlines()[0])["article"]


def _expected_min_len(prepared: Path) -> int:
    lengths = sorted(
        min(len(json.loads(line)["tgt"]), 100)  # data.max_tgt_len of the preset
        for line in (prepared / "train.jsonl").read_text(encoding="utf-8").splitlines()
    )
    return lengths[math.ceil(0.05 * len(lengths)) - 1]  # 5th percentile, lower nearest rank


def test_target_length_facts_golden():
    # 20 lengths 1..20: the 5th percentile by nearest rank is the ceil(0.05 * 20) = 1st value
    facts = target_length_facts(list(range(20, 0, -1)))
    assert (facts["n"], facts["min"], facts["p5"], facts["p50"], facts["p95"], facts["max"]) == (20, 1, 1, 10, 19, 20)
    assert facts["min_len"] == 1 and facts["mean"] == 10.5
    # 21 lengths: rank ceil(1.05) = 2
    assert target_length_facts([7] + list(range(10, 30)))["min_len"] == 10
    with pytest.raises(ValueError, match="no training targets"):
        target_length_facts([])


def test_checkpoint_records_the_training_targets_min_len(barely_trained, prepared_small):
    facts = json.loads((barely_trained / "best" / LENGTHS_FILE).read_text())
    expected = _expected_min_len(prepared_small)
    assert facts["min_len"] == facts["p5"] == expected >= 5
    assert facts["n"] == 40
    assert load_checkpoint(barely_trained).config.decode.min_len == expected
    saved = json.loads((barely_trained / "best" / "config.json").read_text())
    assert saved["decode"]["min_len"] is None  # the config says "the model's default"


def test_python_api_default_is_not_empty_and_zero_still_is(barely_trained, article, prepared_small):
    model = c2fsum.load(barely_trained)
    (empty,) = model.summarize(article, min_len=0)
    assert empty.tokens == [] and empty.text == ""  # the bug: a barely trained model stops at once
    (s,) = model.summarize(article)
    assert len(s.tokens) >= _expected_min_len(prepared_small) and s.text.strip()
    (greedy,) = model.summarize(article, beam=1)
    assert len(greedy.tokens) >= _expected_min_len(prepared_small)


def test_cli_summarize_default_is_not_empty_and_min_len_zero_still_is(barely_trained, article, tmp_path, capsys):
    doc = tmp_path / "article.txt"
    doc.write_text(article, encoding="utf-8")
    assert main(["-q", "summarize", "--model", str(barely_trained), str(doc)]) == 0
    assert capsys.readouterr().out.strip()
    # issue 49: the empty summary --min-len 0 allows is a refusal that says so, not an empty line
    assert main(["-q", "summarize", "--model", str(barely_trained), "--min-len", "0", str(doc)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and f"{doc}: no summary from {barely_trained}: the model wrote no word" in captured.err
    with pytest.raises(SystemExit):
        main(["-q", "summarize", "--model", str(barely_trained), "--min-len", "-1", str(doc)])
    assert "expected an integer >= 0, got -1" in capsys.readouterr().err


def test_cli_evaluate_default_is_not_empty(barely_trained, prepared_small, tmp_path, capsys):
    out = tmp_path / "eval"
    args = ["-q", "evaluate", "--model", str(barely_trained), "--data", str(prepared_small), "--split", "test"]
    assert main([*args, "--out", str(out), "--limit", "3"]) == 0
    preds = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(preds) == 3 and all(p["candidate"].strip() for p in preds)
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["min_len"] == _expected_min_len(prepared_small)
    assert {k: metrics[k] for k in decode_fields()} == asdict(load_checkpoint(barely_trained).config.decode)
    assert main([*args, "--out", str(tmp_path / "zero"), "--limit", "3", "--min-len", "0"]) == 0
    zero = [json.loads(line) for line in (tmp_path / "zero" / "predictions.jsonl").read_text().splitlines()]
    assert all(p["candidate"] == "" for p in zero)
    assert json.loads((tmp_path / "zero" / "metrics.json").read_text())["min_len"] == 0


def test_server_default_is_not_empty_and_min_len_zero_still_is(barely_trained, article, prepared_small):
    with TestClient(create_app(barely_trained)) as client:
        r = client.post("/summarize", json={"text": article})
        assert r.status_code == 200, r.text
        assert len(r.json()["tokens"]) >= _expected_min_len(prepared_small) and r.json()["summary"].strip()
        r = client.post("/summarize", json={"text": article, "min_len": 0})
        # issue 49: a 422 that says why, never a 200 with an empty summary
        assert r.status_code == 422 and r.json()["detail"].startswith("text: no summary: the model wrote no word")
        # capped at max_len when that is shorter
        r = client.post("/summarize", json={"text": article, "max_len": 3})
        assert r.status_code == 200 and len(r.json()["tokens"]) == 3


def test_old_checkpoint_without_lengths_gets_the_fallback(barely_trained, article, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(barely_trained / "best", old)
    (old / LENGTHS_FILE).unlink()
    cfg = json.loads((old / "config.json").read_text())
    cfg["decode"]["min_len"] = 0  # what every checkpoint written before lengths.json holds
    (old / "config.json").write_text(json.dumps(cfg))
    write_manifest(old)
    assert load_checkpoint(old).config.decode.min_len == FALLBACK_MIN_LEN
    (s,) = c2fsum.load(old).summarize(article)
    assert len(s.tokens) >= FALLBACK_MIN_LEN
    (empty,) = c2fsum.load(old).summarize(article, min_len=0)
    assert empty.tokens == []


def test_explicit_config_min_len_wins(barely_trained, tmp_path):
    ckpt = tmp_path / "explicit"
    shutil.copytree(barely_trained / "best", ckpt)
    cfg = json.loads((ckpt / "config.json").read_text())
    cfg["decode"]["min_len"] = 0  # set on purpose in a checkpoint that has lengths.json: kept
    (ckpt / "config.json").write_text(json.dumps(cfg))
    write_manifest(ckpt)
    assert load_checkpoint(ckpt).config.decode.min_len == 0
