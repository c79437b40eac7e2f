"""Learning BERKELEY's unit weights: a documented surrogate of Durrett et al.'s structured learning.

Durrett et al. (2016) train the unit scores with a structured max-margin objective whose loss is
the ROUGE of the ILP's own summary (loss-augmented decoding through the ILP). Here, more simply:

1. Each unit's *target* is the ROUGE recall it brings against the reference (all highlights, or
   the whole abstract): ``50 * (m1 / R1 + m2 / R2)``, where ``m1`` / ``m2`` are its unigrams /
   bigrams (the scorer's tokens: lower-cased, Porter-stemmed, punctuation dropped; bigrams within
   the unit's own tokens) found in the reference, clipped to their reference counts, and ``R1`` /
   ``R2`` the reference's unigram / bigram totals.
2. Ridge regression of the target *per token* (target / tokens) on the unit features
   (:data:`~.model.FEATURES`), each unit weighted by its token count, closed form with numpy:
   ``w = (X^T D X + lambda I)^-1 X^T D y`` (the bias not penalized). A unit's ILP score is then
   its token count times its predicted recall per token.
3. ``lambda`` (and, when asked, the word budget) chosen by the ROUGE of the ILP's summaries on
   validation documents, never test: the first ``val_docs`` documents of the validation split.

The weights are saved as JSON (feature name -> weight, with how they were made); the CNN/DM and
PubMed ones ship as ``cnndm-weights.json`` (:data:`SHIPPED`, the default) and
``pubmed-weights.json`` beside this module, each with the command that made it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from c2fsum.baselines.berkeley.model import FEATURES, Document, analyze, berkeley_summary, features
from c2fsum.errors import InputError
from c2fsum.metrics.rouge import Rouge155Tokenizer, ngram_counts, score_corpus

SHIPPED = Path(__file__).with_name("cnndm-weights.json")
SHIPPED_NAMES = ("cnndm", "pubmed")
"""Weights shipped beside this module as ``NAME-weights.json`` (the CNN/DM ones are the default)."""
LAMBDAS = (0.1, 1.0, 10.0, 100.0, 1000.0)


def unit_targets(doc: Document, reference: str, tok: Rouge155Tokenizer | None = None) -> np.ndarray:
    """``(U,)`` each unit's ROUGE-1/2 recall contribution against ``reference`` (module docstring)."""
    tok = tok or Rouge155Tokenizer()
    ref = tok.tokenize(reference)
    r1, r2 = ngram_counts(ref, 1), ngram_counts(ref, 2)
    R1, R2 = max(sum(r1.values()), 1), max(sum(r2.values()), 1)
    out = np.zeros(len(doc.units))
    for u, unit in enumerate(doc.units):
        words = doc.sentences[unit.sent].tagged.words
        toks = tok.tokenize(" ".join(words[t] for t in unit.tokens))
        m1 = sum(min(c, r1[g]) for g, c in ngram_counts(toks, 1).items() if g in r1)
        m2 = sum(min(c, r2[g]) for g, c in ngram_counts(toks, 2).items() if g in r2)
        out[u] = 50.0 * (m1 / R1 + m2 / R2)
    return out


def training_rows(docs: Iterable[dict]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features ``(N, F)``, per-token targets ``(N,)`` and token counts ``(N,)`` of every unit of
    ``docs`` (prepared documents: ``src`` sentences, ``refs`` highlights)."""
    tok = Rouge155Tokenizer()
    Xs, ys, ns = [], [], []
    for d in docs:
        doc = analyze(d["src"])
        if not doc.units:
            continue
        n = np.array([u.length for u in doc.units], dtype=np.float64)
        keep = n > 0
        y = unit_targets(doc, "\n".join(" ".join(r) for r in d["refs"]), tok)
        Xs.append(features(doc)[keep])
        ys.append(y[keep] / n[keep])
        ns.append(n[keep])
    return np.vstack(Xs), np.concatenate(ys), np.concatenate(ns)


def fit_ridge(X: np.ndarray, y: np.ndarray, n: np.ndarray, lam: float) -> np.ndarray:
    """Token-weighted ridge regression, bias (column 0) unpenalized: ``(F,)`` weights."""
    XtD = X.T * n
    reg = lam * np.eye(X.shape[1])
    reg[0, 0] = 0.0
    return np.linalg.solve(XtD @ X + reg, XtD @ y)


def validate(docs: Sequence[dict], weights: np.ndarray, budget: int) -> dict:
    """ROUGE of the ILP's summaries of ``docs`` (both protocols, Python path)."""
    cands = [berkeley_summary(d["src"], budget, weights) for d in docs]
    refs = [[" ".join(r) for r in d["refs"]] for d in docs]
    scores = score_corpus(cands, refs)
    return {k: v for k, v in scores.items() if k != "per_doc"}


def fit(
    train_docs: Sequence[dict],
    val_docs: Sequence[dict],
    budgets: Sequence[int],
    *,
    metric: str = "rouge1",
    lambdas: Sequence[float] = LAMBDAS,
    log=print,
) -> dict:
    """Fit on ``train_docs``, choose ``lambda`` and the budget on ``val_docs`` by ``metric``.

    Returns the weights record (:func:`save_weights`' format).
    """
    t0 = time.time()
    X, y, n = training_rows(train_docs)
    log(f"berkeley: {len(train_docs)} training documents, {len(y)} units, features in {time.time() - t0:.0f} s")
    best: tuple[float, float, int, np.ndarray, dict] | None = None
    grid = []
    for lam in lambdas:
        w = fit_ridge(X, y, n, lam)
        for b in budgets:
            s = validate(val_docs, w, b)
            grid.append({"lambda": lam, "budget": b, **{k: round(float(s[k]), 2) for k in (metric,)}})
            log(f"berkeley: lambda {lam:g}, budget {b}: validation {metric} {s[metric]:.2f}")
            if best is None or s[metric] > best[0] + 1e-9:
                best = (s[metric], lam, b, w, s)
    assert best is not None
    _, lam, b, w, s = best
    return {
        "features": dict(zip(FEATURES, [float(v) for v in w], strict=True)),
        "lambda": lam,
        "budget": b,
        "metric": metric,
        "validation": {k: round(float(v), 4) for k, v in s.items() if isinstance(v, float)},
        "grid": grid,
        "n_train_docs": len(train_docs),
        "n_train_units": int(len(y)),
        "n_val_docs": len(val_docs),
    }


def save_weights(path: str | Path, record: dict) -> None:
    """Write a weights record as JSON."""
    Path(path).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


def load_weights(path: str | Path | None = None) -> tuple[np.ndarray, dict]:
    """``(F,)`` weights in :data:`FEATURES` order and the record, from ``path``: a file or a shipped
    name of :data:`SHIPPED_NAMES` (default: :data:`SHIPPED`). A feature missing from the file is an error naming it."""
    p = Path(path) if path is not None else SHIPPED
    if str(path) in SHIPPED_NAMES:
        p = SHIPPED.with_name(f"{path}-weights.json")
    try:
        record = json.loads(p.read_text())
        table = record["features"]
    except (OSError, ValueError, KeyError) as e:
        raise InputError(f"{p}: not a BERKELEY weights file ({e})") from e
    missing = [f for f in FEATURES if f not in table]
    if missing:
        raise InputError(f"{p}: field 'features' lacks {', '.join(missing[:5])}")
    return np.array([float(table[f]) for f in FEATURES]), record
