"""Figures built only from files on disk: attention heatmaps and training curves.

* :func:`attention_heatmap` -- the thesis's Figures 6.5-6.12: one row per chunk of the source
  (labelled with its text), one column per summary word, the shade is the chunk's attention.
* :func:`attention_figure` -- the same for one decoded document, from its
  :func:`c2fsum.pipeline.chunk_attention` record (``attention.jsonl`` of ``c2fsum evaluate``, or
  what ``c2fsum plot attention`` decodes); :func:`read_attention` finds a record on disk.
* :func:`training_curves` -- the thesis's Figure 6.1: training and validation perplexity of
  several runs, read from their ``metrics.jsonl``.

Letters in shapes: T summary length (``</s>`` step included), M chunks, N words per chunk.
Figures are drawn on :class:`matplotlib.figure.Figure` objects rendered by the Agg canvas, never
through ``pyplot``: no screen is needed and the caller's matplotlib backend is left alone.
"""

from __future__ import annotations

import json
import logging
import math
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import LogFormatter

from c2fsum.errors import InputError
from c2fsum.evaluation.scoring import read_jsonl_with_errors
from c2fsum.metrics.entropy import attention_entropy

log = logging.getLogger(__name__)

LABEL_CHARS = 60
"""Chunk labels longer than this are cut and end with an ellipsis."""


def _plain(text: str) -> str:
    """Escape ``$`` so that matplotlib never reads a label as mathtext (``$ 5 million``)."""
    return text.replace("$", r"\$")


def truncate(text: str, limit: int = LABEL_CHARS) -> str:
    """``text`` cut to at most ``limit`` characters, ending with ``…`` when cut."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _to_numpy(matrix) -> np.ndarray:
    if hasattr(matrix, "detach"):
        matrix = matrix.detach().float().cpu().numpy()
    return np.asarray(matrix, dtype=np.float64)


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, out_path: str | Path) -> Path:
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110, format="png")
    return out


# -- attention heatmaps ----------------------------------------------------------------------
def attention_heatmap(
    chunk_attn, chunk_labels: list[str], summary_words: list[str], out_path: str | Path, title: str | None = None
) -> Path:
    """Write a PNG of the chunk attention of each summary word; returns its path.

    Args:
        chunk_attn: ``(T, M)`` tensor or array, the attention on each chunk at each step
            (e.g. :func:`c2fsum.metrics.entropy.chunk_distribution`).
        chunk_labels: M row labels (the chunks' text; cut to ~60 characters).
        summary_words: T column labels (the generated words, ``</s>`` included if attended).
        out_path: the PNG to write (folders are created).
        title: optional figure title (wrapped to the figure's width).

    The color scale is fixed to [0, 1] so that figures of different models compare.
    """
    a = _to_numpy(chunk_attn)
    if a.ndim != 2:
        raise InputError(f"chunk_attn: expected shape (T, M), got {a.shape}")
    T, M = a.shape
    if len(summary_words) != T:
        raise InputError(
            f"summary_words: expected T={T} words (rows of chunk_attn {a.shape}), got {len(summary_words)}"
        )
    if len(chunk_labels) != M:
        raise InputError(
            f"chunk_labels: expected M={M} labels (columns of chunk_attn {a.shape}), got {len(chunk_labels)}"
        )
    if T == 0 or M == 0:
        raise InputError(f"chunk_attn: nothing to draw, shape {a.shape}")
    img = a.T  # (M, T)
    labels = [_plain(truncate(" ".join(str(c).split()))) for c in chunk_labels]
    words = [_plain(str(w)) for w in summary_words]
    # sizes in inches: 0.26 per summary word, 0.38 per chunk, room for the labels around them
    cells_w = max(0.26 * T, 1.2)
    label_w = 0.75 + 0.068 * max(len(s) for s in labels)
    width = min(max(label_w + cells_w + 1.1, 7.0), 60.0)
    title_lines = textwrap.wrap(_plain(title), max(int((width - 0.4) / 0.085), 20)) if title else []
    word_h = 0.4 + 0.075 * max(len(w) for w in words)
    height = min(max(0.38 * M + word_h + 0.35 + 0.2 * len(title_lines), 3.0), 40.0)
    fig = _figure(width, height)
    grid = fig.add_gridspec(1, 2, width_ratios=[cells_w, 0.16])
    ax, cax = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])
    im = ax.imshow(img, aspect="auto", cmap="Blues", vmin=0.0, vmax=1.0, interpolation="nearest")
    ax.set_yticks(range(M), labels, fontsize=8)
    ax.set_xticks(range(T), words, fontsize=8, rotation=70, ha="right", rotation_mode="anchor")
    ax.tick_params(length=0)
    ax.set_xticks(np.arange(-0.5, T, 1), minor=True)
    ax.set_yticks(np.arange(-0.5, M, 1), minor=True)
    ax.grid(which="minor", color="white", linewidth=0.6)
    ax.tick_params(which="minor", length=0)
    ax.set_xlabel("summary word", fontsize=9)
    ax.set_ylabel("source chunk", fontsize=9)
    cbar = fig.colorbar(im, cax=cax)
    cbar.set_label("chunk attention", fontsize=9)
    cbar.ax.tick_params(labelsize=8)
    if title_lines:
        fig.suptitle("\n".join(title_lines), fontsize=10)
    return _save(fig, out_path)


def chunk_labels_from_words(words: list[str], chunk_len: int, n_chunks: int | None = None) -> list[str]:
    """Row labels ``"[3] text of chunk 3"`` from a grid's words in reading order."""
    if chunk_len < 1:
        raise InputError(f"chunk_len must be >= 1, got {chunk_len}")
    rows = [words[i : i + chunk_len] for i in range(0, len(words), chunk_len)]
    if n_chunks is not None:
        rows = rows[:n_chunks] + [[] for _ in range(n_chunks - len(rows))]
    return [f"[{i}] " + (" ".join(r) if r else "(padding)") for i, r in enumerate(rows)]


ATTENTION_FILE = "attention.jsonl"
"""The file of ``c2fsum evaluate`` that holds the chunk attention of its first documents."""


def read_attention(eval_dir: str | Path, doc_id: str) -> dict:
    """The chunk-attention record of document ``doc_id`` in ``{eval_dir}/attention.jsonl``.

    FileNotFoundError when the file is missing; ValueError naming the file and the ids it holds
    when the document is not among them.
    """
    path = Path(eval_dir) / ATTENTION_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: missing (written by `c2fsum evaluate`)")
    ids = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            if str(record.get("id")) == str(doc_id):
                return record
            ids.append(str(record.get("id")))
    raise InputError(f"{path}: no attention of document {doc_id!r} (it holds {', '.join(ids) or 'none'})")


def attention_figure(record: dict, out_path: str | Path) -> Path:
    """Draw the heatmap (:func:`attention_heatmap`) of one :func:`c2fsum.pipeline.chunk_attention` record.

    The rows are the document's chunks (``record["chunk_len"]`` words each), the columns the
    generated words and ``</s>``; the title gives the mean entropy of the chunk attention.
    """
    dist = np.asarray(record["attention"], dtype=np.float64)  # (T, M')
    if dist.ndim != 2 or dist.size == 0:
        raise InputError(f"document {record.get('id')!r}: no attention to draw (shape {dist.shape})")
    n_rows = dist.shape[1]
    labels = chunk_labels_from_words(record["source"], record["chunk_len"], n_rows)
    entropy = float(attention_entropy(torch.from_numpy(dist)).mean())
    title = (
        f"{record.get('model') or 'model'} | doc {record['id']} | {record.get('kind', 'attention')} | "
        f"entropy {entropy:.2f} nats (uniform {math.log(n_rows):.2f})"
    )
    return attention_heatmap(dist, labels, record["words"], out_path, title=title)


# -- training curves -------------------------------------------------------------------------
@dataclass
class MetricsLog:
    """The perplexity rows of one run's ``metrics.jsonl``."""

    path: Path
    train: list[tuple[int, float]] = field(default_factory=list)
    """(step, ppl) of the training rows, in file order."""
    val: list[tuple[int, float]] = field(default_factory=list)
    """(step, ppl) of the validation rows, in file order."""
    skipped: int = 0
    """Lines that were not a JSON object with ``split``, an integer ``step`` and a positive ``ppl``."""


def _ppl_row(line: str) -> tuple[str, int, float] | None:
    try:
        row = json.loads(line)
    except json.JSONDecodeError:
        return None
    if not isinstance(row, dict):
        return None
    split, step, ppl = row.get("split"), row.get("step"), row.get("ppl")
    if not isinstance(split, str) or isinstance(step, bool) or not isinstance(step, int):
        return None
    if isinstance(ppl, bool) or not isinstance(ppl, int | float) or not math.isfinite(ppl) or ppl <= 0:
        return None
    return split, step, float(ppl)


def read_metrics_log(run_dir: str | Path) -> MetricsLog:
    """Read ``{run_dir}/metrics.jsonl`` (or the file itself); malformed lines are skipped and counted."""
    p = Path(run_dir)
    path = p / "metrics.jsonl" if p.is_dir() or p.suffix != ".jsonl" else p
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file (expected a run directory written by `c2fsum train`)")
    out = MetricsLog(path=path)
    bad_lines: list[int] = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            row = _ppl_row(line)
            if row is None:
                bad_lines.append(n)
                continue
            split, step, ppl = row
            if split == "train":
                out.train.append((step, ppl))
            elif split == "val":
                out.val.append((step, ppl))
    out.skipped = len(bad_lines)
    if bad_lines:
        shown = ", ".join(map(str, bad_lines[:5])) + (", ..." if len(bad_lines) > 5 else "")
        log.warning("%s: skipped %d malformed line(s) (line %s)", path, len(bad_lines), shown)
    if not out.train and not out.val:
        raise InputError(
            f"{path}: no train or val rows with a step and a perplexity ({out.skipped} malformed line(s) skipped)"
        )
    return out


def training_curves(run_dirs: list[Path], out_path: str | Path, labels: list[str] | None = None) -> Path:
    """Training (dashed) and validation (solid) perplexity against step, one color per run,
    log-scale y (thesis Figure 6.1); returns the PNG's path.

    Args:
        run_dirs: run directories (or their ``metrics.jsonl`` files).
        out_path: the PNG to write.
        labels: legend names, one per run (default: the run directories' names).
    """
    run_dirs = [Path(r) for r in run_dirs]
    if not run_dirs:
        raise InputError("training_curves: expected at least one run directory, got none")
    if labels is None:
        labels = [r.name if r.suffix != ".jsonl" else r.parent.name for r in run_dirs]
    if len(labels) != len(run_dirs):
        raise InputError(f"labels: expected {len(run_dirs)} (one per run), got {len(labels)}: {labels}")
    logs = [read_metrics_log(r) for r in run_dirs]
    fig = _figure(8.0, 5.0)
    ax = fig.add_subplot()
    colors = colormaps["tab10" if len(logs) <= 10 else "tab20"].colors  # type: ignore[attr-defined]
    runs = []
    for i, (mlog, label) in enumerate(zip(logs, labels, strict=True)):
        color = colors[i % len(colors)]
        if mlog.train:
            steps, ppl = zip(*sorted(mlog.train), strict=True)
            ax.plot(steps, ppl, linestyle="--", linewidth=1.2, color=color, alpha=0.85)
        if mlog.val:
            steps, ppl = zip(*sorted(mlog.val), strict=True)
            ax.plot(steps, ppl, linestyle="-", linewidth=1.8, marker="o", markersize=3.5, color=color)
        runs.append(Line2D([], [], color=color, linewidth=2.5, label=_plain(label)))
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(LogFormatter())  # 100, not 10^2
    ax.yaxis.set_minor_formatter(LogFormatter(labelOnlyBase=False, minor_thresholds=(1.5, 0.6)))
    ax.set_xlabel("step", fontsize=10)
    ax.set_ylabel("perplexity (log scale)", fontsize=10)
    ax.tick_params(labelsize=9)
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", alpha=0.12)
    style = [
        Line2D([], [], color="0.35", linestyle="--", label="train (dashed)"),
        Line2D([], [], color="0.35", marker="o", markersize=3.5, label="validation (solid)"),
    ]
    ax.legend(handles=runs + style, fontsize=9, loc="best", framealpha=0.9)
    ax.set_title("Training and validation perplexity", fontsize=11)
    return _save(fig, out_path)


# -- where a hierarchical model reads ----------------------------------------------------------
@dataclass
class Reading:
    """What ``c2fsum evaluate`` recorded of one evaluation's reading (its predictions.jsonl)."""

    positions: list[float]
    """Relative position in its document, ``chunk / n_chunks`` in [0, 1), of the chunk read at
    every output step of every document."""
    fine_fractions: list[float]
    """Per document: share of its words that went through the word-level encoder."""


def read_reading(eval_dir: str | Path) -> Reading:
    """The chunk positions and fine fractions of ``{eval_dir}/predictions.jsonl``.

    Raises ValueError naming the file and line when a prediction lacks them (a flat model's
    evaluation, or one written before c2fsum recorded them)."""
    path = Path(eval_dir)
    path = path / "predictions.jsonl" if path.is_dir() else path
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file (write it with `c2fsum evaluate`)")
    out = Reading([], [])
    read = read_jsonl_with_errors(path)
    if read.errors:
        raise InputError(read.errors[0])
    for lineno, p in read.rows:
        missing = [k for k in ("chunks", "n_chunks", "fine_fraction") if k not in p]
        if missing:
            raise InputError(
                f"{path}:{lineno}: no {', '.join(missing)}: not the evaluation of a hierarchical "
                "model (MODEL 1-3) by this version of `c2fsum evaluate`"
            )
        n = max(int(p["n_chunks"]), 1)
        out.positions.extend(min(int(c), n - 1) / n for c in p["chunks"])
        out.fine_fractions.append(float(p["fine_fraction"]))
    if not out.fine_fractions:
        raise InputError(f"{path}: no predictions")
    return out


def reading_figure(
    eval_dirs: list[Path], out_path: str | Path, labels: list[str] | None = None, bins: int = 20
) -> Path:
    """Where models read, from their evaluations: left, the share of output steps that read each
    tenth (``bins``-th) of the document (the chunk of highest coarse attention, the one MODEL 3
    picks); right, the distribution of the share of each document's words encoded at the fine
    level. Returns the PNG's path."""
    eval_dirs = [Path(d) for d in eval_dirs]
    if labels is None:
        labels = [d.name for d in eval_dirs]
    if len(labels) != len(eval_dirs):
        raise InputError(f"labels: expected {len(eval_dirs)} (one per evaluation), got {len(labels)}: {labels}")
    readings = [read_reading(d) for d in eval_dirs]
    fig = _figure(10.0, 4.2)
    left, right = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    edges = np.linspace(0.0, 1.0, bins + 1).tolist()
    for r, label in zip(readings, labels, strict=True):
        weights = np.full(len(r.positions), 1.0 / max(len(r.positions), 1))
        left.hist(r.positions, bins=edges, weights=weights, histtype="step", linewidth=1.8, label=_plain(label))
        mean = float(np.mean(r.fine_fractions))
        right.hist(
            r.fine_fractions,
            bins=np.linspace(0.0, 1.0, 21).tolist(),
            histtype="step",
            linewidth=1.8,
            label=_plain(f"{label} (mean {mean:.2f})"),
        )
    left.set_xlabel("position of the chunk read in its document (0 = start, 1 = end)", fontsize=9)
    left.set_ylabel("share of output steps", fontsize=9)
    left.set_title("Where the summary reads", fontsize=11)
    right.set_xlabel("share of the document's words encoded at the fine level", fontsize=9)
    right.set_ylabel("documents", fontsize=9)
    right.set_title("Fine-level reading per document", fontsize=11)
    for ax in (left, right):
        ax.tick_params(labelsize=8)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    return _save(fig, out_path)
