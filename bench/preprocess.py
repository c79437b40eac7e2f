#!/usr/bin/env python3
"""Words per second of article preprocessing (tokenization + sentence splitting), before and after.

This is a benchmark, not a test. ``before`` is the tokenizer as it was up to issue 17
(``bench/tokenize_before.py``, read from a pinned commit: NLTK over the whole text, pysbd for the sentences); ``after``
is :mod:`c2fsum.data.tokenize`. Each row runs ``preprocess_article`` over every article of a
corpus in a fresh process on one thread (so ``after`` starts with empty word caches: the
figure includes filling them), and prints whitespace-separated article words per second of
the process's CPU time (one core; on a busy machine wall time is longer, and is printed too)::

    cnndm      every article of ../shared/data/cnndm (train, val, test: 2,753)
    pubmed     every article of ../shared/data/pubmed/test.jsonl.gz (500 papers)
    long100k   one 100,000-word text without line breaks (PubMed test articles, newlines
               turned into spaces, joined, cut at 100,000 words)

then the ``after`` tokenizer on the first 12,500 ... 200,000 words of that long text, to show
that its time grows linearly (words/s stays flat), and ``before`` on 12,500-50,000 words.

    python bench/preprocess.py                  # ~12 min: "before" is slow (~9 min of it)
    python bench/preprocess.py --docs 300       # the first 300 articles of each corpus (~3 min)
    python bench/preprocess.py --only after
    python bench/preprocess.py --only after --docs 200 --src /tmp/old-checkout/src   # another version's package
    python bench/preprocess.py --only after --docs 300 --repeat 2   # each row twice (fresh processes)

On a shared machine the CPU time of one run varies by 10-30% with what runs beside it: with
``--repeat N`` each row runs N times, one fresh process after the other, and its cell shows the
words/s of each run (CPU; the wall time of the best in brackets).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
LONG_WORDS = 100_000


def articles(corpus: str, docs: int | None) -> list[str]:
    """The articles of ``corpus`` (see the module docstring), the first ``docs`` of them."""
    if corpus.startswith("long"):
        return [long_text(int(corpus[4:]))]
    paths = (
        [DATA / "cnndm" / f"{s}.jsonl.gz" for s in ("train", "val", "test")]
        if corpus == "cnndm"
        else [DATA / "pubmed" / "test.jsonl.gz"]
    )
    out: list[str] = []
    for path in paths:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            out.extend(json.loads(line)["article"] for line in f)
    return out[:docs] if docs else out


def long_text(words: int) -> str:
    """The first ``words`` words of the PubMed test articles joined into one line (repeated as needed)."""
    pool = " ".join(a.replace("\n", " ") for a in articles("pubmed", None)).split()
    while len(pool) < words:
        pool = pool + pool
    return " ".join(pool[:words])


SRC = ROOT / "src"
"""The package ``after`` measures (``--src``: another checkout's, e.g. the code before an issue)."""


def measure(impl: str, corpus: str, docs: int | None, src: Path = SRC) -> dict:
    """Run in a child process: words/s of ``impl`` on ``corpus`` (``after``: the package in ``src``)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(src)}
    out = subprocess.run(
        [sys.executable, __file__, "--child", impl, corpus, str(docs or 0)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def child(impl: str, corpus: str, docs: int) -> None:
    if impl == "before":
        sys.path.insert(0, str(ROOT / "bench"))
        from tokenize_before import load  # type: ignore[import-not-found]

        tok = load()
    else:
        import c2fsum.data.tokenize as tok  # type: ignore[no-redef]
    texts = articles(corpus, docs or None)
    tok.preprocess_article("Warm up. The imports and compiled patterns are not timed.")
    words = sum(len(t.split()) for t in texts)
    started, cpu = time.perf_counter(), time.process_time()
    sentences = sum(len(tok.preprocess_article(t)) for t in texts)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(json.dumps({"docs": len(texts), "words": words, "sentences": sentences, "seconds": seconds, "cpu": cpu}))


def _cell(runs: list[dict]) -> str:
    """Words/s of CPU time of each run, and the wall-time words/s of the best in brackets."""
    best = min(runs, key=lambda r: r["cpu"])
    cpu = " / ".join(f"{r['words'] / r['cpu']:,.0f}" for r in runs)
    return f"{cpu:>20s} ({best['words'] / best['seconds']:,.0f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=None, help="only the first N articles of cnndm and pubmed")
    ap.add_argument("--only", choices=["before", "after"], default=None)
    ap.add_argument("--src", type=Path, default=SRC, help="the package 'after' reads (default: this checkout's src)")
    ap.add_argument("--long-only", action="store_true", help="only the 100,000-word text and its linear-time rows")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each row (fresh processes), all shown")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]))
        return
    impls = [args.only] if args.only else ["before", "after"]
    print(f"{'':29s}" + "".join(f"{i + ' words/s, CPU (wall)':>34s}" for i in impls))
    print(f"{'corpus':10s} {'docs':>6s} {'words':>10s}")
    for corpus in (f"long{LONG_WORDS}",) if args.long_only else ("cnndm", "pubmed", f"long{LONG_WORDS}"):
        runs = {impl: [measure(impl, corpus, args.docs, args.src) for _ in range(args.repeat)] for impl in impls}
        first = runs[impls[0]][0]
        cells = "".join(_cell(rs) for rs in runs.values())
        print(f"{corpus:10s} {first['docs']:6,d} {first['words']:10,d}  {cells}", flush=True)
    print("\nlinear time: words/s (CPU seconds) on the first N words of the long text (flat = linear)")
    sizes = {"after": (12_500, 25_000, 50_000, 100_000, 200_000), "before": (12_500, 25_000, 50_000)}
    for impl in impls:
        cells = []
        for n in sizes[impl]:
            r = measure(impl, f"long{n}", None, args.src)
            cells.append(f"{n:,}: {r['words'] / r['cpu']:,.0f} ({r['cpu']:.2f} s)")
        print(f"  {impl:6s} " + "  ".join(cells), flush=True)


if __name__ == "__main__":
    main()
