#!/usr/bin/env python3
"""The text processing every model pays before its first decoder step, against the text's length.

A benchmark, not a test. For raw texts of 12,500 to 100,000 whitespace-separated words (papers of
``../shared/data/longdocs`` joined by blank lines, or ``--source`` any JSONL[.gz] with an
``article`` field), it times the two stages ``c2fsum summarize`` runs on a text before the model:

    read      Pipeline.read_texts: layout of the raw text, sentence splitting and tokenizing,
              exactly as the training data was prepared
    grid      Pipeline.encode_documents: the words on the reading grid (ids, the extended
              vocabulary of copied words)

Sizes are taken in a rotating order, ``--repeats`` times each, and the smallest time of each is
kept (this machine's speed drifts over minutes; the smallest is the least disturbed). It prints
seconds and microseconds per word for each stage and size: flat microseconds per word is linear.

    OMP_NUM_THREADS=1 .venv/bin/python bench/text_scaling.py                  # pubmed-model3's grid
    OMP_NUM_THREADS=1 .venv/bin/python bench/text_scaling.py --model pubmed-model0 --repeats 5
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from length_scaling import raw_documents  # noqa: E402  (bench/length_scaling.py: texts of exact word counts)

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="pubmed-model3", help="a shipped model or run (its grid and vocabulary)")
    p.add_argument("--source", default=str(ROOT.parent / "shared/data/longdocs/scisummnet_sample.jsonl.gz"))
    p.add_argument("--sizes", default="12500,25000,50000,100000")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    import c2fsum

    pipe = c2fsum.load(args.model)
    sizes = [int(s) for s in args.sizes.split(",")]
    texts = {n: raw_documents(Path(args.source), [n], 1)[str(n)][0] for n in sizes}
    pipe.encode_documents(pipe.read_texts([texts[sizes[0]]]))  # warm-up: imports, caches
    best: dict[tuple[str, int], float] = {}
    for r in range(args.repeats):
        for n in sizes[r % len(sizes) :] + sizes[: r % len(sizes)]:
            t0 = time.perf_counter()
            docs = pipe.read_texts([texts[n]])
            t1 = time.perf_counter()
            pipe.encode_documents(docs)
            t2 = time.perf_counter()
            for stage, s in (("read", t1 - t0), ("grid", t2 - t1)):
                best[(stage, n)] = min(best.get((stage, n), float("inf")), s)
    print(f"{args.model}, {args.source}, smallest of {args.repeats}, load {os.getloadavg()[0]:.2f}")
    print("| words | read s | read us/word | grid s | grid us/word | both s |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in sizes:
        r, g = best[("read", n)], best[("grid", n)]
        print(f"| {n:,} | {r:.3f} | {r / n * 1e6:.2f} | {g:.3f} | {g / n * 1e6:.2f} | {r + g:.3f} |")


if __name__ == "__main__":
    main()
