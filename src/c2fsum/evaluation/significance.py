"""Paired bootstrap confidence intervals for the ROUGE difference of two systems.

Koehn (2004), "Statistical Significance Tests for Machine Translation Evaluation": resample the
test documents with replacement ``samples`` times; each time, the difference of the two systems'
mean scores over the same resampled documents. The percentile interval of those differences is
the confidence interval; the share of resamples where the sign flips gives a p-value.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from c2fsum.errors import InputError
from c2fsum.evaluation.scoring import read_jsonl_with_errors, rouge_files

__all__ = ["compare_systems", "paired_bootstrap", "predictions_path"]

COMPARED = ("rouge1", "rouge2", "rougeL")
ROUGE_METRICS = (*COMPARED, *(f"{m}_concat" for m in COMPARED))


def _recorded(path: Path, fields: list[str]) -> dict[str, dict[str, float]]:
    """``{id: {field: value}}`` from a predictions file; a ValueError names the line without a field."""
    read = read_jsonl_with_errors(path)
    if read.errors:
        raise InputError(read.errors[0])
    out: dict[str, dict[str, float]] = {}
    for lineno, row in read.rows:
        missing = [k for k in fields if not isinstance(row.get(k), int | float)]
        if missing:
            raise InputError(
                f"{path}:{lineno}: no number {', '.join(missing)} (recorded by `c2fsum evaluate` "
                "for models; entropy only for models with attention over chunks)"
            )
        out[str(row["id"])] = {k: float(row[k]) for k in fields}
    return out


def _resampled_means(x: np.ndarray, samples: int, seed: int) -> np.ndarray:
    """``(S,)`` means of ``samples`` resamples (with replacement, seeded) of the documents ``x`` ``(D,)``."""
    rng = np.random.default_rng(seed)
    return x[rng.integers(0, len(x), size=(samples, len(x)))].mean(axis=1)


def _interval(means: np.ndarray, confidence: float) -> tuple[float, float]:
    """The percentile interval of resampled ``means`` with the given coverage."""
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return float(low), float(high)


def bootstrap_mean(
    values: Sequence[float], *, samples: int = 1000, seed: int = 0, confidence: float = 0.95
) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean of one system's per-document ``values`` ``(D,)`` and its
    percentile bootstrap interval (the documents resampled as in :func:`paired_bootstrap`)."""
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise InputError(f"bootstrap_mean: expected a non-empty list of scores, got shape {x.shape}")
    low, high = _interval(_resampled_means(x, samples, seed), confidence)
    return float(x.mean()), low, high


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], *, samples: int = 1000, seed: int = 0, confidence: float = 0.95
) -> dict:
    """Bootstrap the mean of ``a - b`` over paired per-document scores.

    Args:
        a, b: ``(D,)`` scores of two systems on the same D documents, in the same order.
        samples: bootstrap resamples.
        seed: seed of the resampling (same seed, same answer).
        confidence: the interval's coverage, e.g. 0.95.

    Returns:
        ``mean_a``, ``mean_b``, ``diff`` (mean of a - b), ``low``, ``high`` (percentile interval
        of the resampled differences), ``p_value`` (two-sided: twice the smaller share of
        resamples with a difference <= 0 or >= 0, at most 1), ``samples``, ``seed``, ``n_docs``.
    """
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise InputError(f"paired scores: expected two 1-D sequences of the same length, got {x.shape} and {y.shape}")
    if len(x) == 0:
        raise InputError("paired scores: no documents")
    if samples < 1:
        raise InputError(f"samples: expected at least 1, got {samples}")
    if not 0.0 < confidence < 1.0:
        raise InputError(f"confidence: expected a value in (0, 1), got {confidence}")
    d = x - y  # (D,)
    diffs = _resampled_means(d, samples, seed)  # (S,)
    low, high = _interval(diffs, confidence)
    p = min(1.0, 2.0 * min(float((diffs <= 0).mean()), float((diffs >= 0).mean())))
    return {
        "mean_a": float(x.mean()),
        "mean_b": float(y.mean()),
        "diff": float(d.mean()),
        "low": float(low),
        "high": float(high),
        "p_value": p,
        "samples": samples,
        "seed": seed,
        "confidence": confidence,
        "n_docs": len(d),
    }


def predictions_path(system: str | Path) -> Path:
    """``system`` itself if a file, else ``system/predictions.jsonl`` (an evaluation directory)."""
    p = Path(system)
    path = p / "predictions.jsonl" if p.is_dir() else p
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such predictions file (expected an `evaluate`/`baseline` output)")
    return path


def compare_systems(
    system_a: str | Path,
    system_b: str | Path,
    *,
    samples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    metrics: Sequence[str] = COMPARED,
    rouge_clean: str = "none",
) -> dict:
    """Paired bootstrap of ROUGE (x100) between two prediction files on the same documents.

    Each file holds ``{"id", "candidate", "references"}`` lines (``evaluate`` and ``baseline``
    write them). ``metrics`` other than ROUGE's (e.g. ``entropy``, ``fine_fraction``) name a number
    ``evaluate`` recorded with each prediction; they are compared as recorded (then no ROUGE).
    Both must cover the same document ids; otherwise a ValueError names the first
    id missing from one side. ``rouge_clean``: see :func:`c2fsum.metrics.rouge.score_corpus`.
    """
    pa, pb = predictions_path(system_a), predictions_path(system_b)
    fields = [m for m in metrics if m not in ROUGE_METRICS]
    if fields:  # per-document numbers recorded by `evaluate` (entropy, fine_fraction): compared as they are
        ra, rb = _recorded(pa, fields), _recorded(pb, fields)
        n_skipped = 0
    else:
        sa, sb = rouge_files(pa, pa, clean=rouge_clean), rouge_files(pb, pb, clean=rouge_clean)
        ra = {d["id"]: {m: 100.0 * d[m] for m in metrics} for d in sa["per_doc"]}
        rb = {d["id"]: {m: 100.0 * d[m] for m in metrics} for d in sb["per_doc"]}
        n_skipped = sa["n_skipped"] + sb["n_skipped"]
    for x, y, px, py in ((ra, rb, pa, pb), (rb, ra, pb, pa)):
        missing = [i for i in x if i not in y]
        if missing:
            raise InputError(
                f"{py}: {len(missing)} document ids of {px} are missing (first: {missing[0]!r}); "
                "compare systems evaluated on the same documents"
            )
    ids = list(ra)
    out = {
        "a": str(pa),
        "b": str(pb),
        "n_docs": len(ids),
        "n_skipped": n_skipped,
        "rouge_clean": rouge_clean,
    }
    for m in metrics:
        r = paired_bootstrap(
            [ra[i][m] for i in ids],
            [rb[i][m] for i in ids],
            samples=samples,
            seed=seed,
            confidence=confidence,
        )
        out[m] = r
    return out


def format_comparison(result: dict, name_a: str = "A", name_b: str = "B") -> str:
    """A text table: one row per metric with both means, the difference, its interval and p."""
    conf = next(v["confidence"] for k, v in result.items() if isinstance(v, dict))
    head = ["metric", name_a, name_b, f"{name_a} - {name_b}", f"{conf:.0%} CI", "p"]
    rows = [
        [
            m,
            f"{r['mean_a']:.2f}",
            f"{r['mean_b']:.2f}",
            f"{r['diff']:+.2f}",
            f"[{r['low']:+.2f}, {r['high']:+.2f}]",
            f"{r['p_value']:.3f}",
        ]
        for m, r in result.items()
        if isinstance(r, dict)
    ]
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=True)]
    lines = [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        for r in (head, *rows)
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
