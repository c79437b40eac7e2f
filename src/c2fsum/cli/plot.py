"""``c2fsum plot``: figures from run directories and prepared data.

    c2fsum plot attention --model MODEL --data DATA_DIR --doc ID --out FILE.png
                          [--split test] [--beam K] [--max-words W] [--device cpu]
    c2fsum plot curves RUN_DIR [RUN_DIR ...] --out FILE.png [--labels a,b,...]
    c2fsum plot reading EVAL_DIR [EVAL_DIR ...] --out FILE.png [--labels a,b,...]

Bad input raises ValueError or FileNotFoundError with a one-line message; the main CLI prints it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from c2fsum.cli.options import Command, add_data, add_decode_options, add_device, add_model, add_split, data_folder
from c2fsum.errors import InputError


def _png(path: str) -> Path:
    p = Path(path)
    if p.suffix.lower() != ".png":
        raise InputError(f"--out {path}: expected a .png file name")
    return p


def cmd_plot_attention(a: argparse.Namespace) -> int:
    """Decode one document through the inference path, as ``evaluate`` does, and draw its attention."""
    from c2fsum.data.prepare import find_document
    from c2fsum.pipeline import Pipeline, chunk_attention
    from c2fsum.reports.plots import attention_figure

    out = _png(a.out)
    doc = find_document(data_folder(a), a.split, a.doc)
    pipe = Pipeline(a.model, device=a.device)
    o = pipe.options(beam=a.beam, max_words=a.max_words)
    (decoded,) = pipe.decode(pipe.encode_documents([doc], max_words=o.max_words), o)
    cfg = pipe.reading(o.max_words)
    path = attention_figure(chunk_attention(decoded, cfg.data.chunk_len, cfg.name or cfg.model.family), out)
    print(f"attention heatmap of document {a.doc} written to {path}")
    return 0


def cmd_plot_curves(a: argparse.Namespace) -> int:
    from c2fsum.reports.plots import training_curves

    out = _png(a.out)
    path = training_curves([Path(r) for r in a.runs], out, labels=_labels(a.labels, len(a.runs), "run"))
    print(f"training curves of {len(a.runs)} run(s) written to {path}")
    return 0


def _labels(text: str | None, n: int, what: str) -> list[str] | None:
    """``--labels a,b,...``: one name per ``what``, or None for the default."""
    if text is None:
        return None
    labels = [x.strip() for x in text.split(",")]
    if len(labels) != n:
        raise InputError(f"--labels: expected {n} comma-separated names (one per {what}), got {len(labels)}: {text!r}")
    return labels


def cmd_plot_reading(a: argparse.Namespace) -> int:
    from c2fsum.reports.plots import reading_figure

    out = _png(a.out)
    path = reading_figure([Path(d) for d in a.evals], out, labels=_labels(a.labels, len(a.evals), "evaluation"))
    print(f"reading of {len(a.evals)} evaluation(s) written to {path}")
    return 0


def _attention_arguments(s: argparse.ArgumentParser) -> None:
    add_model(s)
    add_data(s)
    s.add_argument("--doc", required=True, metavar="ID", help="id of the document in the split")
    s.add_argument("--out", required=True, metavar="FILE.png", help="the PNG to write")
    add_split(s)
    add_decode_options(s, flags=("beam", "max_words"))
    add_device(s)


def _curves_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run directories written by `c2fsum train`")
    s.add_argument("--out", required=True, metavar="FILE.png", help="the PNG to write")
    s.add_argument(
        "--labels",
        metavar="A,B,...",
        help="legend names, comma-separated, one per run (default: the directories' names)",
    )


def _reading_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("evals", nargs="+", metavar="EVAL_DIR", help="output folders of `c2fsum evaluate`")
    s.add_argument("--out", required=True, metavar="FILE.png", help="the PNG to write")
    s.add_argument("--labels", metavar="A,B,...", help="legend names, one per evaluation (default: folder names)")


COMMAND = Command(
    "plot",
    help="figures: attention heatmaps, training curves (PNG)",
    description="Draw figures from run directories and prepared data.",
    metavar="FIGURE",
    subcommands=(
        Command(
            "attention",
            help="chunk attention of one decoded document (thesis Figs. 6.5-6.12)",
            description="Decode one document with a trained model, as `c2fsum evaluate` does (the whole "
            "document unless --max-words), and draw, for every summary word, the attention on each source chunk.",
            run=cmd_plot_attention,
            arguments=_attention_arguments,
        ),
        Command(
            "curves",
            help="training and validation perplexity of runs (thesis Fig. 6.1)",
            description="Plot train (dashed) and validation (solid) perplexity against step, "
            "log scale, one color per run, from each run's metrics.jsonl.",
            run=cmd_plot_curves,
            arguments=_curves_arguments,
        ),
        Command(
            "reading",
            help="where hierarchical models read: chunk positions and fine fraction (PNG)",
            description="From the predictions.jsonl of `c2fsum evaluate` runs of MODEL 1-3: the share of "
            "output steps reading each part of the document, and per document the share of its words "
            "encoded at the fine level.",
            run=cmd_plot_reading,
            arguments=_reading_arguments,
        ),
    ),
)
