"""Figures: heatmaps and training curves are real PNGs; bad inputs give errors naming the file."""

from __future__ import annotations

import argparse
import json
import logging
import math
from pathlib import Path

import pytest
import torch
from matplotlib.image import imread

from c2fsum.cli.plot import add_plot_parser
from c2fsum.reports.plots import (
    attention_heatmap,
    chunk_labels_from_words,
    heatmap_for_document,
    read_metrics_log,
    training_curves,
    truncate,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def assert_png(path: Path, min_h: int = 200, min_w: int = 300) -> tuple[int, int]:
    data = Path(path).read_bytes()
    assert data[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    img = imread(path)
    assert img.ndim == 3 and img.shape[2] in (3, 4)
    h, w = img.shape[:2]
    assert h >= min_h and w >= min_w, img.shape
    assert img[..., :3].std() > 0.01, "blank image"
    return h, w


def write_metrics(run: Path, *, base: float = 80.0, extra_lines: tuple[str, ...] = ()) -> Path:
    run.mkdir(parents=True, exist_ok=True)
    rows = []
    for step in range(10, 301, 10):
        ppl = base * math.exp(-step / 150)
        rows.append({"split": "train", "step": step, "epoch": step // 100, "ppl": ppl + 5, "lr": 1.0})
        if step % 100 == 0:
            rows.append({"split": "val", "step": step, "epoch": step // 100, "ppl": ppl + 8})
    lines = [json.dumps(r) for r in rows] + list(extra_lines)
    (run / "metrics.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return run


def plot_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="c2fsum")
    add_plot_parser(parser.add_subparsers(dest="command", required=True))
    a = parser.parse_args(argv)
    return a.func(a)


# -- heatmap ---------------------------------------------------------------------------------
def test_attention_heatmap_writes_a_png(tmp_path):
    T, M = 12, 6
    attn = torch.softmax(torch.randn(T, M, generator=torch.Generator().manual_seed(0)), -1)
    words = "the house passed a $ 5 million bill on tuesday . </s>".split()
    chunk_words = (
        "( cnn ) the house passed a $ 5 million bill on tuesday to fund the agency , officials said . </s> "
    ).split() * 2
    labels = chunk_labels_from_words(chunk_words, chunk_len=10, n_chunks=M)
    assert len(labels) == M and labels[0].startswith("[0] ( cnn )") and labels[-1] == "[5] (padding)"
    out = attention_heatmap(attn, labels, words, tmp_path / "sub" / "heat.png", title="doc 1 | $ mass")
    assert out == tmp_path / "sub" / "heat.png"
    h, w = assert_png(out)
    assert w > h  # one column per word, plus the row labels


def test_attention_heatmap_checks_shapes(tmp_path):
    attn = torch.full((3, 2), 0.5)
    with pytest.raises(ValueError, match="summary_words: expected T=3 words"):
        attention_heatmap(attn, ["a", "b"], ["x", "y"], tmp_path / "h.png")
    with pytest.raises(ValueError, match="chunk_labels: expected M=2 labels"):
        attention_heatmap(attn, ["a"], ["x", "y", "z"], tmp_path / "h.png")
    with pytest.raises(ValueError, match=r"expected shape \(T, M\)"):
        attention_heatmap(torch.ones(3), ["a"], ["x"], tmp_path / "h.png")
    assert not (tmp_path / "h.png").exists()


def test_truncate_labels():
    assert truncate("short") == "short"
    long = "word " * 30
    cut = truncate(long)
    assert len(cut) <= 60 and cut.endswith("…")


# -- training curves -------------------------------------------------------------------------
def test_training_curves_write_a_png(tmp_path):
    a = write_metrics(tmp_path / "model0")
    b = write_metrics(tmp_path / "model2", base=120.0)
    out = training_curves([a, b], tmp_path / "curves.png", labels=["MODEL 0", "MODEL 2"])
    assert_png(out)


def test_training_curves_skip_and_count_bad_lines(tmp_path, caplog):
    run = write_metrics(
        tmp_path / "run",
        extra_lines=("{not json", '{"split": "val", "step": 5}', "[1, 2]", '{"split": "train", "step": 3, "ppl": -1}'),
    )
    with caplog.at_level(logging.WARNING, logger="c2fsum.reports.plots"):
        log = read_metrics_log(run)
        training_curves([run], tmp_path / "c.png")
    assert log.skipped == 4
    assert len(log.train) == 30 and len(log.val) == 3
    assert "skipped 4 malformed line(s)" in caplog.text and str(run / "metrics.jsonl") in caplog.text
    assert_png(tmp_path / "c.png")


def test_training_curves_name_the_missing_file(tmp_path):
    good = write_metrics(tmp_path / "good")
    missing = tmp_path / "nothing_here"
    missing.mkdir()
    with pytest.raises(FileNotFoundError, match=str(missing / "metrics.jsonl")):
        training_curves([good, missing], tmp_path / "c.png")
    (missing / "metrics.jsonl").write_text("garbage\n\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{missing / 'metrics.jsonl'}: no train or val rows"):
        training_curves([missing], tmp_path / "c.png")
    with pytest.raises(ValueError, match="labels: expected 1"):
        training_curves([good], tmp_path / "c.png", labels=["a", "b"])
    assert not (tmp_path / "c.png").exists()


def test_cli_curves(tmp_path, capsys):
    a, b = write_metrics(tmp_path / "a"), write_metrics(tmp_path / "b", base=50.0)
    out = str(tmp_path / "c.png")
    assert plot_cli(["plot", "curves", str(a), str(b), "--out", out, "--labels", "x,y"]) == 0
    assert_png(tmp_path / "c.png")
    assert "c.png" in capsys.readouterr().out
    with pytest.raises(ValueError, match="--labels: expected 2"):
        plot_cli(["plot", "curves", str(a), str(b), "--out", str(tmp_path / "d.png"), "--labels", "x"])
    with pytest.raises(ValueError, match="expected a .png"):
        plot_cli(["plot", "curves", str(a), "--out", str(tmp_path / "d.pdf")])


# -- one document of a trained run -----------------------------------------------------------
TINY = [
    "model.emb_dim=8",
    "model.hidden=12",
    "model.enc_layers=1",
    "model.dec_layers=1",
    "data.chunks=4",
    "data.chunk_len=10",
    "train.max_steps=2",
    "train.batch_size=4",
    "data.vocab_size=300",
    "model.family=model2",
    "model.chunk_filters=8",
    "decode.max_len=12",
    "data.max_tgt_len=20",
]


@pytest.fixture(scope="module")
def tiny_run(request, tmp_path_factory) -> tuple[Path, Path]:
    """(run directory, prepared data): MODEL 2 trained 2 steps on ``prepared_small``."""
    pytest.importorskip("c2fsum.data.prepare", reason="c2fsum.data.prepare is needed to prepare the data")
    from c2fsum.config import load_config
    from c2fsum.training.trainer import Trainer

    prepared = request.getfixturevalue("prepared_small")
    run = tmp_path_factory.mktemp("tiny_model2")
    Trainer(load_config(None, TINY), prepared, run, progress=False).fit()
    return run, prepared


def test_heatmap_for_document(tiny_run, tmp_path):
    from c2fsum.data.prepare import read_prepared

    run, prepared_small = tiny_run
    doc_id = next(iter(read_prepared(prepared_small / "test.jsonl")))["id"]
    out = heatmap_for_document(run, prepared_small, doc_id, tmp_path / "doc.png", beam=2)
    assert_png(out)
    assert (
        plot_cli(
            [
                "plot",
                "attention",
                "--model",
                str(run),
                "--data",
                str(prepared_small),
                "--doc",
                str(doc_id),
                "--out",
                str(tmp_path / "cli.png"),
                "--beam",
                "1",
            ]
        )
        == 0
    )
    assert_png(tmp_path / "cli.png")
    with pytest.raises(ValueError, match=r"test.jsonl: no document with id 'no-such-doc'"):
        heatmap_for_document(run, prepared_small, "no-such-doc", tmp_path / "x.png")
    with pytest.raises(FileNotFoundError, match="nosplit.jsonl"):
        heatmap_for_document(run, prepared_small, doc_id, tmp_path / "x.png", split="nosplit")
