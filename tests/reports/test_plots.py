"""Figures: heatmaps and training curves are real PNGs; bad inputs give errors naming the file."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import numpy as np
import pytest
import torch
from matplotlib.image import imread

from c2fsum.cli.main import build_parser
from c2fsum.reports.plots import (
    attention_figure,
    attention_heatmap,
    chunk_labels_from_words,
    read_attention,
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
    a = build_parser().parse_args(argv)
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


def _plot_attention(run: Path, data: Path, doc_id: str, out: Path, *extra: str) -> int:
    argv = ["plot", "attention", "--model", str(run), "--data", str(data), "--doc", str(doc_id), "--out", str(out)]
    return plot_cli([*argv, *extra])


def test_plot_attention_writes_a_png_and_names_bad_input(tiny_run, tmp_path):
    from c2fsum.data.prepare import read_prepared

    run, prepared_small = tiny_run
    doc_id = next(iter(read_prepared(prepared_small / "test.jsonl")))["id"]
    assert _plot_attention(run, prepared_small, doc_id, tmp_path / "cli.png", "--beam", "1") == 0
    assert_png(tmp_path / "cli.png")
    with pytest.raises(ValueError, match=r"test.jsonl: no document with id 'no-such-doc'"):
        _plot_attention(run, prepared_small, "no-such-doc", tmp_path / "x.png")
    with pytest.raises(FileNotFoundError, match="nosplit.jsonl"):
        _plot_attention(run, prepared_small, doc_id, tmp_path / "x.png", "--split", "nosplit")


# -- what the figures show (not only that a PNG exists) ----------------------------------------
@pytest.fixture
def drawn(monkeypatch):
    """The matplotlib figures the plot functions save, in order."""
    from c2fsum.reports import plots

    figs = []
    real = plots._save

    def save(fig, out_path):
        figs.append(fig)
        return real(fig, out_path)

    monkeypatch.setattr(plots, "_save", save)
    return figs


def _heatmap_content(fig):
    ax = fig.axes[0]
    (img,) = ax.get_images()
    return (
        np.asarray(img.get_array()),
        [t.get_text() for t in ax.get_yticklabels()],
        [t.get_text() for t in ax.get_xticklabels()],
        img.get_clim(),
    )


def test_attention_heatmap_draws_one_row_per_chunk_one_column_per_word(tmp_path, drawn):
    attn = torch.tensor([[0.7, 0.2, 0.1], [0.0, 0.0, 1.0]])  # (T=2 words, M=3 chunks)
    attention_heatmap(attn, ["[0] a $ 5", "[1] b", "[2] c"], ["w1", "</s>"], tmp_path / "h.png")
    matrix, rows, cols, clim = _heatmap_content(drawn[-1])
    assert np.allclose(matrix, attn.T.numpy())  # chunk i, word t -> attn[t, i]
    assert rows == [r"[0] a \$ 5", "[1] b", "[2] c"] and cols == ["w1", "</s>"]
    assert clim == (0.0, 1.0)  # one scale for every model


def test_training_curves_draw_each_runs_rows(tmp_path, drawn):
    a = write_metrics(tmp_path / "model0")
    b = write_metrics(tmp_path / "model2", base=120.0)
    training_curves([a, b], tmp_path / "curves.png", labels=["MODEL 0", "MODEL 2"])
    ax = drawn[-1].axes[0]
    lines = ax.get_lines()
    assert ax.get_yscale() == "log" and len(lines) == 4  # train + val per run
    for run, (train, val) in zip((a, b), (lines[0:2], lines[2:4]), strict=True):
        log = read_metrics_log(run)
        assert train.get_linestyle() == "--" and val.get_linestyle() == "-"
        assert list(zip(train.get_xdata(), train.get_ydata(), strict=True)) == sorted(log.train)
        assert list(zip(val.get_xdata(), val.get_ydata(), strict=True)) == sorted(log.val)
        assert train.get_color() == val.get_color()
    assert lines[0].get_color() != lines[2].get_color()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[:2] == ["MODEL 0", "MODEL 2"]


def test_plot_attention_and_evaluate_decode_a_document_alike(tiny_run, tmp_path, drawn):
    """Two paths that must agree: `plot attention` and `evaluate` read the whole document and
    write the same summary with the same chunk attention (they once read 400 words and all)."""
    from c2fsum.decoding.postprocess import words_to_text
    from c2fsum.evaluation.evaluate import evaluate

    run, prepared_small = tiny_run
    evaluate(run, prepared_small, "test", tmp_path / "eval", beam=2, limit=3, progress=False)
    pred = json.loads((tmp_path / "eval" / "predictions.jsonl").read_text().splitlines()[0])
    record = read_attention(tmp_path / "eval", pred["id"])
    assert _plot_attention(run, prepared_small, pred["id"], tmp_path / "doc.png", "--beam", "2") == 0
    matrix, rows, cols, _ = _heatmap_content(drawn[-1])
    assert cols == record["words"]
    summary = cols[:-1] if cols[-1] == "</s>" else cols
    assert words_to_text(summary) == pred["candidate"]
    assert np.allclose(matrix, np.asarray(record["attention"]).T, atol=1e-6)
    # whole documents: more rows than the trained grid's 4 chunks of 10 words
    assert matrix.shape[0] == -(-len(record["source"]) // 10) > 4
    assert rows[0].startswith("[0] " + " ".join(record["source"][:3]))
    # --max-words 60, as `evaluate --max-words 60` reads: 6 chunks of 10
    assert _plot_attention(run, prepared_small, pred["id"], tmp_path / "doc60.png", "--max-words", "60") == 0
    assert _heatmap_content(drawn[-1])[0].shape[0] == 6


def test_attention_figure_draws_a_record(tmp_path, drawn):
    record = {
        "id": "d1",
        "model": "model2",
        "kind": "coarse attention",
        "chunk_len": 2,
        "source": ["a", "b", "c", "d", "e"],
        "words": ["x", "</s>"],
        "attention": [[0.5, 0.25, 0.25], [0.0, 1.0, 0.0]],  # (T=2, M'=3)
    }
    attention_figure(record, tmp_path / "r.png")
    matrix, rows, cols, _ = _heatmap_content(drawn[-1])
    assert np.allclose(matrix, np.asarray(record["attention"]).T)
    assert rows == ["[0] a b", "[1] c d", "[2] e"] and cols == ["x", "</s>"]
    title = drawn[-1]._suptitle.get_text()
    assert "doc d1" in title and f"entropy {(-0.5 * math.log(0.5) - 0.5 * math.log(0.25)) / 2:.2f}" in title
    with pytest.raises(ValueError, match="d1"):
        attention_figure({**record, "attention": []}, tmp_path / "r.png")


def test_read_attention_names_the_file_and_the_ids(tmp_path):
    (tmp_path / "attention.jsonl").write_text(json.dumps({"id": "a"}) + "\n" + json.dumps({"id": "b"}) + "\n")
    assert read_attention(tmp_path, "b") == {"id": "b"}
    with pytest.raises(ValueError, match=r"attention.jsonl: no attention of document 'z' \(it holds a, b\)"):
        read_attention(tmp_path, "z")
    with pytest.raises(FileNotFoundError, match="attention.jsonl"):
        read_attention(tmp_path / "none", "a")


# -- where a hierarchical model reads ---------------------------------------------------------
def _write_predictions(folder: Path, rows: list[dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return folder


def test_reading_figure_draws_the_recorded_positions_and_fractions(tmp_path, drawn):
    """Positions are chunk / n_chunks per output step, weighted to sum to 1 per model; the right
    panel counts documents by fine fraction; the legend gives the mean fraction."""
    from c2fsum.reports.plots import reading_figure

    a = _write_predictions(
        tmp_path / "m3",
        [
            {"id": "1", "chunks": [0, 0, 9], "n_chunks": 10, "fine_fraction": 0.2},
            {"id": "2", "chunks": [3], "n_chunks": 4, "fine_fraction": 0.5},
        ],
    )
    reading_figure([a], tmp_path / "r.png", labels=["MODEL 3"])
    assert_png(tmp_path / "r.png")
    left, right = drawn[-1].axes
    (steps,) = left.patches  # one step histogram: its outline holds the bin heights
    heights = steps.get_xy()[1:-1:2, 1]  # (bins,) outline y at each bin (20 bins of 0.05)
    want = np.zeros(20)
    for pos in (0.0, 0.0, 0.9, 0.75):
        want[int(pos / 0.05 + 1e-9)] += 0.25
    assert np.allclose(heights, want)
    (docs,) = right.patches
    counts = docs.get_xy()[1:-1:2, 1]
    assert counts[4] == 1 and counts[10] == 1 and counts.sum() == 2  # 0.2 and 0.5
    assert [t.get_text() for t in right.get_legend().get_texts()] == ["MODEL 3 (mean 0.35)"]


def test_reading_names_the_line_of_a_flat_models_prediction(tmp_path):
    from c2fsum.reports.plots import read_reading

    folder = _write_predictions(
        tmp_path / "m0",
        [{"id": "1", "chunks": [0], "n_chunks": 1, "fine_fraction": 1.0}, {"id": "2", "fine_fraction": 1.0}],
    )
    with pytest.raises(ValueError, match=r"predictions.jsonl:2: no chunks, n_chunks"):
        read_reading(folder)
    with pytest.raises(ValueError, match="one per evaluation"):
        plot_cli(["plot", "reading", str(folder), "--out", str(tmp_path / "x.png"), "--labels", "a,b"])
