#!/usr/bin/env python3
"""Time and peak memory of one huge hostile input: a single line of N words (default 1,000,000).

This is a benchmark, not a test (the test suite feeds ``prepare`` a 50,000-word line and
``summarize`` a 1,000,000-word one). Each case runs in its own process so that its peak
resident memory (``ru_maxrss``) is its own; lines are ``name: value``::

    prepare_s, prepare_peak_mib      c2fsum.data.prepare on a JSONL whose train split holds the line
                                     (prepare keeps the whole article: time and memory grow with it)
    summarize_s, summarize_peak_mib  train a 1-step tiny model on two small documents, then
                                     c2fsum.load(run).summarize([line]) (only a bounded prefix of
                                     the text is read); summarize_call_s is that call alone

Example::

    .venv/bin/python bench/hostile_input.py                 # ~1 min on 2 cores
    .venv/bin/python bench/hostile_input.py --words 100000
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOOD = {
    "article": "The council met on Monday. It voted to build a new bridge over the river.",
    "highlights": "Council votes for a new bridge.",
}
TINY = [
    "model.emb_dim=16",
    "model.hidden=24",
    "model.enc_layers=1",
    "model.dec_layers=1",
    "data.chunks=4",
    "data.chunk_len=20",
    "data.max_tgt_len=20",
    "train.batch_size=2",
    "train.max_steps=1",
]


def case_prepare(work: Path, words: int) -> None:
    from c2fsum.data.prepare import prepare

    src = work / "in"
    src.mkdir()
    with open(src / "train.jsonl", "w", encoding="utf-8") as f:
        f.write(json.dumps({"id": "huge", "article": " ".join(["word"] * words), "highlights": "a summary ."}) + "\n")
        f.write(json.dumps({"id": "good", **GOOD}) + "\n")
    with open(src / "val.jsonl", "w", encoding="utf-8") as f:
        f.write(json.dumps({"id": "v", **GOOD}) + "\n")
    prepare(src, work / "data", workers=1, progress=False)


def case_summarize(work: Path, words: int) -> None:
    import c2fsum
    from c2fsum.config import load_config
    from c2fsum.data.prepare import prepare
    from c2fsum.training.trainer import Trainer

    src = work / "small"
    src.mkdir()
    for split in ("train", "val"):
        (src / f"{split}.jsonl").write_text(json.dumps({"id": split, **GOOD}) + "\n", encoding="utf-8")
    prepare(src, work / "small_data", workers=1, progress=False)
    Trainer(load_config(None, TINY), work / "small_data", work / "run", progress=False).fit()
    model = c2fsum.load(work / "run")
    line = " ".join(["word"] * words)
    t0 = time.perf_counter()
    out = model.summarize([line], beam=2, max_len=6)
    print(f"summarize_call_s: {time.perf_counter() - t0:.2f}")
    print(f"summarize_grid_words: {len(out[0].source)}")


def run_case(name: str, work: Path, words: int) -> None:
    t0 = time.perf_counter()
    cmd = [sys.executable, __file__, "--case", name, "--work", str(work), "--words", str(words)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()
    print(f"{name}_s: {time.perf_counter() - t0:.1f}")
    for line in out[:-1]:
        print(line)
    print(f"{name}_peak_mib: {int(out[-1]) / 1024:.0f}")  # the child's own ru_maxrss (KiB)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, default=1_000_000)
    ap.add_argument("--case", choices=["prepare", "summarize"], help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.case:
        {"prepare": case_prepare, "summarize": case_summarize}[a.case](Path(a.work), a.words)
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        return
    print(f"words: {a.words}")
    with tempfile.TemporaryDirectory() as tmp:
        run_case("prepare", Path(tmp), a.words)  # also writes the data the summarize case trains on
        run_case("summarize", Path(tmp), a.words)


if __name__ == "__main__":
    main()
