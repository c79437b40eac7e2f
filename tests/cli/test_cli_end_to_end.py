"""The command line end to end on 50 documents of the committed corpus (tests/data/corpus)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tiny
from c2fsum.cli.main import main
from shared_data import write_raw_folder

TINY = [
    *tiny.SMALL,
    "data.vocab_size=3000",
    "train.log_every=2",
]


@pytest.fixture(scope="module")
def e2e(tmp_path_factory):
    root = tmp_path_factory.mktemp("e2e")
    raw = write_raw_folder(root / "raw", {"train": 30, "val": 10, "test": 10})
    assert main(["-q", "prepare", "--input", str(raw), "--output", str(root / "data"), "--workers", "2"]) == 0
    return root


def test_prepare_writes_splits_vocab_and_stats(e2e):
    data = e2e / "data"
    for name in ("train.jsonl", "val.jsonl", "test.jsonl", "vocab.txt", "stats.json"):
        assert (data / name).exists(), name
    stats = json.loads((data / "stats.json").read_text())
    # the statistics agree with the files written: documents, words (without the </s> markers),
    # sentences and highlights of each split, counted again here
    for split, n in (("train", 30), ("val", 10), ("test", 10)):
        docs = [json.loads(x) for x in (data / f"{split}.jsonl").read_text().splitlines() if x.strip()]
        s = stats["splits"][split]
        assert s["documents"] == len(docs) == n - sum(s["dropped"].values()) - sum(s["skipped"].values())
        assert s["words"] == sum(1 for d in docs for sent in d["src"] for w in sent if w != "</s>")
        assert s["sentences"] == sum(len(d["src"]) for d in docs)
        assert s["summary_words"] == sum(len(d["tgt"]) for d in docs)
        assert s["avg_highlights_per_doc"] == round(sum(len(d["refs"]) for d in docs) / len(docs), 2)
        assert s["avg_words_per_doc"] == round(s["words"] / len(docs), 2)
    vocab_lines = (data / "vocab.txt").read_text().splitlines()
    assert stats["vocab"]["size"] == len(vocab_lines)


@pytest.mark.parametrize("preset", ["model0-cpu", "model2-cpu", "model3-cpu"])
def test_train_evaluate_summarize(e2e, preset, capsys):
    run = e2e / "runs" / preset
    cfg = Path(__file__).resolve().parents[2] / "configs" / f"{preset}.yaml"
    sets = [*TINY, "data.val_holdout=0"]
    assert main(tiny.train_argv(cfg, e2e / "data", run, 3, sets)) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["steps"] == 3 and summary["stop"] == "max_steps"
    assert (run / "best" / "model.safetensors").exists() and (run / "config.json").exists()
    rows = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert any(r["split"] == "val" for r in rows) and any(r["split"] == "train" for r in rows)
    # resume for two more steps
    assert main(tiny.train_argv(cfg, e2e / "data", run, 5, sets, "--resume")) == 0
    assert json.loads(capsys.readouterr().out)["steps"] == 5

    out = e2e / "eval" / preset
    assert (
        main(
            [
                "-q",
                "evaluate",
                "--model",
                str(run),
                "--data",
                str(e2e / "data"),
                "--split",
                "test",
                "--out",
                str(out),
                "--beam",
                "2",
                "--limit",
                "4",
            ]
        )
        == 0
    )
    table = capsys.readouterr().out
    assert "ROUGE-1" in table and "PPL" in table
    metrics = json.loads((out / "metrics.json").read_text())
    for key in ("ppl", "rouge1", "rouge2", "rougeL", "rouge1_concat", "rouge2_concat", "rougeL_concat"):
        assert isinstance(metrics[key], float), key
    preds = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(preds) == 4 and {"id", "candidate", "references"} <= preds[0].keys()

    article = e2e / "article.txt"
    article.write_text(
        "The mayor said on Tuesday that the bridge will close for 3 months. Drivers should use the tunnel instead.\n",
        encoding="utf-8",
    )
    att = e2e / f"attn-{preset}.json"
    assert (
        main(
            [
                "-q",
                "summarize",
                "--model",
                str(run),
                "--beam",
                "2",
                "--min-len",
                "3",
                "--max-len",
                "8",
                "--attention-out",
                str(att),
                str(article),
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.strip()
    a = json.loads(att.read_text())
    assert len(a) == 1 and len(a[0]["attention"]) == len(a[0]["tokens"]) + int(a[0]["eos"])
    assert all(abs(sum(row) - 1) < 1e-4 for row in a[0]["attention"])


def test_baseline_first_and_rouge_command(e2e, capsys):
    out = e2e / "eval" / "first"
    assert main(["-q", "baseline", "first", "--data", str(e2e / "data"), "--split", "test", "--out", str(out)]) == 0
    m = json.loads((out / "metrics.json").read_text())
    assert m["n_docs"] == 10 and 5 < m["rouge1"] < 80
    preds = out / "predictions.jsonl"
    capsys.readouterr()
    assert main(["rouge", "--candidates", str(preds), "--references", str(preds)]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["rouge1"] == pytest.approx(m["rouge1"]) and scores["rougeL_concat"] == pytest.approx(
        m["rougeL_concat"]
    )


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["train", "--config", "nope.yaml", "--data", "x", "--out", "y"], "nope.yaml"),
        (["train", "--config", "configs/model0-cpu.yaml", "--data", "missing-dir", "--out", "y"], "missing-dir"),
        (
            ["train", "--config", "configs/model0-cpu.yaml", "--data", "x", "--out", "y", "--set", "model.hidden=abc"],
            "model.hidden",
        ),
        (
            ["train", "--config", "configs/model0-cpu.yaml", "--data", "x", "--out", "y", "--set", "model.nope=1"],
            "nope",
        ),
        (["evaluate", "--model", "no-run", "--data", "x", "--split", "test", "--out", "o"], "no-run"),
        (["rouge", "--candidates", "a.jsonl", "--references", "b.jsonl"], "a.jsonl"),
    ],
)
def test_bad_arguments_give_a_one_line_reason(argv, needle, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    argv = [a.replace("missing-dir", str(tmp_path / "missing-dir")) for a in argv]
    argv = [str(tmp_path / a) if a in ("y", "o") else a for a in argv]
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0
    assert len(err) == 1 and needle in err[0], err


def test_console_script_help():
    exe = Path(sys.executable).with_name("c2fsum")
    cmd = [str(exe)] if exe.exists() else [shutil.which("c2fsum") or "c2fsum"]
    out = subprocess.run([*cmd, "--help"], capture_output=True, text=True, check=True).stdout
    for sub in ("prepare", "train", "summarize", "evaluate", "baseline", "rouge"):
        assert sub in out
