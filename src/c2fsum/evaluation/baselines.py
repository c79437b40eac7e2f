"""Extractive baselines evaluated exactly like the models (thesis Table 6.1, FIRST)."""

from __future__ import annotations

from pathlib import Path

from c2fsum.data.prepare import read_prepared
from c2fsum.evaluation.scoring import first_sentence_baseline
from c2fsum.metrics.rouge import score_corpus
from c2fsum.training.checkpoint import write_json
from c2fsum.utils.io import write_jsonl

BASELINES = ("first",)


def run_baseline(name: str, data_dir: str | Path, split: str, out_dir: str | Path, *, limit: int = 0,
                 official: bool = False) -> dict:
    """Write ``predictions.jsonl`` and ``metrics.json`` of a baseline on a prepared split."""
    if name not in BASELINES:
        raise ValueError(f"unknown baseline {name!r}, expected one of {', '.join(BASELINES)}")
    path = Path(data_dir) / f"{split}.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such split (run `c2fsum prepare` first)")
    rows = []
    for doc in read_prepared(path):
        rows.append({"id": doc["id"], "candidate": first_sentence_baseline(doc["src"]),
                     "references": [" ".join(r) for r in doc["refs"]]})
        if limit and len(rows) >= limit:
            break
    scores = score_corpus([r["candidate"] for r in rows], [r["references"] for r in rows], official=official)
    metrics = {"ppl": None, **{k: v for k, v in scores.items() if k != "per_doc"}, "model": name.upper(),
               "split": split, "n_docs": len(rows)}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "predictions.jsonl", rows)
    write_json(out / "metrics.json", metrics)
    return metrics
