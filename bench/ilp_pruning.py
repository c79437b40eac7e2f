#!/usr/bin/env python3
"""What pruning the ILP's candidate sentences loses at paper length (:func:`c2fsum.baselines.ilp.candidates`).

A benchmark, not a test. On the first ``--docs`` papers of a prepared split, the ILP at
``--budget`` words is solved on all sentences (exact) and with the candidates pruned to
``PRUNE_WORDS`` times the budget (each ``--factors`` value); for each it prints the share of
papers whose chosen sentences are the exact ones, the objective against the exact optimum
(mean ratio and worst paper), concat ROUGE-1/2/L against the reference (the ROUGE-1.5.5
computation, Python path) and the median seconds per paper::

    OMP_NUM_THREADS=1 PYTHONPATH=src .venv/bin/python bench/ilp_pruning.py --data /work/data/pubmed-before \
        --split val --docs 100 --budget 250 --factors 4,6,8,12
"""

from __future__ import annotations

import argparse
import statistics
import time

from c2fsum.baselines.extractive import sentence_words
from c2fsum.baselines.ilp import build_problem, candidates, objective, solve
from c2fsum.data.prepare import read_split
from c2fsum.metrics.rouge import score_corpus


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True, help="prepared data folder (c2fsum prepare)")
    p.add_argument("--split", default="val")
    p.add_argument("--docs", type=int, default=100)
    p.add_argument("--budget", type=int, default=250)
    p.add_argument("--factors", default="4,6,8,12", help="PRUNE_WORDS values to try (comma-separated)")
    a = p.parse_args()
    factors = [float(f) for f in a.factors.split(",")]
    docs = read_split(a.data, a.split, limit=a.docs)
    variants: dict[str, dict] = {"exact": {}, **{f"x{f:g}": {} for f in factors}}
    for v in variants.values():
        v.update(chosen=[], obj=[], secs=[], cands=[])
    for doc in docs:
        problem = build_problem(doc["src"], a.budget)
        for name, v in variants.items():
            prune = None if name == "exact" else float(name[1:])
            t = time.perf_counter()
            chosen = solve(problem, prune_words=prune)
            v["secs"].append(time.perf_counter() - t)
            v["chosen"].append(chosen)
            v["obj"].append(objective(problem, chosen))
            v["cands"].append(len(candidates(problem, prune_words=prune)))
    refs = [[" ".join(r) for r in d["refs"]] for d in docs]
    sents = [len(d["src"]) for d in docs]
    print(f"{len(docs)} papers of {a.split}, {statistics.mean(sents):.1f} sentences on average, budget {a.budget}")
    print("variant | candidates | same choice | objective / exact (mean, worst) | R-1 / R-2 / R-L concat | s/paper")
    exact = variants["exact"]
    for name, v in variants.items():
        texts = [
            "\n".join(" ".join(sentence_words(d["src"][j])) for j in c) for d, c in zip(docs, v["chosen"], strict=True)
        ]
        s = score_corpus(texts, refs)
        same = sum(c == e for c, e in zip(v["chosen"], exact["chosen"], strict=True))
        ratios = [o / e if e else 1.0 for o, e in zip(v["obj"], exact["obj"], strict=True)]
        print(
            f"{name} | {statistics.mean(v['cands']):.1f} | {same}/{len(docs)} | "
            f"{statistics.mean(ratios):.5f}, {min(ratios):.5f} | "
            f"{s['rouge1_concat']:.2f} / {s['rouge2_concat']:.2f} / {s['rougeL_concat']:.2f} | "
            f"{statistics.median(v['secs']):.3f}"
        )


if __name__ == "__main__":
    main()
