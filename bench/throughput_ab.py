#!/usr/bin/env python3
"""c2fsum's beam decoding at two commits, batch for batch in turn, for a before/after on a shared machine.

Two long-lived processes, one per tree (a checkout or ``git worktree``; each imports its own
``src`` and ``bench/speed.py``), decode ``bench/speed.py``'s batches (20 test sources, beam 5,
exactly 15 tokens, untrained weights of the preset) one batch each in turn, alternating which
goes first, so both see the same neighbours; ``bench/throughput``'s runs, minutes apart, do not.
It prints the median summaries/s of each (wall and per CPU second), the speed-up of the second
tree over the first pair by pair, and whether both wrote the same summaries::

    git worktree add /tmp/before HEAD~2
    OMP_NUM_THREADS=1 .venv/bin/python bench/throughput_ab.py small 12 /tmp/before .
    OMP_NUM_THREADS=1 .venv/bin/python bench/throughput_ab.py model0 8 /tmp/before .

Arguments: preset (``small``: the CPU size, ``model0``: the paper size), pairs of batches, the two
trees. ``C2FSUM_PEER_BENCH`` (default: ``../shared/bench`` of this checkout) is passed on.
"""

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

PEER = os.environ.get("C2FSUM_PEER_BENCH", str(Path(__file__).resolve().parents[2] / "shared" / "bench"))
WORKER = r"""
import importlib.util, json, os, sys, time
tree, config = sys.argv[1], sys.argv[2]
sys.path.insert(0, f"{tree}/src")
spec = importlib.util.spec_from_file_location("speed", f"{tree}/bench/speed.py")
speed = importlib.util.module_from_spec(spec)
spec.loader.exec_module(speed)
import torch
torch.set_num_threads(1)
from c2fsum.decoding.beam import beam_search
args = speed.parse(["--config", config, "--skip-train", "--threads", "1", "--decode-n", "100"])
cfg = speed.resolve_cfg(args)
model = speed.build_model(cfg, args.seed, args).eval()
pairs, _ = speed.load_examples(args.data, cfg, "test", 100, args.seed)
batches = speed.make_batches(pairs, 20, args.chunks, cfg["src_len"] // args.chunks)
L = cfg["tgt_len"]
def decode(b):
    return beam_search(model, model.encode(b.src, b.src_mask), beam=5, max_len=L, min_len=L)
with torch.inference_mode():
    decode(batches[0])  # warm-up
    print("ready", flush=True)
    for i, _ in enumerate(sys.stdin):
        c0, t0 = os.times(), time.perf_counter()
        hyps = decode(batches[i % len(batches)])
        wall, c1 = time.perf_counter() - t0, os.times()
        cpu = c1.user + c1.system - c0.user - c0.system
        print(json.dumps([wall, cpu, [h[0].tokens for h in hyps]]), flush=True)
"""


def main() -> None:
    config, n = sys.argv[1], int(sys.argv[2])
    trees = [str(Path(t).resolve()) for t in sys.argv[3:5]]
    env = dict(os.environ, OMP_NUM_THREADS="1", C2FSUM_PEER_BENCH=PEER)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, t, config], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
        for t in trees
    ]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    res: dict[str, list[list[float]]] = {t: [] for t in trees}
    same = True
    la0 = open("/proc/loadavg").read().split()[0]
    for i in range(n):
        out = {}
        for t in trees if i % 2 == 0 else trees[::-1]:
            p = procs[trees.index(t)]
            assert p.stdin is not None and p.stdout is not None
            p.stdin.write("go\n")
            p.stdin.flush()
            out[t] = json.loads(p.stdout.readline())
            res[t].append(out[t][:2])
        same &= out[trees[0]][2] == out[trees[1]][2]
    for p in procs:
        assert p.stdin is not None
        p.stdin.close()
        p.wait()
    la1 = open("/proc/loadavg").read().split()[0]
    print(f"{config}: {n} pairs of batches of 20, load {la0} -> {la1}, same summaries: {same}")
    for t in trees:
        wall, cpu = [x[0] for x in res[t]], [x[1] for x in res[t]]
        print(
            f"  {t}: median {20 / statistics.median(wall):.2f} summaries/s wall "
            f"(min-max {20 / max(wall):.2f}-{20 / min(wall):.2f}), {20 / statistics.median(cpu):.2f} per CPU s"
        )
    ratios = [a[0] / b[0] for a, b in zip(res[trees[0]], res[trees[1]], strict=True)]
    pairs = " ".join(f"{r:.2f}" for r in ratios)
    print(f"  speed-up of {trees[1]} over {trees[0]}: median {statistics.median(ratios):.2f} (pairs: {pairs})")


if __name__ == "__main__":
    main()
