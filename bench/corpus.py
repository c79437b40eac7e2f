#!/usr/bin/env python3
"""``c2fsum batch`` on a corpus: papers/s with 1 and 2 workers on each engine, memory per worker,
Ray's overhead against the local engine, and what one million papers would take on N machines.

It writes the first ``--papers`` papers of ``--data`` into 4 input shards, then runs
:func:`c2fsum.batch.run_batch` on them once per engine and worker count, each into a fresh
folder, and checks that every run wrote the same rows (``seconds`` aside). For each run:

* ``papers/s``: papers over the run's whole time (shards planned, workers started, the model
  loaded in each, every paper summarized and written);
* ``steady papers/s``: papers after the first finished piece over the time after it (the rate
  once the workers run; what a long run approaches);
* ``MB/worker``: the peak resident memory of each worker process (``/proc/PID/status``, sampled
  every 0.2 s: the pool's processes, or Ray's ``MapBatches(PackedSummarizer)`` actors), the largest;
* the load average (1 min) before and after, since other work on the machine slows every run.

Ray runs on a local cluster this script starts first (all CPUs, no dashboard; its start is
timed apart, as a cluster that is already up would be). The projection divides one million by
the steady per-worker rate of the largest worker count times the workers of N machines of
``--cores`` cores (one worker a core), assuming the rate per worker holds as machines are added
(the driver reads and writes; no shared state between workers).

Usage::

    OMP_NUM_THREADS=1 .venv/bin/python bench/corpus.py                      # pubmed-rewrite, 200 papers
    OMP_NUM_THREADS=1 .venv/bin/python bench/corpus.py --model cnndm-small \\
        --data ../shared/data/cnndm/test.jsonl.gz --papers 200              # news, faster
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import tempfile
import threading
import time
from pathlib import Path

from c2fsum.batch import run_batch
from c2fsum.batch.store import read_shard_file

ROOT = Path(__file__).resolve().parents[1]


def _rss_mb(pid: int) -> float:
    """Peak resident memory of a process (VmHWM), in MB; 0 if gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _workers(engine: str) -> list[int]:
    """The worker processes of a run now: this process's pool children, or Ray's Summarizer actors."""
    me = os.getpid()
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes()
            ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if engine == "local" and ppid == me and b"spawn_main" in cmd and b"resource_tracker" not in cmd:
            found.append(int(d.name))
        elif engine == "ray" and b"Summarizer)" in cmd:  # MapBatches(PackedSummarizer)
            found.append(int(d.name))
    return found


class Sampler(threading.Thread):
    """Peak memory of each worker process, and when the first piece of output was written."""

    def __init__(self, engine: str, out: Path):
        super().__init__(daemon=True)
        self.engine, self.out = engine, out
        self.peak: dict[int, float] = {}
        self.first: float | None = None
        self.first_rows = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.2):
            for pid in _workers(self.engine):
                self.peak[pid] = max(self.peak.get(pid, 0.0), _rss_mb(pid))
            if self.first is None:
                pieces = list((self.out / ".batch" / "pieces").glob("*/piece-*.jsonl"))
                shards = [p for p in self.out.glob("0*.jsonl")]
                if pieces or shards:
                    self.first = time.monotonic()
                    self.first_rows = sum(len(p.read_text().splitlines()) for p in pieces + shards)


def write_shards(data: Path, papers: int, folder: Path, shards: int = 4) -> None:
    """The first ``papers`` records of ``data`` (JSON Lines, .gz) as ``shards`` JSONL files."""
    with gzip.open(data, "rt", encoding="utf-8") as f:
        docs = [json.loads(line) for _, line in zip(range(papers), f, strict=False)]
    if len(docs) < papers:
        raise SystemExit(f"{data}: {len(docs)} records, asked for {papers}")
    per = -(-papers // shards)
    for i in range(shards):
        with open(folder / f"part-{i}.jsonl", "w", encoding="utf-8") as f:
            for d in docs[i * per : (i + 1) * per]:
                f.write(json.dumps({"id": d["id"], "article": d["article"]}) + "\n")


def measure(engine: str, workers: int, inputs: Path, out: Path, a: argparse.Namespace) -> dict:
    sampler = Sampler(engine, out)
    load_before = os.getloadavg()[0]
    sampler.start()
    start = time.monotonic()
    report = run_batch(a.model, [inputs], out, engine=engine, workers=workers, batch_size=a.batch_size)
    end = time.monotonic()
    sampler.stop.set()
    sampler.join()
    first = sampler.first or end
    steady = (report.summarized - sampler.first_rows) / (end - first) if end > first else float("nan")
    return {
        "engine": engine,
        "workers": workers,
        "papers": report.summarized,
        "seconds": end - start,
        "papers_per_s": report.summarized / (end - start),
        "first_piece_s": first - start,
        "steady_papers_per_s": steady,
        "mb_per_worker": max(sampler.peak.values(), default=0.0),
        "workers_seen": len(report.workers),
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="pubmed-rewrite")
    p.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "pubmed" / "test.jsonl.gz")
    p.add_argument("--papers", type=int, default=200)
    p.add_argument("--workers", default="1,2", help="worker counts, comma-separated (1,2)")
    p.add_argument("--engines", default="local,ray")
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--cores", type=int, default=os.cpu_count() or 2, help="cores per machine in the projection")
    p.add_argument("--out", type=Path, help="also write the results here (JSON)")
    a = p.parse_args()
    counts = [int(w) for w in a.workers.split(",")]
    engines = a.engines.split(",")
    results, rows = [], {}
    with tempfile.TemporaryDirectory(prefix="bench-corpus-") as tmp:
        inputs = Path(tmp) / "in"
        inputs.mkdir()
        write_shards(a.data, a.papers, inputs)
        ray_start = None
        if "ray" in engines:
            import ray

            t = time.monotonic()
            ray.init(num_cpus=os.cpu_count(), include_dashboard=False, logging_level="WARNING")
            ray_start = time.monotonic() - t
        for engine in engines:
            for w in counts:
                out = Path(tmp) / f"{engine}-{w}"
                r = measure(engine, w, inputs, out, a)
                results.append(r)
                print(json.dumps(r), flush=True)
                got = {
                    f.name: [{k: v for k, v in x.items() if k != "seconds"} for x in read_shard_file(f)]
                    for f in sorted(out.glob("*.jsonl"))
                }
                rows[(engine, w)] = got
    first = next(iter(rows.values()))
    same = all(v == first for v in rows.values())
    for key, v in rows.items():  # which rows differ from the first run's, if any
        differ = [a["id"] for f in first for a, b in zip(first[f], v.get(f, []), strict=False) if a != b]
        if differ:
            print(f"{key}: {len(differ)} rows differ from the first run's, e.g. ids {differ[:3]}")
    print()
    print(
        f"model {a.model}; {a.papers} papers of {a.data.name} in 4 shards; batch size {a.batch_size}; "
        f"{os.cpu_count()} CPUs; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}"
    )
    if ray_start is not None:
        print(f"local Ray cluster started in {ray_start:.1f} s (not counted below)")
    print()
    print(
        "| engine | workers | papers/s | steady papers/s | x 1 worker (steady) | first piece s | MB/worker "
        "| load before-after |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    base = {r["engine"]: r for r in results if r["workers"] == counts[0]}
    for r in results:
        speedup = r["steady_papers_per_s"] / base[r["engine"]]["steady_papers_per_s"]
        print(
            f"| {r['engine']} | {r['workers']} | {r['papers_per_s']:.3f} | {r['steady_papers_per_s']:.3f} | "
            f"{speedup:.2f} | {r['first_piece_s']:.1f} | {r['mb_per_worker']:.0f} | "
            f"{r['load_before']:.1f}-{r['load_after']:.1f} |"
        )
    print()
    print(f"every run wrote the same rows (seconds aside): {'yes' if same else 'NO'}")
    by = {(r["engine"], r["workers"]): r for r in results}
    if "ray" in engines and "local" in engines:
        for w in counts:
            lo, ra = by[("local", w)], by[("ray", w)]
            print(
                f"ray against local at {w} worker(s): {100 * (1 - ra['papers_per_s'] / lo['papers_per_s']):+.1f}% "
                f"slower end to end, {100 * (1 - ra['steady_papers_per_s'] / lo['steady_papers_per_s']):+.1f}% "
                "slower steady"
            )
    top = max(counts)
    per_worker = min(by[(e, top)]["steady_papers_per_s"] for e in engines) / top
    print()
    print(
        f"projection: {per_worker:.3f} papers/s per worker (steady, {top} workers, the slower engine), "
        f"one worker per core, {a.cores} cores per machine"
    )
    print("| machines | workers | papers/s | 1,000,000 papers |")
    print("| --- | --- | --- | --- |")
    for n in (1, 2, 4, 8, 16, 32):
        rate = per_worker * a.cores * n
        hours = 1e6 / rate / 3600
        print(f"| {n} | {a.cores * n} | {rate:.1f} | {hours:.1f} h ({hours / 24:.1f} days) |")
    if a.out:
        a.out.write_text(json.dumps({"results": results, "same_rows": same, "per_worker": per_worker}, indent=1))


if __name__ == "__main__":
    main()
