#!/usr/bin/env python3
"""Training speed of the shipped recipes, this tree against an earlier commit, in one run.

This is a benchmark, not a test. For each recipe (``configs/NAME.yaml`` of each tree: the recipe
as it ships at that commit) and each tree it times ``Trainer.train_step`` on the same batches of
the same prepared data (the first ``--docs`` training papers; the batch order of epoch 0 with
the recipe's seed), one thread, after ``--warmup`` untimed steps, and prints per tree and recipe
the median seconds per step and source+target tokens per second (``</s>`` included, as the
trainer counts them), then the ratio of the medians. Trees alternate (old, new, old, new, ...)
over ``--rounds`` rounds, each in its own process, and the 1-minute load average is printed
beside each round: on this 2-core machine anything above 1 means a neighbour shares the cores.

The earlier commit is checked out (``git worktree``) under ``~/.cache/c2fsum-bench/trees/REV``.
The FLOP count of each step (``--flops``) is the model's matrix products by the formula of
``step_flops`` (forward; backward counted as twice the forward), against the sgemm rate this
machine measures on a 1000x1000 product, to say what fraction of the machine the trainer uses.

``--paired`` runs the two trees' processes at the same time, one core each (the machine's speed
drifts over minutes on a shared host, by up to 2x for the same batch; two processes side by side
see the same drift), and prints each round's ratio; it needs a machine with two idle cores.

``--threads-compare`` answers a different question on this tree alone: on a quiet machine with
two cores, is one training run with two threads faster than two runs with one thread each? It
times one 2-thread process alone, then two 1-thread processes at once (same batches), alternating
over ``--rounds``, and prints each process's tokens per second and the two runs' sum.

Examples::

    .venv/bin/python bench/recipe_speed.py --data /work/data/pubmed                 # ~10 min
    .venv/bin/python bench/recipe_speed.py --data DIR --recipes pubmed-model0 --rounds 1 --steps 3
    .venv/bin/python bench/recipe_speed.py --data DIR --at 5d079d6 --profile        # + torch.profiler table
    .venv/bin/python bench/recipe_speed.py --data DIR --threads-compare             # 1 x 2 threads vs 2 x 1
    .venv/bin/python bench/recipe_speed.py --data DIR --recipes pubmed-model3 --paired   # both trees at once
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TREES = Path.home() / ".cache" / "c2fsum-bench" / "trees"


def tree_at(rev: str) -> Path:
    """A checkout of ``rev`` (a ``git worktree`` made once and kept)."""
    sha = subprocess.run(["git", "rev-parse", rev], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    path = TREES / sha[:12]
    if not (path / "src" / "c2fsum").exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        add = ["git", "worktree", "add", "--detach", str(path), sha]
        subprocess.run(add, cwd=ROOT, check=True, capture_output=True)
    return path


def worker(args: argparse.Namespace) -> None:
    """In the tree's own process: time ``--steps`` training steps of one recipe; print one JSON line."""
    import torch

    from c2fsum.config import load_config
    from c2fsum.data.batching import bucketed_batches
    from c2fsum.training.trainer import Trainer

    torch.set_num_threads(args.threads)
    overrides = [
        "train.eval_every=0",
        f"train.threads={args.threads}",
        "data.val_holdout=0",
        *args.set,
    ]
    cfg = load_config(Path(args.tree) / "configs" / f"{args.recipe}.yaml", overrides)
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        trainer = Trainer(cfg, args.data, out, progress=False)
        ex = trainer.train_ex[: args.docs]
        lengths = [len(e.tgt) * 1000 + len(e.src) for e in ex]
        tc = cfg.train
        batches = bucketed_batches(
            len(ex), lengths, batch_size=tc.batch_size, bucket_size=cfg.data.bucket_size, seed=tc.seed, epoch=0
        )
        trainer.train_ex = ex
        trainer.model.train()
        times, tokens = [], []
        prof = None
        for i, idx in enumerate(batches[: args.warmup + args.steps]):
            if args.profile and i == args.warmup:
                prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])
                prof.__enter__()
            t0 = time.perf_counter()
            trainer.train_step(idx)
            dt = time.perf_counter() - t0
            if i >= args.warmup:
                times.append(dt)
                tokens.append(sum(len(ex[j].tgt) + 1 + len(ex[j].src) for j in idx))
        if prof is not None:
            prof.__exit__(None, None, None)
            print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25), file=sys.stderr)
        flops = step_flops(cfg, trainer, [batches[i] for i in range(args.warmup, args.warmup + args.steps)])
    print(json.dumps(dict(times=times, tokens=tokens, flops=flops, input_feed=cfg.model.input_feed)))


def step_flops(cfg, trainer, batches) -> float:
    """Mean multiply-add FLOPs (x2) of the matrix products of one training step, forward + backward
    (backward = 2x forward): encoder LSTM, decoder LSTM, attention scores and contexts, the
    output layer (and W_emb W_proj of shared weights), the chunk CNN over every word. Elementwise
    work (softmax, gates, the pointer's scatter) is not counted: it is memory-bound. Lazy MODEL 3
    counts the word encoder over every chunk a step could draw (an upper bound: the share of the
    peak it implies is a bound too)."""
    m, ex = cfg.model, trainer.train_ex
    V = len(trainer.vocab)
    H, E = m.hidden, m.emb_dim
    total = 0.0
    for idx in batches:
        f = 0.0
        for j in idx:
            S = len(ex[j].src) if cfg.data.chunks == 0 else min(len(ex[j].src), cfg.data.chunks * cfg.data.chunk_len)
            T = len(ex[j].tgt) + 1
            h_enc = H // 2 if m.bidirectional else H
            dirs = 2 if m.bidirectional else 1
            read = S
            if m.family == "model3" and m.lazy_fine:
                # at most every draw a new chunk: an upper bound (a trained policy draws far fewer)
                read = min(S, T * max(1, m.samples) * cfg.data.chunk_len)
            f += dirs * read * 4 * h_enc * (E + h_enc)  # encoder LSTM
            dec_in = E + (H if m.input_feed else 0)
            f += T * 4 * H * (dec_in + H)  # decoder LSTM
            att = S if m.family in ("model0", "model1", "model2") else max(1, m.samples) * cfg.data.chunk_len
            f += T * (H * H + 2 * att * H)  # W h_t, scores, context
            if m.family in ("model2", "model3"):
                M = -(-S // cfg.data.chunk_len)
                f += T * (H * m.chunk_filters + M * m.chunk_filters)  # coarse scores
                if m.chunk_encoder == "cnn":
                    f += S * m.chunk_width * E * m.chunk_filters  # chunk CNN over every word
            D = (H if m.output == "luong" else 2 * H) + (H if m.intra_decoder else 0)
            factorized = m.share_embeddings and getattr(m, "shared_output", "tanh") == "linear"
            f += T * (V * E + D * E) if factorized else T * V * D  # output layer (factorized: f W_proj^T, then W_emb)
            if m.intra_decoder:
                f += T * (H * H + T * H)
        total += 2 * f * 3  # multiply-adds x2, forward + backward
    D = (H if m.output == "luong" else 2 * H) + (H if m.intra_decoder else 0)
    if m.share_embeddings and getattr(m, "shared_output", "tanh") == "tanh":  # W_out = tanh(W_emb W_proj), per step
        total += len(batches) * 2 * 3 * V * E * D
    return total / max(len(batches), 1)


def sgemm_rate(threads: int) -> float:
    """FLOP/s of a 1000x1000 float32 product on ``threads`` threads (best of 20)."""
    import torch

    torch.set_num_threads(threads)
    a, b = torch.randn(1000, 1000), torch.randn(1000, 1000)
    best = float("inf")
    for _ in range(20):
        t0 = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t0)
    return 2e9 / best


def worker_cmd(args: argparse.Namespace, tree: Path, recipe: str, threads: int) -> tuple[list[str], dict]:
    """The command line and environment of one timing process."""
    cmd = [sys.executable, __file__, "--worker", "--tree", str(tree), "--recipe", recipe]
    cmd += ["--data", args.data, "--docs", str(args.docs), "--steps", str(args.steps)]
    cmd += ["--warmup", str(args.warmup), "--threads", str(threads)]
    cmd += [x for s in args.set for x in ("--set", s)] + (["--profile"] if args.profile else [])
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), OMP_NUM_THREADS=str(threads))
    return cmd, env


def run_paired(args: argparse.Namespace, trees: list[tuple[str, Path]], recipe: str) -> dict:
    """The two trees' workers at the same time, the first on CPU 0 and the second on CPU 1: both
    see the same machine (its neighbours, its memory bandwidth) at the same minutes, so a drift of
    the machine's speed over minutes, seen here as 2x on the same batch, cancels in their ratio."""
    procs = {}
    for cpu, (name, tree) in enumerate(trees):
        cmd, env = worker_cmd(args, tree, recipe, 1)
        procs[name] = subprocess.Popen(
            ["taskset", "-c", str(cpu), *cmd], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    rows = {}
    for name, pr in procs.items():
        out, err = pr.communicate()
        if pr.returncode != 0:
            raise SystemExit(f"{name} {recipe}: worker failed:\n{err[-3000:]}")
        rows[name] = json.loads(out.strip().splitlines()[-1])
    return rows


def threads_compare(args: argparse.Namespace) -> None:
    """One 2-thread process alone against two 1-thread processes at once, per recipe and round."""
    print(f"this tree ({ROOT}); data {args.data}, first {args.docs} papers; {os.cpu_count()} CPUs")
    summary: dict = {}
    for recipe in args.recipes.split(","):
        for rnd in range(args.rounds):
            order = ("2x1", "1x2") if rnd % 2 else ("1x2", "2x1")
            for mode in order:
                load = os.getloadavg()[0]
                n, threads = (1, 2) if mode == "1x2" else (2, 1)
                procs = []
                for _ in range(n):
                    cmd, env = worker_cmd(args, ROOT, recipe, threads)
                    procs.append(
                        subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                    )
                rates = []
                for pr in procs:
                    out, err = pr.communicate()
                    if pr.returncode != 0:
                        raise SystemExit(f"{recipe} {mode}: worker failed:\n{err[-3000:]}")
                    row = json.loads(out.strip().splitlines()[-1])
                    rates.append(sum(row["tokens"]) / sum(row["times"]))
                    med = statistics.median(row["times"])
                    print(
                        f"{recipe:14s} {mode} round {rnd} load {load:4.2f}  s/step {med:6.3f}  tok/s {rates[-1]:8.0f}"
                    )
                summary.setdefault((recipe, mode), []).append(sum(rates))
                print(f"{recipe:14s} {mode} round {rnd}: all runs together {sum(rates):8.0f} tok/s", flush=True)
    print()
    print("| recipe | one run, 2 threads: tok / s | two runs, 1 thread each: tok / s together | two runs / one |")
    print("| --- | ---: | ---: | ---: |")
    for recipe in args.recipes.split(","):
        one = statistics.mean(summary[(recipe, "1x2")])
        two = statistics.mean(summary[(recipe, "2x1")])
        print(f"| {recipe} | {one:,.0f} | {two:,.0f} | {two / one:.2f}x |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, help="a prepared SumPubMed folder (c2fsum prepare --all-highlights)")
    p.add_argument("--at", default="5d079d6", help="the earlier commit (default 5d079d6)")
    p.add_argument("--recipes", default="pubmed-model0,pubmed-model3", help="configs/NAME.yaml, comma-separated")
    p.add_argument("--docs", type=int, default=400, help="training papers the batches come from")
    p.add_argument("--steps", type=int, default=6, help="timed steps per process")
    p.add_argument("--warmup", type=int, default=1, help="untimed steps first")
    p.add_argument("--rounds", type=int, default=2, help="processes per tree and recipe, alternating")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1: the recipes' own)")
    p.add_argument("--set", action="append", default=[], help="extra KEY=VALUE overrides for both trees")
    p.add_argument("--profile", action="store_true", help="print a torch.profiler table per process (stderr)")
    p.add_argument("--threads-compare", action="store_true", help="one 2-thread run against two 1-thread runs")
    p.add_argument(
        "--paired", action="store_true", help="run the two trees at once, one core each (a drifting machine)"
    )
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--tree", help=argparse.SUPPRESS)
    p.add_argument("--recipe", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args)
        return
    if args.threads_compare:
        threads_compare(args)
        return
    trees = {"old": tree_at(args.at), "new": ROOT}
    print(f"old: {args.at} ({trees['old']}); new: this tree ({ROOT}); data {args.data}, first {args.docs} papers")
    peak = sgemm_rate(args.threads)
    print(f"sgemm 1000^3 on {args.threads} thread(s): {peak / 1e9:.1f} GFLOP/s")
    results: dict = {}
    for recipe in args.recipes.split(","):
        for rnd in range(args.rounds):
            names = ("old", "new") if rnd % 2 == 0 else ("new", "old")
            load = os.getloadavg()[0]
            if args.paired:  # both at once, each on a core of its own (CPU 0 and 1, swapped each round)
                rows = run_paired(args, [(name, trees[name]) for name in names], recipe)
                tok = {n: sum(rows[n]["tokens"]) / sum(rows[n]["times"]) for n in names}
                print(f"{recipe:14s} paired round {rnd}  load {load:4.2f}  new / old {tok['new'] / tok['old']:.2f}x")
            for name in names:
                if args.paired:
                    row = rows[name]
                else:
                    load = os.getloadavg()[0]
                    cmd, env = worker_cmd(args, trees[name], recipe, args.threads)
                    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
                    if r.returncode != 0:
                        raise SystemExit(f"{name} {recipe}: worker failed:\n{r.stderr[-3000:]}")
                    if args.profile:
                        print(r.stderr[-6000:])
                    row = json.loads(r.stdout.strip().splitlines()[-1])
                results.setdefault((recipe, name), []).append(row)
                med = statistics.median(row["times"])
                tok = sum(row["tokens"]) / sum(row["times"])
                print(
                    f"{recipe:14s} {name}  round {rnd}  load {load:4.2f}  s/step {med:6.3f}  tok/s {tok:8.0f}"
                    f"  (steps {', '.join(f'{t:.2f}' for t in row['times'])})",
                    flush=True,
                )
    print()
    print("| recipe | tree | input feeding | s / step | src+tgt tok / s | GFLOP / step | share of sgemm peak |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for recipe in args.recipes.split(","):
        tok_s = {}
        for name in ("old", "new"):
            rows = results[(recipe, name)]
            times = [t for r in rows for t in r["times"]]
            tokens = [t for r in rows for t in r["tokens"]]
            tok_s[name] = sum(tokens) / sum(times)
            med = statistics.median(times)
            flops = rows[0]["flops"]
            print(
                f"| {recipe} | {name} | {rows[0]['input_feed']} | {med:.3f} | {tok_s[name]:,.0f} | {flops / 1e9:.1f} "
                f"| {flops / med / peak:.0%} |"
            )
        print(f"| {recipe} | new / old | | | {tok_s['new'] / tok_s['old']:.2f}x | | |")


if __name__ == "__main__":
    main()
