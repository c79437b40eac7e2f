#!/usr/bin/env python3
"""Load test of ``c2fsum serve``: a real uvicorn process on loopback, N requests, K at a time.

This is a benchmark, not a test. It starts ``c2fsum serve`` as a child process on 127.0.0.1 (a
free port), sends ``--requests`` POST /summarize requests with real CNN/DailyMail test articles,
``--concurrency`` in flight at a time (httpx, asyncio), and prints the latency percentiles, the
status codes, the errors, the throughput and how the server batched them; then stops the server.
Traffic goes to the loopback address only, the number of requests is bounded, and the whole run
is bounded by ``--max-seconds``. Exit status 1 if any request failed.

Without ``--model`` it trains a tiny MODEL 2 (4 chunks x 20 words, 60 steps on 40 documents,
about a minute) into ``~/.cache/c2fsum-bench/serve-model`` once and reuses it; with ``--model``
it serves that run (e.g. a ``configs/model2-cpu.yaml`` run, 10 x 40 grid).

    .venv/bin/python bench/load_test.py                                   # 300 requests, 8 concurrent
    .venv/bin/python bench/load_test.py --model work/runs/model2-cpu --beam 5 --max-length 40
    .venv/bin/python bench/load_test.py --dry-run                          # 20 requests, 4 concurrent
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
CNNDM = ROOT.parent / "shared" / "data" / "cnndm"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "c2fsum-bench" / "serve-model"
TINY = [
    "model.emb_dim=32",
    "model.hidden=48",
    "model.chunk_filters=32",
    "data.chunks=4",
    "data.chunk_len=20",
    "train.batch_size=8",
    "data.vocab_size=5000",
    "data.val_holdout=0",
    "train.eval_every=1000",
    "train.max_steps=60",
    "decode.min_len=5",
]


def read_articles(data: Path, n: int) -> list[str]:
    path = data / "test.jsonl.gz"
    if not path.exists():
        sys.exit(f"load_test: {path} not found (--data DIR with test.jsonl.gz of CNN/DailyMail)")
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            out.append(json.loads(line)["article"])
            if len(out) >= n:
                break
    return out


def tiny_model(data: Path) -> Path:
    """Train (once) a tiny MODEL 2 on 40 training documents of ``data``."""
    run = CACHE / "run"
    if (run / "best" / "model.safetensors").exists():
        return run
    from c2fsum.config import load_config
    from c2fsum.data.prepare import prepare
    from c2fsum.training.trainer import Trainer

    print(f"training a tiny MODEL 2 into {run} (once)", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw"
        raw.mkdir()
        for split, n in (("train", 40), ("val", 5), ("test", 5)):
            with (
                gzip.open(data / f"{split}.jsonl.gz", "rt", encoding="utf-8") as f,
                open(raw / f"{split}.jsonl", "w", encoding="utf-8") as g,
            ):
                for i, line in enumerate(f):
                    if i >= n:
                        break
                    g.write(line)
        prepare(raw, Path(tmp) / "data", vocab_size=50000, workers=1, progress=False)
        cfg = load_config(ROOT / "configs" / "model2-cpu.yaml", TINY)
        if run.exists():
            import shutil

            shutil.rmtree(run)
        Trainer(cfg, Path(tmp) / "data", run, progress=False).fit()
    return run


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(model: Path, port: int, a: argparse.Namespace) -> subprocess.Popen:
    cmd = [
        sys.executable,
        "-m",
        "c2fsum.cli.main",
        "-q",
        "serve",
        "--model",
        str(model),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--max-queue",
        str(max(64, a.concurrency * 2)),
        "--max-batch",
        str(a.max_batch),
        "--timeout",
        str(a.request_timeout),
    ]
    if a.threads:
        cmd += ["--threads", str(a.threads)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"load_test: the server exited with status {proc.returncode}:\n{proc.stderr.read()}")
        try:
            return httpx.get(url + "/health", timeout=2).json()
        except httpx.HTTPError:
            time.sleep(0.25)
    sys.exit(f"load_test: the server did not answer /health within {timeout:g} s")


async def hammer(url: str, articles: list[str], a: argparse.Namespace) -> tuple[list[float], Counter, list[str], float]:
    """Send ``a.requests`` requests, ``a.concurrency`` at a time; latencies (s) of the 200s."""
    latencies: list[float] = []
    statuses: Counter = Counter()
    errors: list[str] = []
    next_i = 0
    deadline = time.monotonic() + a.max_seconds

    async def worker(client: httpx.AsyncClient) -> None:
        nonlocal next_i
        while next_i < a.requests and time.monotonic() < deadline:
            i = next_i
            next_i += 1
            body = {
                "text": articles[i % len(articles)],
                "beam": a.beam,
                "max_length": a.max_length,
                "block_trigrams": True,
            }
            t0 = time.perf_counter()
            try:
                r = await client.post(url + "/summarize", json=body)
                dt = time.perf_counter() - t0
                statuses[r.status_code] += 1
                if r.status_code == 200 and r.json().get("tokens") is not None:
                    latencies.append(dt)
                else:
                    errors.append(f"request {i}: HTTP {r.status_code} {r.text[:120]}")
            except httpx.HTTPError as e:
                statuses[type(e).__name__] += 1
                errors.append(f"request {i}: {type(e).__name__}: {e}")

    limits = httpx.Limits(max_connections=a.concurrency, max_keepalive_connections=a.concurrency)
    t0 = time.perf_counter()
    async with httpx.AsyncClient(limits=limits, timeout=a.request_timeout + 10) as client:
        await asyncio.gather(*(worker(client) for _ in range(a.concurrency)))
    return latencies, statuses, errors, time.perf_counter() - t0


def percentile(xs: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(round(q / 100 * len(s) + 0.5)) - 1))]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", type=Path, help="run directory to serve (default: a tiny MODEL 2, trained once)")
    p.add_argument("--data", type=Path, default=CNNDM, help=f"CNN/DailyMail JSONL.GZ folder ({CNNDM})")
    p.add_argument("--requests", type=int, default=300, help="requests in all (300)")
    p.add_argument("--concurrency", type=int, default=8, help="requests in flight at a time (8)")
    p.add_argument("--articles", type=int, default=50, help="distinct test articles, sent in turn (50)")
    p.add_argument("--beam", type=int, default=2, help="beam size of each request (2)")
    p.add_argument("--max-length", type=int, default=30, help="max summary tokens of each request (30)")
    p.add_argument("--max-batch", type=int, default=8, help="server: documents decoded together (8)")
    p.add_argument("--request-timeout", type=float, default=60.0, help="server: seconds per request (60)")
    p.add_argument("--threads", type=int, help="server: torch threads")
    p.add_argument("--max-seconds", type=float, default=600.0, help="stop sending after this long (600)")
    p.add_argument("--dry-run", action="store_true", help="20 requests, 4 concurrent")
    a = p.parse_args(argv)
    if a.dry_run:
        a.requests, a.concurrency = 20, 4
    if a.requests < 1 or a.concurrency < 1:
        p.error("--requests and --concurrency must be >= 1")

    articles = read_articles(a.data, a.articles)
    model = a.model or tiny_model(a.data)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_server(model, port, a)
    try:
        health = wait_healthy(url, proc, 120)
        # one warm-up request (first-call allocations), not counted
        httpx.post(
            url + "/summarize",
            json={"text": articles[0], "beam": a.beam, "max_length": a.max_length},
            timeout=a.request_timeout + 10,
        )
        before = httpx.get(url + "/health").json()
        latencies, statuses, errors, wall = asyncio.run(hammer(url, articles, a))
        after = httpx.get(url + "/health").json()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    sent = sum(statuses.values())
    batches = after["batches"] - before["batches"]
    docs = after["documents"] - before["documents"]
    print(f"model: {health['model']} ({health['family']}, grid {health['grid'][0]}x{health['grid'][1]})")
    print(
        f"requests: {sent} sent, {a.concurrency} concurrent, beam {a.beam}, max_length {a.max_length}, "
        f"{len(articles)} distinct CNN/DM test articles"
    )
    print(f"status: {', '.join(f'{k}: {v}' for k, v in sorted(statuses.items(), key=str))}")
    print(f"errors: {len(errors)}")
    for e in errors[:10]:
        print(f"  {e}")
    if latencies:
        ms = [x * 1000 for x in latencies]
        print(
            f"latency_ms: p50 {percentile(ms, 50):.0f}  p95 {percentile(ms, 95):.0f}  p99 {percentile(ms, 99):.0f}  "
            f"max {max(ms):.0f}  mean {statistics.fmean(ms):.0f}"
        )
    print(f"throughput: {sent / wall:.1f} requests/s over {wall:.1f} s")
    if batches:
        print(f"server batching: {docs} documents in {batches} model calls (mean batch {docs / batches:.2f})")
    return 1 if errors or sent < a.requests else 0


if __name__ == "__main__":
    sys.exit(main())
