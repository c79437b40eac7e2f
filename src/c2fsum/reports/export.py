"""Export a trained model for shipping: weights only, optionally float16, with a model card.

``c2fsum export --model RUN_DIR --name NAME --out DIR [--dtype float16] [--eval EVAL_DIR]
[--data DATA_DIR] [--notes FILE]`` writes a checkpoint folder that :func:`load_checkpoint` reads
like any other (manifest with SHA-256 of every file, safetensors, JSON; never a pickle)::

    model.safetensors   the weights of the chosen checkpoint (``best``), no optimizer or RNG state
    config.json         the resolved Config
    vocab.txt           the vocabulary
    lengths.json        the training targets' lengths and the default minimum summary length
    export.json         where it came from, the dtype the weights are stored in, their rounding error
    README.md           the model card: data, recipe, training time, test scores with bootstrap
                        confidence intervals, failure modes measured on the test predictions
    manifest.json       size and SHA-256 of every other file

Float16 weights halve the size and load back as float32 (the model computes in float32); the
largest rounding error of any weight is recorded in ``export.json`` and on the card.
"""

from __future__ import annotations

import json
import logging
import math
from importlib import metadata
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from c2fsum.config import MAX_EXPORT_MB, resolve
from c2fsum.errors import CheckpointError, InputError
from c2fsum.evaluation.significance import bootstrap_mean
from c2fsum.models.checkpoint import (
    REWRITER_DIR,
    STORED_DTYPES,
    Loaded,
    load_checkpoint,
    read_json,
    resolve_rewriter,
    write_manifest,
    write_model_files,
)
from c2fsum.utils.io import atomic_directory

log = logging.getLogger(__name__)

EXPORT_FORMAT = "c2fsum-export"
MAX_MB = MAX_EXPORT_MB
"""Default bound on an exported folder's size, in MB (10^6 bytes): what a shipped model may weigh."""
TEMPLATES = Path(__file__).resolve().parent / "templates"
CI_METRICS = ("rouge1", "rouge2", "rougeL", "rouge1_concat", "rouge2_concat", "rougeL_concat")


def _c2fsum_version() -> str:
    try:
        return metadata.version("c2fsum")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def _run_dir(ckpt: Path) -> Path | None:
    """The run directory a ``best``/``last`` checkpoint belongs to (None for a lone checkpoint)."""
    parent = ckpt.parent
    return parent if (parent / "metrics.jsonl").is_file() or (parent / "config.json").is_file() else None


def _read_jsonl(path: Path) -> list[dict]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by a crash; the trainer's log is append-only
        if isinstance(row, dict):
            rows.append(row)
    return rows


def training_facts(ckpt: Path, best_metric: str = "ppl") -> dict[str, Any]:
    """Steps, epochs, tokens, time and validation perplexity of the run behind checkpoint ``ckpt``
    (``best_metric``: what the run's schedule kept as its best score, ``train.best_metric``)."""
    state = read_json(ckpt / "trainer.json") if (ckpt / "trainer.json").exists() else {}
    pos = state.get("position", {})
    sched = state.get("schedule", {})
    # without the run's metrics.jsonl (a lone checkpoint) the best score is the schedule's
    best = sched.get("best") if best_metric == "ppl" else None
    facts: dict[str, Any] = {"val_ppl_best": best, "val_ppl_best_step": sched.get("best_step"), "val_ppl_last": None}
    facts["checkpoint_step"] = pos.get("step")
    run = _run_dir(ckpt)
    last = run / "last" / "trainer.json" if run else None
    total = read_json(last).get("position", {}) if last and last.exists() else pos
    facts.update(
        steps=total.get("step"),
        epochs=total.get("epoch"),
        tokens=total.get("tokens"),
        minutes=round(total["elapsed"] / 60.0, 1) if isinstance(total.get("elapsed"), int | float) else None,
        skipped_steps=total.get("skipped"),
    )
    if run and (run / "metrics.jsonl").is_file():
        val = [r for r in _read_jsonl(run / "metrics.jsonl") if r.get("split") == "val" and "ppl" in r]
        if val:
            best = min(val, key=lambda r: r["ppl"])
            facts.update(val_ppl_best=best["ppl"], val_ppl_best_step=best.get("step"), val_ppl_last=val[-1]["ppl"])
    return facts


def test_scores(eval_dir: Path, *, samples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Metrics of an ``evaluate`` output folder with bootstrap 95% intervals of ROUGE (x100) and
    failure statistics of its predictions (empty summaries, ``<unk>`` share, lengths, worst documents)."""
    from c2fsum.evaluation.scoring import rouge_files

    metrics_path, pred_path = eval_dir / "metrics.json", eval_dir / "predictions.jsonl"
    for p in (metrics_path, pred_path):
        if not p.is_file():
            raise FileNotFoundError(f"{p}: missing (--eval expects the folder `c2fsum evaluate --out` wrote)")
    metrics = read_json(metrics_path)
    scored = rouge_files(pred_path, pred_path)
    per_doc = scored["per_doc"]
    ci = {}
    for m in CI_METRICS:
        mean, low, high = bootstrap_mean([100.0 * d[m] for d in per_doc], samples=samples, seed=seed)
        ci[m] = {"mean": mean, "low": low, "high": high}
    preds = _read_jsonl(pred_path)
    words = [c.split() for c in (p.get("candidate", "") for p in preds) if isinstance(c, str)]
    n_words = sum(len(w) for w in words)
    ref_lens = [
        min(len(r.split()) for r in p["references"])
        for p in preds
        if isinstance(p.get("references"), list) and p["references"]
    ]
    worst = sorted(per_doc, key=lambda d: d["rougeL"])[:3]
    failures = {
        "empty": sum(1 for w in words if not w),
        "unk_share": 100.0 * sum(w.count("<unk>") for w in words) / max(n_words, 1),
        "docs_with_unk": sum(1 for w in words if "<unk>" in w),
        "mean_len": n_words / max(len(words), 1),
        "mean_ref_len": sum(ref_lens) / max(len(ref_lens), 1),
        "worst": [{"id": d["id"], "rougeL": 100.0 * d["rougeL"]} for d in worst],
        "zero_rouge1": sum(1 for d in per_doc if d["rouge1"] == 0.0),
    }
    return {"metrics": metrics, "ci": ci, "samples": samples, "seed": seed, "failures": failures}


def _load_for_export(model: str | Path, which: str, decode: list[str] | None) -> tuple[Loaded, Loaded | None]:
    """The checkpoint to export, its config with the ``decode`` overrides, and, for a
    select-rewrite model, its rewriter's checkpoint (None otherwise); the model's config then
    names the rewriter folder it ships inside (``REWRITER_DIR``)."""
    loaded = load_checkpoint(model, which=which)
    if decode:
        loaded.config = resolve(loaded.config.to_dict(), [f"decode.{item}" for item in decode], "--decode")
    rewriter = None
    if loaded.config.model.rewriter:  # select-rewrite: its rewriter ships inside it, in REWRITER_DIR
        rewriter = load_checkpoint(resolve_rewriter(loaded.path, loaded.config.model.rewriter))
        loaded.config = resolve(loaded.config.to_dict(), [f"model.rewriter={REWRITER_DIR}"], "export")
    return loaded, rewriter


def _data_stats(data_dir: str | Path | None) -> str | None:
    """The statistics table of a ``c2fsum prepare`` output folder (None without ``data_dir``)."""
    if not data_dir:
        return None
    from c2fsum.data.prepare import format_stats_table

    stats_path = Path(data_dir) / "stats.json"
    if not stats_path.is_file():
        raise FileNotFoundError(f"{stats_path}: missing (--data expects a `c2fsum prepare` output folder)")
    return format_stats_table(read_json(stats_path))


def _write_loaded(folder: Path, loaded: Loaded, dtype: str) -> float:
    """A loaded model's weights (stored as ``dtype``), config, vocabulary and lengths in ``folder``;
    the largest rounding error of the weights."""
    return write_model_files(
        folder,
        model=loaded.model,
        config=loaded.config,
        vocab=loaded.vocab,
        lengths=loaded.lengths,
        dtype=STORED_DTYPES[dtype],
    )


def _write_rewriter(folder: Path, rewriter: Loaded, meta: dict[str, Any], *, name: str, dtype: str) -> int:
    """Write a select-rewrite model's rewriter into ``folder`` (``REWRITER_DIR`` of the export,
    with its own ``export.json`` and manifest); returns the bytes of its weights."""
    folder.mkdir()
    _write_loaded(folder, rewriter, dtype)
    sub_meta = {**meta, "name": f"{name}/{REWRITER_DIR}", "source": str(rewriter.path)}
    sub_meta["parameters"] = sum(v.numel() for v in rewriter.model.state_dict().values())
    sub_meta["source_step"] = training_facts(rewriter.path, rewriter.config.train.best_metric).get("checkpoint_step")
    (folder / "export.json").write_text(json.dumps(sub_meta, indent=2) + "\n", encoding="utf-8")
    write_manifest(folder)
    return (folder / "model.safetensors").stat().st_size


def _readable_by_all(folder: Path) -> None:
    """Make ``folder`` and everything in it readable by every user (package data, once installed)."""
    for f in folder.rglob("*"):
        f.chmod(0o755 if f.is_dir() else 0o644)
    folder.chmod(0o755)


def _checked_size(folder: Path, out: Path, *, max_mb: float, weight_bytes: int, dtype: str) -> int:
    """The bytes of every file in ``folder``; :class:`CheckpointError` when more than ``max_mb`` MB."""
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    if size > max_mb * 1e6:
        raise CheckpointError(
            f"{out}: the export would be {size / 1e6:.2f} MB, more than {max_mb:g} MB "
            f"(weights {weight_bytes / 1e6:.2f} MB as {dtype}; try --dtype float16 or a smaller model); "
            "nothing written"
        )
    return size


def export_model(
    model: str | Path,
    out: str | Path,
    *,
    name: str | None = None,
    dtype: str = "float32",
    eval_dir: str | Path | None = None,
    data_dir: str | Path | None = None,
    notes: str | Path | None = None,
    which: str = "best",
    max_mb: float = MAX_MB,
    command: str | None = None,
    decode: list[str] | None = None,
) -> dict[str, Any]:
    """Write the ``which`` checkpoint of ``model`` (any model name) to ``out`` for shipping.

    ``decode``: ``key=value`` overrides of the shipped config's ``decode`` section (the defaults
    users get, e.g. ``read_chunks=3``); ConfigError for a key that section does not have.

    Returns ``export.json``'s content plus ``bytes`` (the folder's size). Raises
    :class:`CheckpointError` when the folder would be larger than ``max_mb`` MB (nothing is
    written then) or a weight does not fit ``dtype``; FileNotFoundError for a missing ``--eval``
    or ``--data`` file.
    """
    if dtype not in STORED_DTYPES:
        raise InputError(f"--dtype {dtype}: expected one of {', '.join(STORED_DTYPES)}")
    loaded, rewriter = _load_for_export(model, which, decode)
    out = Path(out)
    name = name or out.name
    n_params = sum(v.numel() for v in loaded.model.state_dict().values())
    train = training_facts(loaded.path, loaded.config.train.best_metric)
    scores = test_scores(Path(eval_dir)) if eval_dir else None
    stats = _data_stats(data_dir)
    author_notes = Path(notes).read_text(encoding="utf-8").strip() if notes else ""
    meta = {
        "format": EXPORT_FORMAT,
        "name": name,
        "weights_dtype": dtype,
        "max_abs_rounding_error": 0.0,  # known once the weights are written
        "parameters": n_params,
        "source": str(loaded.path),
        "source_step": train.get("checkpoint_step"),
        "c2fsum_version": _c2fsum_version(),
    }
    with atomic_directory(out) as tmp:
        # the weights (in dtype), config, vocabulary and the lengths that give the default min_len
        meta["max_abs_rounding_error"] = _write_loaded(tmp, loaded, dtype)
        (tmp / "export.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        weight_bytes = (tmp / "model.safetensors").stat().st_size
        if rewriter is not None:
            weight_bytes += _write_rewriter(tmp / REWRITER_DIR, rewriter, meta, name=name, dtype=dtype)
            meta["parameters"] += sum(v.numel() for v in rewriter.model.state_dict().values())
        card = model_card(
            name=name,
            config=loaded.config,
            vocab_size=len(loaded.vocab),
            meta=meta,
            weight_bytes=weight_bytes,
            train=train,
            scores=scores,
            stats=stats,
            notes=author_notes,
            command=command,
        )
        (tmp / "README.md").write_text(card, encoding="utf-8")
        write_manifest(tmp)
        _readable_by_all(tmp)
        size = _checked_size(tmp, out, max_mb=max_mb, weight_bytes=weight_bytes, dtype=dtype)
    load_checkpoint(out.resolve())  # the folder reads back through the verified path
    return {**meta, "bytes": size}


def _fmt(x: Any, digits: int = 2) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, float):
        return f"{x:,.{digits}f}" if math.isfinite(x) else str(x)
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)


def model_card(
    *,
    name: str,
    config,
    vocab_size: int,
    meta: dict,
    weight_bytes: int,
    train: dict,
    scores: dict | None,
    stats: str | None,
    notes: str,
    command: str | None,
) -> str:
    """The model card (Markdown) from the facts the export has (see ``templates/model_card.md.j2``)."""
    from c2fsum.pretrained.registry import SHIPPED

    shipped = SHIPPED.get(name)
    env = Environment(loader=FileSystemLoader(TEMPLATES), undefined=StrictUndefined, keep_trailing_newline=True)
    env.filters["fmt"] = _fmt
    return env.get_template("model_card.md.j2").render(
        name=name,
        description=shipped.description if shipped else "",
        command=command,  # what made these weights, only when the exporter says so (--made-by)
        recipe=shipped.command if shipped else None,  # what makes a model like it from nothing
        cfg=config,
        vocab_size=vocab_size,
        meta=meta,
        weight_mb=weight_bytes / 1e6,
        train=train,
        scores=scores,
        stats=stats,
        notes=notes,
    )
