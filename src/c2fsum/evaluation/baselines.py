"""Extractive baselines evaluated exactly like the models (thesis Table 6.1); the summarizers
themselves live in :mod:`c2fsum.baselines` (FIRST, LEAD-3, LEAD, ILP, ORACLE, BERKELEY).

Every baseline's ``metrics.json`` records ``avg_words``, the mean summary length in
whitespace tokens, and what a reader meets (:mod:`c2fsum.evaluation.reader`, as ``evaluate``);
BERKELEY's also its ``compression`` rate (the share of the chosen sentences'
tokens deleted), ``pronouns_rewritten`` (per summary) and ``dangling_pronouns`` (in all: kept
pronouns whose antecedent is neither kept nor written in; 0 unless ``--no-anaphora``).
BERKELEY's budget defaults to the one chosen on validation with its weights.
"""

from __future__ import annotations

from pathlib import Path

from c2fsum.baselines.extractive import BASELINES, BUDGETED, DISPLAY, ILP_BUDGET, baseline_summary
from c2fsum.data.prepare import read_split
from c2fsum.errors import InputError
from c2fsum.evaluation.reader import reader_measures
from c2fsum.metrics.rouge import rouge_settings, score_corpus
from c2fsum.utils.io import write_json, write_jsonl

__all__ = ["BASELINES", "BUDGETED", "DISPLAY", "ILP_BUDGET", "run_baseline"]


def _ablation_label(name: str, compress: bool, anaphora: bool) -> str:
    if name != "berkeley" or (compress and anaphora):
        return ""
    return " (" + ", ".join(x for x, on in (("no compression", compress), ("no anaphora", anaphora)) if not on) + ")"


def run_baseline(
    name: str,
    data_dir: str | Path,
    split: str,
    out_dir: str | Path,
    *,
    limit: int = 0,
    official: bool = False,
    ilp_budget: int = ILP_BUDGET,
    rouge_clean: str = "none",
    berkeley_weights: str | Path | None = None,
    berkeley_compress: bool = True,
    berkeley_anaphora: bool = True,
) -> dict:
    """Write ``predictions.jsonl`` and ``metrics.json`` of a baseline on a prepared split.

    ROUGE scores exactly the strings written to ``predictions.jsonl``; ``rouge_clean``: see
    :func:`c2fsum.metrics.rouge.score_corpus`. ``berkeley_weights``: BERKELEY's weights file
    (default: the shipped CNN/DM weights); ``berkeley_compress`` / ``berkeley_anaphora``: its
    ablations (:func:`c2fsum.baselines.berkeley.solve`).
    """
    settings = rouge_settings(official=official, clean=rouge_clean)
    if name not in BASELINES:
        raise InputError(f"unknown baseline {name!r}, expected one of {', '.join(BASELINES)}")
    extra: dict = {}
    if name == "berkeley":
        from c2fsum.baselines.berkeley import load_weights
        from c2fsum.baselines.berkeley.model import summarize

        weights, record = load_weights(berkeley_weights)
        stats = {"sentence_tokens": 0, "deleted_tokens": 0, "rewritten": 0, "dangling": 0, "fallback": 0}
        extra["weights"] = str(berkeley_weights) if berkeley_weights else "shipped (cnndm-weights.json)"
        extra["weights_made_by"] = record.get("command", "")
    rows = []
    for doc in read_split(data_dir, split, limit=limit):
        references = [" ".join(r) for r in doc["refs"]]  # the reference's sentences
        if name == "berkeley":
            candidate, st = summarize(
                doc["src"], ilp_budget, weights, compress=berkeley_compress, anaphora=berkeley_anaphora
            )
            for k in stats:
                stats[k] += int(st[k])
        else:
            candidate = baseline_summary(name, doc["src"], ilp_budget=ilp_budget, reference="\n".join(references))
        rows.append({"id": doc["id"], "candidate": candidate, "references": references})
    if name == "berkeley" and rows:
        extra["compression"] = stats["deleted_tokens"] / max(stats["sentence_tokens"], 1)
        extra["pronouns_rewritten"] = stats["rewritten"] / len(rows)
        extra["dangling_pronouns"] = stats["dangling"]
        extra["fallbacks"] = stats["fallback"]
        extra["compress"], extra["anaphora"] = berkeley_compress, berkeley_anaphora
    scores = score_corpus(
        [r["candidate"] for r in rows], [r["references"] for r in rows], official=official, clean=rouge_clean
    )
    reader, per_summary = reader_measures(rows, data_dir, split)
    for row, counts in zip(rows, per_summary, strict=True):
        row.update(counts)
    metrics = {
        "ppl": None,
        **{k: v for k, v in scores.items() if k != "per_doc"},
        **settings,
        "model": DISPLAY[name] + _ablation_label(name, berkeley_compress, berkeley_anaphora),
        "split": split,
        "n_docs": len(rows),
        "avg_words": sum(len(r["candidate"].split()) for r in rows) / max(len(rows), 1),
        **reader,
        **extra,
    }
    if name in BUDGETED:
        metrics["budget"] = ilp_budget
    if name == "ilp":
        metrics["ilp_budget"] = ilp_budget
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "predictions.jsonl", rows)
    write_json(out / "metrics.json", metrics)
    return metrics
