"""The report of an experiment directory (``c2fsum experiment``), built only from files on disk.

``build_report(EXP_DIR)`` writes ``report.md`` and ``report.html`` (images embedded, one file to
share) and ``figures/*.png``:

* the results table of the thesis's Table 6.1 (Model, PPL, ROUGE-1/2/L; FIRST, LEAD-3, ILP and
  BERKELEY as rows), read from every ``eval/*/metrics.json``, with the input the models read (the first
  ``max_words`` words of each article: 400 is the thesis's protocol) taken from those files;
* with ``whole_documents``, the same two tables for whole articles (``eval-whole/``), labelled;
* the entropy table of Table 6.2 (coarse-attention entropy per generated word, ln M);
* predicted summaries side by side for a few documents (Figures 6.2-6.4: source, GOLD, the
  baselines, each model), read from the ``predictions.jsonl`` files;
* the chunk-attention heatmap of each model on one document (Figures 6.5-6.12), drawn from the
  ``attention.jsonl`` its evaluation wrote (the first documents of the split; nothing is decoded here);
* training / validation perplexity curves of all runs (Figure 6.1);
* per run: the resolved ``config.json``, training and evaluation time; and the environment.

A part that cannot be built (a missing file, a document without recorded attention) is reported in place
with its reason; the rest of the report is still written.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import platform
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import cast

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from tqdm.auto import tqdm

from c2fsum.config import PAPER_MAX_WORDS
from c2fsum.data.prepare import read_prepared
from c2fsum.errors import InputError
from c2fsum.evaluation.significance import compare_systems
from c2fsum.reports.plots import attention_figure, read_attention, training_curves
from c2fsum.reports.tables import COLUMNS, ENTROPY_COLUMNS, MODEL_COLUMN, markdown_table, table_cells
from c2fsum.utils.io import atomic_write_text

log = logging.getLogger(__name__)

TEMPLATES = Path(__file__).resolve().parent / "templates"
BASELINE_ORDER = ("first", "lead3", "ilp", "berkeley")
SOURCE_WORDS = 400
"""Words of the source shown beside the summaries when the models read whole articles."""


@dataclass
class System:
    """One row of the results table: a baseline or a trained preset.

    ``key`` is its directory name under ``eval/`` (and ``runs/`` for a model).
    """

    key: str
    label: str
    kind: str  # "baseline" or "model"
    metrics: dict | None = None
    eval_dir: Path | None = None
    run_dir: Path | None = None
    config: dict | None = None
    finished: dict | None = None
    eval_s: float | None = None
    problems: list[str] = field(default_factory=list)
    whole_metrics: dict | None = None
    """``eval-whole/KEY/metrics.json``: the model on whole articles (``--whole-documents``), or None."""


def _read_json(path: Path, problems: list[str]):
    if not path.is_file():
        problems.append(f"{path}: missing")
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        problems.append(f"{path}: not valid JSON ({e.msg}, line {e.lineno})")
        return None


def collect(exp_dir: str | Path) -> tuple[dict, list[System], list[dict]]:
    """``(settings, systems, failures)`` of an experiment directory; baselines first, then the
    presets in the order of ``experiment.json``."""
    exp = Path(exp_dir)
    problems: list[str] = []
    settings = _read_json(exp / "experiment.json", problems)
    if settings is None:
        raise FileNotFoundError(f"{exp}/experiment.json: missing or invalid (run `c2fsum experiment` first)")
    failures = (
        json.loads((exp / "failures.json").read_text(encoding="utf-8")) if (exp / "failures.json").exists() else []
    )
    systems = []
    for key in BASELINE_ORDER:
        s = System(
            key=key,
            label={"first": "FIRST", "lead3": "LEAD-3", "ilp": "ILP", "berkeley": "BERKELEY"}[key],
            kind="baseline",
            eval_dir=exp / "eval" / key,
        )
        assert s.eval_dir is not None
        s.metrics = _read_json(s.eval_dir / "metrics.json", s.problems)
        timing = _read_json(s.eval_dir / "timing.json", [])
        s.eval_s = timing.get("eval_s") if timing else None
        systems.append(s)
    for preset in settings.get("presets", []):
        key = Path(preset).stem if Path(preset).suffix else preset
        s = System(key=key, label=key, kind="model", eval_dir=exp / "eval" / key, run_dir=exp / "runs" / key)
        assert s.eval_dir is not None and s.run_dir is not None
        s.config = _read_json(s.run_dir / "config.json", s.problems)
        s.finished = _read_json(s.run_dir / "finished.json", s.problems)
        s.metrics = _read_json(s.eval_dir / "metrics.json", s.problems)
        timing = _read_json(s.eval_dir / "timing.json", [])
        s.eval_s = timing.get("eval_s") if timing else None
        whole = exp / "eval-whole" / key / "metrics.json"
        if settings.get("whole_documents") or whole.exists():
            s.whole_metrics = _read_json(whole, s.problems)
        systems.append(s)
    return settings, systems, failures


def input_protocol(settings: dict, systems: list[System]) -> tuple[str, list[str]]:
    """What the models read, in words, and any disagreement between ``experiment.json`` and the
    ``max_words`` recorded in the models' ``metrics.json`` (0 or absent: whole articles)."""
    want = int(settings.get("max_words") or 0)
    seen = {s.label: int(s.metrics.get("max_words") or 0) for s in systems if s.kind == "model" and s.metrics}
    problems = [
        f"{label}: evaluated with max_words={got}, the experiment asks for {want} (delete eval/{label} to redo it)"
        for label, got in seen.items()
        if got != want
    ]
    if want == PAPER_MAX_WORDS:
        text = (
            f"each model reads the first {want} words of each article, the thesis's protocol "
            f"(`max_words` {want} in every model's metrics.json)"
        )
    elif want > 0:
        text = f"each model reads the first {want} words of each article (the thesis reads {PAPER_MAX_WORDS})"
    else:
        text = (
            "each model reads whole articles (`max_words` 0): NOT the thesis's protocol, which reads "
            f"the first {PAPER_MAX_WORDS} words"
        )
    return text + "; the baselines read whole articles.", problems


def _row(s: System) -> dict:
    return {**(s.metrics or {}), "model": s.label}


def _predictions(s: System) -> dict[str, dict]:
    path = s.eval_dir / "predictions.jsonl" if s.eval_dir else None
    if path is None or not path.is_file():
        return {}
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                out[str(row["id"])] = row
    return out


def choose_documents(predictions: list[dict[str, dict]], n: int) -> list[str]:
    """The first ``n`` ids (in the first system's order) that every system predicted."""
    if not predictions:
        return []
    common = [i for i in predictions[0] if all(i in p for p in predictions[1:])]
    return common[:n]


def _source_text(doc: dict, words: int = SOURCE_WORDS) -> str:
    """The first ``words`` words of the article (`` …`` when there are more)."""
    toks = [t for sent in doc["src"] for t in sent if t not in ("<s>", "</s>")]
    return " ".join(toks[:words]) + (" …" if len(toks) > words else "")


def _documents(data_dir: Path, split: str, ids: list[str]) -> dict[str, dict]:
    want = set(ids)
    out: dict[str, dict] = {}
    path = data_dir / f"{split}.jsonl"
    if not want or not path.is_file():
        return out
    for doc in read_prepared(path):
        if str(doc["id"]) in want:
            out[str(doc["id"])] = doc
            if len(out) == len(want):
                break
    return out


def environment(systems: list[System]) -> dict[str, str]:
    """Versions and hardware the report was built on, and the devices the runs used."""
    import torch

    def version(pkg: str) -> str:
        try:
            return metadata.version(pkg)
        except metadata.PackageNotFoundError:
            return "not installed"

    devices = sorted({(s.config or {}).get("train", {}).get("device", "?") for s in systems if s.kind == "model"})
    cuda = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "not available"
    return {
        "c2fsum": version("c2fsum"),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "torch": torch.__version__,
        "numpy": version("numpy"),
        "scipy": version("scipy"),
        "matplotlib": version("matplotlib"),
        "jinja2": version("jinja2"),
        "rouge-score": version("rouge-score"),
        "CPU cores": str(os.cpu_count()),
        "CUDA": cuda,
        "devices used for training": ", ".join(devices) or "-",
    }


def _duration(seconds) -> str:
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:.1f} s"
    m, s = divmod(int(round(seconds)), 60)
    return f"{m} min {s:02d} s"


def _run_rows(systems: list[System]) -> list[dict]:
    rows = []
    for s in systems:
        if s.kind != "model":
            continue
        f, cfg = s.finished or {}, s.config or {}
        rows.append(
            {
                "model": s.label,
                "family": cfg.get("model", {}).get("family", "-"),
                "steps": f.get("steps"),
                "epochs": f.get("epochs_done"),
                "stop": f.get("stop", "-"),
                "best_val_ppl": f.get("best"),
                "train_time": _duration(f.get("elapsed_s")),
                "eval_time": _duration(s.eval_s),
                "device": cfg.get("train", {}).get("device", "-"),
            }
        )
    return rows


RUN_COLUMNS = (
    MODEL_COLUMN,
    ("Family", "family", "{}"),
    ("Steps", "steps", "{}"),
    ("Epochs done", "epochs", "{}"),
    ("Stopped by", "stop", "{}"),
    ("Best val PPL", "best_val_ppl", "{:.2f}"),
    ("Training time", "train_time", "{}"),
    ("Evaluation time", "eval_time", "{}"),
    ("Device", "device", "{}"),
)


def _ordering(rows: list[dict], key: str, descending: bool, sign: str) -> str:
    """``"A > B = C"``: systems sorted by ``key``; equal at the tables' two decimals joined by ``=``."""
    have = sorted((r for r in rows if isinstance(r.get(key), int | float)), key=lambda r: r[key], reverse=descending)
    parts: list[str] = []
    prev = None
    for r in have:
        shown = f"{r[key]:.2f}"
        if parts:
            parts.append(" = " if shown == prev else f" {sign} ")
        parts.append(r["model"])
        prev = shown
    return "".join(parts)


def orderings(rows: list[dict]) -> dict[str, str]:
    """Systems from best to worst by ROUGE-1/2/L and models from lowest to highest entropy."""
    out = {
        name: _ordering(rows, key, True, ">")
        for key, name in (("rouge1", "ROUGE-1"), ("rouge2", "ROUGE-2"), ("rougeL", "ROUGE-L"))
    }
    out["Entropy (lowest first)"] = _ordering(rows, "entropy", False, "<")
    return out


SIGNIFICANCE_SAMPLES = 1000


def significance_rows(
    systems: list[System], reference: str = "first", *, samples: int = SIGNIFICANCE_SAMPLES, seed: int = 0
) -> list[dict]:
    """Each other system against ``reference`` (paired bootstrap, :mod:`c2fsum.evaluation.significance`):
    one dict per system with ``"model"`` and, per metric, ``"+d [low, high]"`` and the p-value."""
    ref = next((s for s in systems if s.key == reference and s.metrics is not None), None)
    if ref is None:
        return []
    rows = []
    for s in systems:
        if s is ref or s.metrics is None:
            continue
        try:
            r = compare_systems(cast(Path, s.eval_dir), cast(Path, ref.eval_dir), samples=samples, seed=seed)
        except (ValueError, FileNotFoundError) as e:
            rows.append({"model": s.label, "error": str(e).splitlines()[0]})
            continue
        row = {"model": s.label}
        for m in ("rouge1", "rouge2", "rougeL"):
            row[m] = f"{r[m]['diff']:+.2f} [{r[m]['low']:+.2f}, {r[m]['high']:+.2f}]"
            row[m + "_p"] = r[m]["p_value"]
        rows.append(row)
    return rows


SIGNIFICANCE_COLUMNS = (
    ("System", "model", "{}"),
    ("ROUGE-1 diff [95% CI]", "rouge1", "{}"),
    ("p", "rouge1_p", "{:.3f}"),
    ("ROUGE-2 diff [95% CI]", "rouge2", "{}"),
    ("p", "rouge2_p", "{:.3f}"),
    ("ROUGE-L diff [95% CI]", "rougeL", "{}"),
    ("p", "rougeL_p", "{:.3f}"),
)


def _png_data(path: Path | None) -> str | None:
    if path is None or not path.is_file():
        return None
    return base64.b64encode(path.read_bytes()).decode("ascii")


def _example_ids(
    evaluated: list[System], preds: dict[str, dict[str, dict]], doc_ids: list[str] | None, n_examples: int
) -> list[str]:
    """The documents shown side by side: ``doc_ids`` (an :class:`InputError` names the systems
    that did not predict one of them), else the first ``n_examples`` every system predicted."""
    if not doc_ids:
        return choose_documents([p for p in preds.values() if p], n_examples)
    for doc_id in doc_ids:
        missing = [s.label for s in evaluated if doc_id not in preds[s.key]]
        if missing:
            raise InputError(
                f"document {doc_id!r}: not among the predictions of {', '.join(missing)} "
                f"(first test ids: {', '.join(list(next(iter(preds.values()), {}))[:3])})"
            )
    return list(doc_ids)


def _examples(
    evaluated: list[System],
    preds: dict[str, dict[str, dict]],
    ids: list[str],
    *,
    data_dir: Path,
    split: str,
    max_words: int,
) -> list[dict]:
    """Figures 6.2-6.4: for each document of ``ids``, its source (the words the models read), its
    reference summaries and every system's prediction."""
    docs = _documents(data_dir, split, ids)
    examples = []
    for doc_id in ids:
        doc = docs.get(doc_id)
        examples.append(
            {
                "id": doc_id,
                "source": _source_text(doc, max_words or SOURCE_WORDS)
                if doc
                else f"(source not found in {data_dir / (split + '.jsonl')})",
                "gold": [" ".join(r) for r in doc["refs"]] if doc else [],
                "outputs": [(s.label, preds[s.key][doc_id]["candidate"]) for s in evaluated if doc_id in preds[s.key]],
            }
        )
    return examples


def _heatmaps(models: list[System], doc_id: str | None, figures: Path, *, progress: bool) -> list[dict]:
    """Figures 6.5-6.12: each model's coarse attention on ``doc_id``, drawn into ``figures``; per
    model ``label``, ``path`` (None when it could not be drawn) and ``error`` (why not)."""
    heatmaps = []
    for s in tqdm(models, desc="heatmaps", unit="model", disable=not progress):
        entry = {"label": s.label, "path": None, "error": None}
        if doc_id is None:
            entry["error"] = "no document predicted by every system"
        else:
            out = figures / f"attention-{s.key}.png"
            try:
                assert s.eval_dir is not None
                attention_figure(read_attention(s.eval_dir, doc_id), out)
                entry["path"] = out
            except (ValueError, FileNotFoundError, RuntimeError) as e:
                entry["error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
                log.warning("heatmap of %s failed: %s", s.label, entry["error"])
        heatmaps.append(entry)
    return heatmaps


def _curves(systems: list[System], figures: Path) -> tuple[Path | None, str | None]:
    """Figure 6.1: the perplexity curves of every run that logged anything, drawn into
    ``figures/curves.png``; returns its path, or None and the reason it could not be drawn."""
    run_dirs = [s for s in systems if s.kind == "model" and s.run_dir and (s.run_dir / "metrics.jsonl").is_file()]
    if not run_dirs:
        return None, "no run has a metrics.jsonl yet"
    try:
        paths = [cast(Path, s.run_dir) for s in run_dirs]
        return training_curves(paths, figures / "curves.png", labels=[s.label for s in run_dirs]), None
    except (ValueError, FileNotFoundError) as e:
        return None, str(e).splitlines()[0]


def _budget(settings: dict) -> str:
    """The training budget of every preset in words (minutes, epochs or steps)."""
    budget = (
        f"{settings['budget_minutes']:g} minutes of training per preset"
        if settings.get("budget_minutes")
        else f"{settings.get('epochs')} epoch(s) per preset"
        if settings.get("epochs")
        else "max steps only"
    )
    if settings.get("max_steps"):
        budget += f" (at most {settings['max_steps']} steps)"
    return budget


def _table_context(rows: list[dict], whole_rows: list[dict], run_rows: list[dict], sig_rows: list[dict]) -> dict:
    """The report's tables, each as Markdown (``*_md``, empty when it has no rows, except the
    results) and as header and body cells for the HTML: results, entropy, whole articles and
    their entropy, runs, significance."""
    entropy_rows = [r for r in rows if r.get("entropy") is not None]
    whole_entropy = [r for r in whole_rows if r.get("entropy") is not None]
    return {
        "results_md": markdown_table(rows, COLUMNS),
        "results": table_cells(rows, COLUMNS),
        "entropy_md": markdown_table(entropy_rows, ENTROPY_COLUMNS) if entropy_rows else "",
        "entropy": table_cells(entropy_rows, ENTROPY_COLUMNS),
        "whole_md": markdown_table(whole_rows, COLUMNS) if whole_rows else "",
        "whole": table_cells(whole_rows, COLUMNS),
        "whole_entropy_md": markdown_table(whole_entropy, ENTROPY_COLUMNS) if whole_entropy else "",
        "whole_entropy": table_cells(whole_entropy, ENTROPY_COLUMNS),
        "runs_md": markdown_table(run_rows, RUN_COLUMNS) if run_rows else "",
        "runs": table_cells(run_rows, RUN_COLUMNS),
        "significance_md": markdown_table(sig_rows, SIGNIFICANCE_COLUMNS) if sig_rows else "",
        "significance": table_cells(sig_rows, SIGNIFICANCE_COLUMNS),
    }


def _write(exp: Path, context: dict) -> Path:
    """Render ``report.md`` and ``report.html`` into ``exp`` from ``context``; returns the HTML's path."""
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=select_autoescape(enabled_extensions=("html.j2",), default_for_string=False),
    )
    atomic_write_text(exp / "report.md", env.get_template("experiment.md.j2").render(**context))
    html = exp / "report.html"
    atomic_write_text(html, env.get_template("experiment.html.j2").render(**context))
    return html


def build_report(
    exp_dir: str | Path, *, n_examples: int = 3, doc_ids: list[str] | None = None, progress: bool = True
) -> Path:
    """Write ``report.md``, ``report.html`` and ``figures/`` into ``exp_dir``; returns the HTML's path.

    ``doc_ids`` chooses the documents shown side by side (default: the first ``n_examples`` that
    every system predicted); the heatmaps are drawn for the first of them.
    """
    exp = Path(exp_dir)
    settings, systems, failures = collect(exp)
    data_dir, split = Path(settings["data"]), settings.get("split", "test")
    figures = exp / "figures"
    figures.mkdir(exist_ok=True)
    evaluated = [s for s in systems if s.metrics is not None]
    models = [s for s in evaluated if s.kind == "model"]
    rows = [_row(s) for s in evaluated]
    max_words = int(settings.get("max_words") or 0)
    protocol, protocol_problems = input_protocol(settings, systems)
    whole_rows = [{**s.whole_metrics, "model": s.label} for s in models if s.whole_metrics is not None]

    preds = {s.key: _predictions(s) for s in evaluated}
    ids = _example_ids(evaluated, preds, doc_ids, n_examples)
    examples = _examples(evaluated, preds, ids, data_dir=data_dir, split=split, max_words=max_words)
    doc_for_heatmap = ids[0] if ids else None
    heatmaps = _heatmaps(models, doc_for_heatmap, figures, progress=progress)
    curves, curves_error = _curves(systems, figures)

    n_docs = sorted({r["n_docs"] for r in rows if r.get("n_docs") is not None})
    problems = [p for s in systems for p in s.problems if not p.endswith("timing.json: missing")]
    problems += protocol_problems
    context = {
        "title": f"c2fsum experiment: {exp.name}",
        "exp_dir": str(exp),
        "built": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "settings": settings,
        "budget": _budget(settings),
        "split": split,
        "n_docs": ", ".join(map(str, n_docs)) or "-",
        "protocol": protocol,
        "max_words": max_words,
        "paper_max_words": PAPER_MAX_WORDS,
        **_table_context(rows, whole_rows, _run_rows(systems), significance_rows(evaluated)),
        "orderings": orderings(rows),
        "examples": examples,
        "significance_samples": SIGNIFICANCE_SAMPLES,
        "heatmap_doc": doc_for_heatmap,
        "heatmaps": [
            {**h, "rel": h["path"].relative_to(exp).as_posix() if h["path"] else None, "data": _png_data(h["path"])}
            for h in heatmaps
        ],
        "curves_rel": curves.relative_to(exp).as_posix() if curves else None,
        "curves_data": _png_data(curves),
        "curves_error": curves_error,
        "configs": [
            {"label": s.label, "json": json.dumps(s.config, indent=2, sort_keys=True)}
            for s in systems
            if s.kind == "model" and s.config
        ],
        "environment": environment(systems),
        "failures": failures,
        "problems": problems,
        "ilp_budget": next((cast(dict, s.metrics).get("ilp_budget") for s in evaluated if s.key == "ilp"), None),
        "berkeley": next((cast(dict, s.metrics) for s in evaluated if s.key == "berkeley"), None),
    }
    return _write(exp, context)
