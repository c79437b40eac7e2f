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
* the load average (1 min) before and after, since other work on the machine slows every run;
* ``compute s/paper``: the workers' own time per paper (the rows' ``seconds``: each batch's time
  in :meth:`~c2fsum.batch.worker.Summarizer._summarize`, shared by its papers), the same work on
  either engine;
* CPU seconds by process group over the run (``/proc/PID/stat`` utime+stime, sampled every
  second; a process born during the run counts from 0): the workers, the driver (this process,
  and by thread), Ray's ``raylet``, ``gcs_server`` and its other processes
  (Ray Data's read task and ``_StatsActor``, idle workers, agents).

``--rounds N`` runs every engine N times at each worker count, alternating (local, ray, local,
ray, ...) so that a drift of the machine's speed falls on both; the summary gives each
engine's median and, per round, Ray against the local run next to it.

Ray runs on a local cluster this script starts first as `c2fsum batch` starts one (all CPUs, no
dashboard, its workers at nice 0: :func:`c2fsum.batch.engines.init_local_ray`; its start is
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
import re
import shutil
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


_TICK = os.sysconf("SC_CLK_TCK")


def _cpu_s(stat: Path) -> float:
    """CPU seconds (user + system) of a process or thread from its ``stat`` file; -1 if gone."""
    try:
        fields = stat.read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return -1.0
    return (int(fields[11]) + int(fields[12])) / _TICK


def _group(pid: int, cmd: bytes, engine: str) -> str:
    """Which group of :class:`Sampler`'s CPU accounting a process is in."""
    if pid == os.getpid():
        return "driver"
    if engine == "ray" and b"Summarizer)" in cmd:
        return "workers"
    if b"raylet" in cmd and b"ray" in cmd:
        return "raylet"
    if b"gcs_server" in cmd:
        return "gcs_server"
    if cmd.startswith(b"ray::") or b"/ray/" in cmd or b"ray/_private" in cmd or b"ray.util" in cmd:
        return "ray other"
    return "other"


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
    """Peak memory of each worker process, when the first piece of output was written, and the CPU
    seconds each group of processes used over the run (:func:`_group`)."""

    def __init__(self, engine: str, out: Path):
        super().__init__(daemon=True)
        self.engine, self.out = engine, out
        self.peak: dict[int, float] = {}
        self.first: float | None = None
        self.first_rows = 0
        self.stop = threading.Event()
        self.cmd: dict[int, bytes] = {}
        self.cpu_base: dict[int, float] = {}
        self.cpu_last: dict[int, float] = {}
        self.local_workers: set[int] = set()
        self.nice: set[int] = set()
        self.thread_name: dict[int, str] = {}
        self.thread_base: dict[int, float] = {}
        self.thread_last: dict[int, float] = {}
        self.started = False
        self._scan(first=True)
        self.started = True

    def _threads(self) -> None:
        """The CPU seconds of each of this process's threads now, by thread id, with its name
        (Python's, else the kernel's)."""
        names = {t.native_id: t.name for t in threading.enumerate()}
        for d in Path("/proc/self/task").iterdir():
            tid = int(d.name)
            cpu = _cpu_s(d / "stat")
            if cpu < 0:
                continue
            if tid not in self.thread_name:
                try:
                    comm = (d / "comm").read_text().strip()
                except OSError:
                    continue
                name = names.get(tid) or comm
                self.thread_name[tid] = re.sub(r"[-_]\d+(_\d+)?$", "", name)
                self.thread_base[tid] = 0.0 if self.started else cpu
            self.thread_last[tid] = cpu

    def _scan(self, first: bool = False) -> None:
        self._threads()
        me = os.getpid()
        for d in Path("/proc").iterdir():
            if not d.name.isdigit():
                continue
            pid = int(d.name)
            try:  # read each time: a Ray worker renames itself when it becomes an actor
                cmd = (d / "cmdline").read_bytes()
            except OSError:
                continue
            if pid not in self.cpu_base and not first and pid != me:  # born during the run: all of its CPU
                self.cpu_base[pid] = 0.0
            if cmd or pid not in self.cmd:
                self.cmd[pid] = cmd
            cpu = _cpu_s(d / "stat")
            if cpu < 0:
                continue
            self.cpu_base.setdefault(pid, cpu)
            self.cpu_last[pid] = cpu

    def cpu(self) -> dict[str, float]:
        """CPU seconds over the run by group."""
        got: dict[str, float] = {}
        for pid, last in self.cpu_last.items():
            g = _group(pid, self.cmd.get(pid, b""), self.engine)
            if g == "other" and self.engine == "local" and pid in self.local_workers:
                g = "workers"
            got[g] = got.get(g, 0.0) + last - self.cpu_base.get(pid, last)
        return {k: round(v, 2) for k, v in sorted(got.items())}

    def threads(self) -> dict[str, float]:
        """CPU seconds over the run of this process's threads, by name (those above 0.05 s)."""
        got: dict[str, float] = {}
        for tid, last in self.thread_last.items():
            name = self.thread_name[tid]
            got[name] = got.get(name, 0.0) + last - self.thread_base[tid]
        return {k: round(v, 2) for k, v in sorted(got.items(), key=lambda kv: -kv[1]) if v >= 0.05}

    def processes(self, groups: tuple[str, ...] = ("ray other", "raylet", "gcs_server")) -> dict[str, float]:
        """CPU seconds over the run of the processes of ``groups``, by name (those above 0.05 s)."""
        got: dict[str, float] = {}
        for pid, last in self.cpu_last.items():
            cmd = self.cmd.get(pid, b"")
            if _group(pid, cmd, self.engine) in groups:
                words = cmd.replace(b"\0", b" ").decode(errors="replace").split()
                name = next((w for w in words if w.startswith("ray::")), None) or " ".join(
                    Path(w).name for w in words[:2]
                )
                got[name] = got.get(name, 0.0) + last - self.cpu_base.get(pid, last)
        return {k: round(v, 2) for k, v in sorted(got.items(), key=lambda kv: -kv[1]) if v >= 0.05}

    def run(self) -> None:
        n = 0
        while not self.stop.wait(0.2):
            n += 1
            for pid in _workers(self.engine):
                self.peak[pid] = max(self.peak.get(pid, 0.0), _rss_mb(pid))
                self.local_workers.add(pid)
                try:  # the worker's nice value (stat field 19)
                    self.nice.add(int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16]))
                except (OSError, ValueError, IndexError):
                    pass
            if n % 5 == 0:  # every second: a scan of /proc costs this process's CPU, on both engines
                self._scan()
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
    sampler._scan()
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
        "compute_s_per_paper": _compute_per_paper(out),
        "worker_nice": sorted(sampler.nice),
        "cpu_s": sampler.cpu(),
        "driver_threads_cpu_s": sampler.threads(),
        "ray_processes_cpu_s": sampler.processes(),
    }


def _compute_per_paper(out: Path) -> float:
    """The workers' own seconds per paper (the mean of the rows' ``seconds``)."""
    secs = [r["seconds"] for f in sorted(out.glob("*.jsonl")) for r in read_shard_file(f) if "seconds" in r]
    return sum(secs) / len(secs) if secs else float("nan")


def _median(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def _slower(ray: float, local: float) -> float:
    """How much slower Ray's rate is than local's, in percent (negative: faster)."""
    return 100 * (1 - ray / local)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="pubmed-rewrite")
    p.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "pubmed" / "test.jsonl.gz")
    p.add_argument("--papers", type=int, default=200)
    p.add_argument("--workers", default="1,2", help="worker counts, comma-separated (1,2)")
    p.add_argument("--engines", default="local,ray")
    p.add_argument("--rounds", type=int, default=1, help="runs of each engine at each worker count, alternating")
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
            from c2fsum.batch.engines import import_ray, init_local_ray

            t = time.monotonic()
            init_local_ray(import_ray(), num_cpus=os.cpu_count())  # as c2fsum batch starts one
            ray_start = time.monotonic() - t
        for rnd in range(1, a.rounds + 1):
            for w in counts:
                for engine in engines:
                    out = Path(tmp) / f"{engine}-{w}-{rnd}"
                    r = {"round": rnd, **measure(engine, w, inputs, out, a)}
                    results.append(r)
                    print(json.dumps(r), flush=True)
                    rows[(engine, w, rnd)] = {
                        f.name: [{k: v for k, v in x.items() if k != "seconds"} for x in read_shard_file(f)]
                        for f in sorted(out.glob("*.jsonl"))
                    }
                    shutil.rmtree(out)
    first = next(iter(rows.values()))
    same = all(v == first for v in rows.values())
    for key, v in rows.items():  # which rows differ from the first run's, if any
        differ = [a["id"] for f in first for a, b in zip(first[f], v.get(f, []), strict=False) if a != b]
        if differ:
            print(f"{key}: {len(differ)} rows differ from the first run's, e.g. ids {differ[:3]}")
    print()
    print(
        f"model {a.model}; {a.papers} papers of {a.data.name} in 4 shards; batch size {a.batch_size}; "
        f"{os.cpu_count()} CPUs; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}; "
        f"{a.rounds} round(s), engines alternating"
    )
    if ray_start is not None:
        print(f"local Ray cluster started in {ray_start:.1f} s (not counted below)")
    print()
    print(
        "| round | engine | workers | papers/s | steady papers/s | first piece s | compute s/paper | MB/worker "
        "| CPU s: workers / driver / Ray's own | load before-after |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        cpu = r["cpu_s"]
        ray_own = sum(v for k, v in cpu.items() if k in ("raylet", "gcs_server", "ray other"))
        print(
            f"| {r['round']} | {r['engine']} | {r['workers']} | {r['papers_per_s']:.3f} | "
            f"{r['steady_papers_per_s']:.3f} | {r['first_piece_s']:.1f} | {r['compute_s_per_paper']:.4f} | "
            f"{r['mb_per_worker']:.0f} | {cpu.get('workers', 0):.1f} / {cpu.get('driver', 0):.1f} / {ray_own:.1f} | "
            f"{r['load_before']:.1f}-{r['load_after']:.1f} |"
        )
    print()
    print(f"every run wrote the same rows (seconds aside): {'yes' if same else 'NO'}")
    by: dict[tuple[str, int], list[dict]] = {}
    for r in results:
        by.setdefault((r["engine"], r["workers"]), []).append(r)
    print()
    print("medians over the rounds:")
    print("| engine | workers | papers/s | steady papers/s | x 1 worker (steady) | first piece s | compute s/paper |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    keys = ("papers_per_s", "steady_papers_per_s", "first_piece_s", "compute_s_per_paper")
    med = {key: {k: _median([r[k] for r in rs]) for k in keys} for key, rs in by.items()}
    for (engine, w), m in med.items():
        speedup = m["steady_papers_per_s"] / med[(engine, counts[0])]["steady_papers_per_s"]
        print(
            f"| {engine} | {w} | {m['papers_per_s']:.3f} | {m['steady_papers_per_s']:.3f} | {speedup:.2f} | "
            f"{m['first_piece_s']:.1f} | {m['compute_s_per_paper']:.4f} |"
        )
    if "ray" in engines and "local" in engines:
        print()
        for w in counts:
            pairs = list(zip(by[("local", w)], by[("ray", w)], strict=True))
            e2e = [_slower(ra["papers_per_s"], lo["papers_per_s"]) for lo, ra in pairs]
            st = [_slower(ra["steady_papers_per_s"], lo["steady_papers_per_s"]) for lo, ra in pairs]
            print(
                f"ray against local at {w} worker(s), round by round: end to end "
                f"{', '.join(f'{x:+.1f}%' for x in e2e)} (median {_median(e2e):+.1f}%) slower; steady "
                f"{', '.join(f'{x:+.1f}%' for x in st)} (median {_median(st):+.1f}%) slower"
            )
    top = max(counts)
    per_worker = min(med[(e, top)]["steady_papers_per_s"] for e in engines) / top
    print()
    print(
        f"projection: {per_worker:.3f} papers/s per worker (steady, {top} workers, the slower engine's median), "
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
