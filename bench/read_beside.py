#!/usr/bin/env python3
"""Summaries to read sentence by sentence beside their papers (issue 47's fault counts).

For papers ``START`` .. ``START + N - 1`` of a prepared split (in the file's order), prints the
abstract's start, the summary as a reader gets it (``text``), and for each summary sentence
whether it is the paper's sentence verbatim (COPY) or shortened (SHORT), the paper sentence it
comes from (by shared words) and the sentence before that one in the paper, which is what a
sentence opening on "these ..." or "however ..." leans on::

    python bench/read_beside.py EVAL_DIR --data DATA --split test --start 100 [--n 10]

``EVAL_DIR``: a ``c2fsum evaluate --out`` folder of that split; ``DATA``: its ``c2fsum prepare``
folder.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("eval_dir")
    ap.add_argument("--data", required=True)
    ap.add_argument("--split", default="test")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--n", type=int, default=10)
    a = ap.parse_args()
    papers = [json.loads(line) for line in open(Path(a.data) / f"{a.split}.jsonl", encoding="utf-8")]
    chosen = papers[a.start : a.start + a.n]
    rows = {}
    for line in open(Path(a.eval_dir) / "predictions.jsonl", encoding="utf-8"):
        r = json.loads(line)
        rows[r["id"]] = r
    for paper in chosen:
        r = rows[paper["id"]]
        src = [" ".join(w for w in s if w != "</s>") for s in paper["src"]]
        print("=====", paper["id"], "|", r["references"][0][:300].replace("\n", " "))
        print("TEXT:", r["text"])
        for k, sent in enumerate(r["candidate"].splitlines(), 1):
            words = set(sent.split())
            best = max(range(len(src)), key=lambda j: len(words & set(src[j].split())) / (1 + len(set(src[j].split()))))
            tag = "COPY" if sent == src[best] else "SHORT"
            before = src[best - 1][:150] if best else "-"
            print(f"  [{k}] {tag} #{best} before it: {before}")


if __name__ == "__main__":
    main()
