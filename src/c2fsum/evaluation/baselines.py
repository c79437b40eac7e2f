"""Extractive baselines evaluated exactly like the models (thesis Table 6.1).

* ``first``: the article's first sentence (the thesis's FIRST);
* ``lead3``: its first three sentences (LEAD-3, the standard baseline of later work);
* ``ilp``: concept-coverage ILP under a word budget (:mod:`c2fsum.evaluation.ilp`), in place of
  the thesis's BERKELEY system (Durrett et al. 2016).
"""

from __future__ import annotations

from pathlib import Path

from c2fsum.data.prepare import read_prepared
from c2fsum.evaluation.ilp import ilp_summary
from c2fsum.evaluation.scoring import first_sentence_baseline, lead_k
from c2fsum.metrics.rouge import rouge_settings, score_corpus
from c2fsum.training.checkpoint import write_json
from c2fsum.utils.io import write_jsonl

BASELINES = ("first", "lead3", "ilp")
DISPLAY = {"first": "FIRST", "lead3": "LEAD-3", "ilp": "ILP"}
ILP_BUDGET = 25
"""Default ILP length budget in words (about a first sentence; the gold highlights average 14)."""


def baseline_summary(name: str, src_sentences: list[list[str]], *, ilp_budget: int = ILP_BUDGET) -> str:
    """The summary of a tokenized article by baseline ``name`` (sentences one per line)."""
    if name == "first":
        return first_sentence_baseline(src_sentences)
    if name == "lead3":
        return lead_k(src_sentences, 3)
    if name == "ilp":
        return ilp_summary(src_sentences, ilp_budget)
    raise ValueError(f"unknown baseline {name!r}, expected one of {', '.join(BASELINES)}")


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
) -> dict:
    """Write ``predictions.jsonl`` and ``metrics.json`` of a baseline on a prepared split.

    ROUGE scores exactly the strings written to ``predictions.jsonl``; ``rouge_clean``: see
    :func:`c2fsum.metrics.rouge.score_corpus`.
    """
    settings = rouge_settings(official=official, clean=rouge_clean)
    if name not in BASELINES:
        raise ValueError(f"unknown baseline {name!r}, expected one of {', '.join(BASELINES)}")
    path = Path(data_dir) / f"{split}.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such split (run `c2fsum prepare` first)")
    rows = []
    for doc in read_prepared(path):
        rows.append(
            {
                "id": doc["id"],
                "candidate": baseline_summary(name, doc["src"], ilp_budget=ilp_budget),
                "references": [" ".join(r) for r in doc["refs"]],
            }
        )
        if limit and len(rows) >= limit:
            break
    scores = score_corpus(
        [r["candidate"] for r in rows], [r["references"] for r in rows], official=official, clean=rouge_clean
    )
    metrics = {
        "ppl": None,
        **{k: v for k, v in scores.items() if k != "per_doc"},
        **settings,
        "model": DISPLAY[name],
        "split": split,
        "n_docs": len(rows),
    }
    if name == "ilp":
        metrics["ilp_budget"] = ilp_budget
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "predictions.jsonl", rows)
    write_json(out / "metrics.json", metrics)
    return metrics
