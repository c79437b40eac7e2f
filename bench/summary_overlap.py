"""How often two sentences of one summary say the same (issue 47's target: none sharing more than
60% of their words): for each ``predictions.jsonl`` (``c2fsum evaluate --out``), the pairs of
summary sentences whose shared words are more than a share of the shorter sentence's.

    python bench/summary_overlap.py EVAL_DIR [EVAL_DIR ...] [--share 0.6]

Words: the sentence's tokens holding a letter, lowercased (``all``), and its content words
(``content``, no stopwords: what the pick rule caps).
"""

from __future__ import annotations

import argparse
import json
from itertools import combinations
from pathlib import Path

from c2fsum.metrics.output_stats import is_content_word


def sentences(candidate: str) -> list[list[str]]:
    """The summary's sentences: ``candidate`` holds one per line (``Decoded.text``)."""
    return [line.split() for line in candidate.splitlines() if line.strip()]


def overlapping(summary: list[list[str]], share: float, content: bool) -> int:
    """Pairs of sentences sharing more than ``share`` of the shorter one's word types."""
    keep = is_content_word if content else (lambda w: any(c.isalpha() for c in w))
    sets = [{w for w in s if keep(w)} for s in summary]
    return sum(1 for a, b in combinations(sets, 2) if a and b and len(a & b) > share * min(len(a), len(b)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("evals", nargs="+")
    ap.add_argument("--share", type=float, default=0.6)
    a = ap.parse_args()
    print(f"{'predictions':<40} {'summaries':>9} {'pairs > share (all words)':>26} {'(content words)':>16}")
    for e in a.evals:
        path = Path(e) / "predictions.jsonl" if Path(e).is_dir() else Path(e)
        rows = [json.loads(line) for line in path.open(encoding="utf-8")]
        docs = [sentences(r["candidate"]) for r in rows]
        n_all = sum(overlapping(d, a.share, False) for d in docs)
        n_content = sum(overlapping(d, a.share, True) for d in docs)
        print(f"{str(path.parent.name):<40} {len(docs):>9} {n_all:>26} {n_content:>16}")


if __name__ == "__main__":
    main()
