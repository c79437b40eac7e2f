#!/usr/bin/env python3
"""Throughput of distributed training: 1 process vs N processes, same global batch.

This is a benchmark, not a test. Each row trains the same preset for ``--steps`` optimizer
steps on the same data with the same global batch (``train.batch_size``), through the real
command line (``c2fsum train``, and ``c2fsum train --nproc N`` = torchrun + DDP over gloo on
CPU), and reads the run's own records:

    tok/s       (source + target tokens of all steps) / training wall time (trainer.json)
    tgt tok/s   median over steps after ``--warmup`` of the logged target tokens per second
    s/step      training wall time / steps

Rows: 1 process x 1 thread, 1 process x N threads (the same cores as N processes), N
processes x 1 thread. The data are the first ``--docs`` CNN/DailyMail training documents of
``../shared/data/cnndm`` prepared once into ``--work`` (or ``--data DIR``, already prepared).

    .venv/bin/python bench/distributed.py                       # model0-cpu, 20 steps, ~5 min
    .venv/bin/python bench/distributed.py --steps 4 --docs 100  # a quick look
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def prepare_data(work: Path, docs: int) -> Path:
    """Prepare the first ``docs`` training and 20 validation documents of the shared sample."""
    out = work / f"data-{docs}"
    if (out / "vocab.txt").exists():
        return out
    src = ROOT.parent / "shared" / "data" / "cnndm"
    raw = work / f"raw-{docs}"
    raw.mkdir(parents=True, exist_ok=True)
    for split, n in (("train", docs), ("val", 20)):
        with (
            gzip.open(src / f"{split}.jsonl.gz", "rt", encoding="utf-8") as f,
            open(raw / f"{split}.jsonl", "w", encoding="utf-8") as g,
        ):
            for i, line in enumerate(f):
                if i >= n:
                    break
                g.write(line)
    sys.path.insert(0, str(ROOT / "src"))
    from c2fsum.data.prepare import prepare

    prepare(raw, out, vocab_size=50000, workers=1, progress=True)
    return out


def run(label: str, nproc: int, threads: int, a: argparse.Namespace, data: Path, work: Path) -> dict:
    out = work / "runs" / label.replace(" ", "")
    if out.exists():
        subprocess.run(["rm", "-rf", str(out)], check=True)
    cmd = [
        sys.executable,
        "-m",
        "c2fsum",
        "-q",
        "train",
        "--config",
        a.config,
        "--data",
        str(data),
        "--out",
        str(out),
        "--max-steps",
        str(a.steps),
        "--set",
        "train.log_every=1",
        "train.eval_every=0",
        "data.val_holdout=0",
        f"train.threads={threads}",
        f"train.batch_size={a.batch}",
        *a.set,
    ]
    if nproc > 1:
        cmd += ["--nproc", str(nproc)]
    env = dict(
        os.environ,
        OMP_NUM_THREADS=str(threads),
        PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
    )
    load0 = os.getloadavg()[0]
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    state = json.loads((out / "last" / "trainer.json").read_text())["position"]
    rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines() if '"train"' in x]
    tgt = [r["tgt_tokens_per_s"] for r in rows[a.warmup :]] or [r["tgt_tokens_per_s"] for r in rows]
    return {
        "label": label,
        "tok_s": state["tokens"] / state["elapsed"],
        "tgt_tok_s": statistics.median(tgt),
        "s_step": state["elapsed"] / state["step"],
        "wall": wall,
        "load": load0,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default=str(ROOT / "configs" / "model0-cpu.yaml"))
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--batch", type=int, default=20, help="global batch (documents per step)")
    p.add_argument("--nproc", type=int, default=2)
    p.add_argument("--docs", type=int, default=400, help="training documents to prepare")
    p.add_argument("--data", type=Path, help="an already prepared data directory")
    p.add_argument("--work", type=Path, default=Path.home() / ".cache" / "c2fsum-bench" / "distributed")
    p.add_argument("--set", nargs="*", default=[], help="more config overrides")
    a = p.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    data = a.data or prepare_data(a.work, a.docs)
    n = a.nproc
    results = [
        run("1 proc x 1 thread", 1, 1, a, data, a.work),
        run(f"1 proc x {n} threads", 1, n, a, data, a.work),
        run(f"{n} procs x 1 thread", n, 1, a, data, a.work),
    ]
    base = results[0]["tok_s"]
    print(f"\n{Path(a.config).stem}, global batch {a.batch}, {a.steps} steps, {os.cpu_count()} CPUs\n")
    print("| run | tok/s (src+tgt) | tgt tok/s (median) | s/step | speed-up | load avg at start |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        print(
            f"| {r['label']} | {r['tok_s']:.0f} | {r['tgt_tok_s']:.0f} | {r['s_step']:.2f} | "
            f"{r['tok_s'] / base:.2f}x | {r['load']:.1f} |"
        )


if __name__ == "__main__":
    main()
