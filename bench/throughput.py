#!/usr/bin/env python3
"""c2fsum vs OpenNMT-py, side by side from one run: training tokens/s and beam-5 summaries/s.

For each size (``paper``: the paper's MODEL 0, 2x500 LSTM, 300-d embeddings; ``cpu``: 1x256 LSTM,
128-d embeddings; both with 400-word sources, 15-word targets, vocabulary 50,000, batch 20, beam 5)
and each round, it runs OpenNMT-py 3.5.1 (``../shared/bench/onmt_bench.sh``, which builds the
peer's own venv on first use) and c2fsum (``bench/speed.py``) one after the other, alternating
which goes first, so both see the same machine. Each run writes its ``name: value`` log to
``--out``; this script then prints

* a side-by-side table: medians (min-max) over the timed steps / decode batches / repeats of
  all rounds, peak memory, GEMM GFLOP/s and the load average around each run;
* the same figures for c2fsum's MODEL 3 with lazy chunk encoding (``speed.py --family model3
  --lazy-train``, same data, step and batches; CNN chunk encoder, and the bag-of-words one with
  ``--model3-bow``), measured in the same rounds, beside the fraction of source words that went
  through the word-level LSTM (training and decoding) and MODEL 3 / MODEL 0 ratios;
* one ``name: value`` line per figure, e.g. ``train_tok_per_s_c2fsum_paper``,
  ``train_tok_per_s_onmt_paper``, ``decode_summaries_per_s_c2fsum_cpu``,
  ``train_tok_per_s_c2fsum_model3_cpu``, ``fine_fraction_train_model3_cpu``, and the ratios.

MODEL 3 encodes only the chunks its hard attention picks, so its speed depends on how spread its
policy is: untrained weights pick nearly every chunk over 16 target words. ``--model3-init
SIZE=state_dict.pt`` also measures a trained model (``bench/train_policy.py`` makes one).

Usage::

    bench/throughput --quick            # one round, short runs: < 15 min on 2 cores
    bench/throughput                    # 2 rounds, longer runs (~35 min)
    bench/throughput --sizes cpu --rounds 3 --threads 2

``--threads`` (default 1) sets the threads of both sides: on this shared 2-core machine a
2-thread run slows down several-fold as soon as any other process wants a core, so 1 thread
gives the fairer ratios; ``--threads 2`` measures the quiet-machine figures.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import speed  # noqa: E402  (bench/speed.py: where trained policies live, their settings; imports no torch)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PEER = Path(os.environ.get("PEER", REPO.parent / "shared" / "bench"))
SIZES = {size: config for config, size in speed.SIZE_OF_CONFIG.items()}  # paper -> model0, cpu -> small
SIDE_NAMES = {
    "onmt": "OpenNMT-py 3.5.1",
    "c2fsum": "c2fsum MODEL 0",
    "model3": "c2fsum MODEL 3, lazy (CNN chunks)",
    "model3bow": "c2fsum MODEL 3, lazy (BOW chunks)",
    "model3trained": "c2fsum MODEL 3, lazy, trained policy (--model3-init)",
}


def init_label(path: str) -> str:
    """Name of a ``--model3-init`` row from the settings saved in the weights (bench/train_policy.py)."""
    try:
        meta = speed.init_metadata(path)
    except Exception as ex:  # noqa: BLE001  (a label only; speed.py reports the real error)
        return f"{SIDE_NAMES['model3trained']} ({type(ex).__name__})"
    pos = ", +POS" if int(meta.get("pos_dim", "0")) else ""
    enc = meta.get("chunk_encoder", "cnn").upper()
    return f"c2fsum MODEL 3, lazy ({enc} chunks{pos}), trained policy ({meta.get('steps', '?')} steps)"


# (steps, report_every or warmup, decode sources, decode reps) per mode, size and side
RUNS = {
    "quick": {
        "paper": {
            "onmt": ["--steps", "12", "--report-every", "3", "--decode-n", "60", "--decode-reps", "1"],
            "c2fsum": ["--steps", "6", "--warmup", "2", "--decode-n", "60"],
        },
        "cpu": {
            "onmt": ["--steps", "40", "--report-every", "5", "--decode-n", "100", "--decode-reps", "1"],
            "c2fsum": ["--steps", "20", "--warmup", "3", "--decode-n", "100"],
        },
    },
    "full": {
        "paper": {
            "onmt": ["--steps", "30", "--report-every", "5", "--decode-n", "200", "--decode-reps", "1"],
            "c2fsum": ["--steps", "15", "--warmup", "3", "--decode-n", "200"],
        },
        "cpu": {
            "onmt": ["--steps", "100", "--report-every", "10", "--decode-n", "200", "--decode-reps", "1"],
            "c2fsum": ["--steps", "50", "--warmup", "3", "--decode-n", "200"],
        },
    },
}
NUM = r"([0-9.]+)"
SUMMARY_RE = re.compile(rf"^{NUM} \(min {NUM}, max {NUM}, n=(\d+)\)")


def loadavg() -> str:
    return open("/proc/loadavg").read().split()[0]


def read_log(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if ": " in line and not line.startswith(" "):
            k, v = line.split(": ", 1)
            out.setdefault(k.strip(), v.strip())
    return out


def triple(value: str | None) -> tuple[float, float, float] | None:
    """``'m (min a, max b, n=k)'`` or ``'m ...'`` -> (median, min, max)."""
    if not value:
        return None
    m = SUMMARY_RE.match(value)
    if m:
        return float(m.group(1)), float(m.group(2)), float(m.group(3))
    try:
        x = float(value.split()[0])
    except ValueError:
        return None
    return x, x, x


def figures(log: dict[str, str], side: str) -> dict[str, tuple[float, float, float] | None]:
    """The figures compared, from one run's log, as (median, min, max)."""
    dec = triple(log.get("decode_summaries_per_s"))
    if side == "c2fsum" and dec is not None:  # overall rate; min-max over batches
        per_batch = triple(log.get("decode_summaries_per_s_per_batch"))
        if per_batch:
            dec = (dec[0], per_batch[1], per_batch[2])
    return {
        "train_tok_per_s": triple(log.get("train_tok_per_s")),
        "train_sec_per_step": triple(log.get("train_sec_per_step")),
        "train_gflops": triple(log.get("train_achieved_gflops")),
        "train_peak_rss_mib": triple(log.get("train_peak_rss_mib")),
        "train_fine_fraction": triple(log.get("train_fine_fraction")),
        "decode_fine_fraction": triple(log.get("decode_fine_fraction")),
        "decode_summaries_per_s": dec,
        "decode_peak_rss_mib": triple(log.get("decode_peak_rss_mib")),
        "train_flop_step": triple(log.get("train_flop_model_gflop_per_step")),
        "decode_flop_summary": triple(log.get("decode_flop_model_gflop_per_summary")),
    }


def pool(runs: list[dict]) -> dict[str, tuple[float, float, float] | None]:
    """Median of the runs' medians, min of their mins, max of their maxes."""
    out = {}
    for k in runs[0]:
        vals = [r[k] for r in runs if r[k] is not None]
        out[k] = (
            (statistics.median(v[0] for v in vals), min(v[1] for v in vals), max(v[2] for v in vals)) if vals else None
        )
    return out


def fmt(v: tuple[float, float, float] | None, spec: str) -> str:
    if v is None:
        return "n/a"
    med, lo, hi = v
    if lo == hi:
        return f"{med:{spec}}"
    return f"{med:{spec}} ({lo:{spec}}-{hi:{spec}})"


def run(cmd: list[str], log: Path, env: dict[str, str]) -> tuple[float, str, str]:
    la0 = loadavg()
    t0 = time.monotonic()
    with open(log, "w") as f:
        proc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, check=False)
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        print(f"!! {' '.join(cmd[:3])} ... failed (exit {proc.returncode}); log: {log}", flush=True)
    return wall, la0, loadavg()


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="one round of short runs (< 15 min)")
    ap.add_argument("--rounds", type=int, default=None, help="rounds per size (default: quick 1, full 2)")
    ap.add_argument("--sizes", default="paper,cpu", help="comma-separated: paper, cpu (default %(default)s)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads of both sides (default %(default)s)")
    ap.add_argument(
        "--wait-quiet",
        type=int,
        default=None,
        help="each run first waits up to this many s for a quiet machine (default: quick 5, full 30)",
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder of the runs' logs (default ~/.cache/c2fsum-bench/throughput/DATE)",
    )
    ap.add_argument("--python", default=sys.executable, help="Python of c2fsum's venv (default: this one)")
    ap.add_argument("--no-model3", action="store_true", help="skip MODEL 3 (lazy chunk encoding)")
    ap.add_argument("--model3-bow", action="store_true", help="also MODEL 3 with the bag-of-words chunk encoder")
    ap.add_argument(
        "--model3-init",
        action="append",
        default=[],
        metavar="SIZE=PATH",
        help="also MODEL 3 from these weights for SIZE, e.g. cpu=policy-cpu.safetensors (bench/train_policy.py; "
        "the chunk encoder and +POS come with the weights; default: ~/.cache/c2fsum-bench/policies/SIZE.safetensors "
        "when it exists)",
    )
    ap.add_argument(
        "--model3-init-lr",
        type=float,
        default=0.05,
        help="SGD learning rate of the timed steps from --model3-init weights (default %(default)s: the "
        "benchmark's lr 1 would move a policy trained with Adam away from what it learned)",
    )
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    mode = "quick" if args.quick else "full"
    rounds = args.rounds or (1 if args.quick else 2)
    wait = args.wait_quiet if args.wait_quiet is not None else (5 if args.quick else 30)
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    for s in sizes:
        if s not in SIZES:
            raise SystemExit(f"--sizes: got {s!r}, expected paper and/or cpu")
    if not (PEER / "onmt_bench.sh").exists():
        raise SystemExit(f"OpenNMT-py peer scripts not found at {PEER} (set PEER=...)")
    out = args.out or Path.home() / ".cache" / "c2fsum-bench" / "throughput" / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    env = dict(
        os.environ,
        PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
        OMP_NUM_THREADS=str(args.threads),
    )
    t_start = time.monotonic()
    print(f"# bench/throughput ({mode}, {rounds} round(s), {args.threads} thread(s) each side), logs in {out}")
    print(f"# machine: {os.cpu_count()} cores, load average at start {open('/proc/loadavg').read().strip()}")
    inits = dict(x.split("=", 1) for x in args.model3_init)
    labels: dict[str, str] = {}  # size -> name of the trained-policy row
    for size in sizes:  # weights left by bench/train_policy.py in its default place
        if size not in inits and speed.policy_path(SIZES[size]).is_file():
            inits[size] = str(speed.policy_path(SIZES[size]))
            print(f"# MODEL 3 trained policy for {size}: {inits[size]} (bench/train_policy.py)")
    for size, path in inits.items():
        if size not in SIZES or not Path(path).is_file():
            raise SystemExit(f"--model3-init {size}={path}: expected paper|cpu=an existing file")
        labels[size] = init_label(path)
    model3 = [] if args.no_model3 else ["model3"] + (["model3bow"] if args.model3_bow else [])
    if inits and not args.no_model3:
        model3.append("model3trained")
    sides = ["onmt", "c2fsum", *model3]
    results: dict[str, dict[str, list]] = {s: {side: [] for side in sides} for s in sizes}
    loads: dict[str, dict[str, list[str]]] = {s: {side: [] for side in sides} for s in sizes}
    for r in range(1, rounds + 1):
        for i, size in enumerate(sizes):
            order = ["onmt", "c2fsum"] if (r + i) % 2 else ["c2fsum", "onmt"]
            order += model3 if (r + i) % 2 else model3[::-1]
            for side in order:
                common = ["--config", SIZES[size], "--threads", str(args.threads), "--wait-quiet", str(wait)]
                if r > 1 or side != order[0]:
                    common.append("--no-sgemm")  # the sgemm peak is probed once per size
                if side == "onmt":
                    cmd = ["bash", str(PEER / "onmt_bench.sh"), *common, *RUNS[mode][size]["onmt"]]
                else:
                    cmd = [args.python, str(HERE / "speed.py"), *common, *RUNS[mode][size]["c2fsum"]]
                if side.startswith("model3"):
                    cmd += ["--family", "model3", "--lazy-train"]
                    if side == "model3bow":
                        cmd += ["--chunk-encoder", "bow"]
                    elif side == "model3trained":
                        if size not in inits:
                            continue
                        cmd += ["--init", inits[size], "--lr", str(args.model3_init_lr)]
                log = out / f"{size}-{r}-{side}.txt"
                print(f"# round {r}, {size}, {side}: running ... ", end="", flush=True)
                wall, la0, la1 = run(cmd, log, env)
                print(f"{wall:.0f} s (load average {la0} -> {la1})", flush=True)
                results[size][side].append(figures(read_log(log), side))
                loads[size][side].append(f"{la0}->{la1}")
                results[size].setdefault("logs", []).append(read_log(log))

    # -- side by side ------------------------------------------------------------------------------
    print()
    print(
        "| size | system | train tok/s | train s/step | train GFLOP/s | peak RSS train MiB "
        "| decode summaries/s | peak RSS decode MiB | fine fraction train / decode | load avg (1 min) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    final: list[tuple[str, str]] = []
    for size in sizes:
        pooled = {}
        for side in sides:
            runs = results[size][side]
            if not runs:
                continue
            p = pooled[side] = pool(runs)
            fine = (
                "1 / 1"
                if side in ("onmt", "c2fsum")
                else (f"{fmt(p['train_fine_fraction'], '.3f')} / {fmt(p['decode_fine_fraction'], '.3f')}")
            )
            name = labels[size] if side == "model3trained" else SIDE_NAMES[side]
            print(
                f"| {size} | {name} | {fmt(p['train_tok_per_s'], ',.0f')} "
                f"| {fmt(p['train_sec_per_step'], '.3f')} "
                f"| {fmt(p['train_gflops'], '.1f')} "
                f"| {fmt(p['train_peak_rss_mib'], '.0f')} "
                f"| {fmt(p['decode_summaries_per_s'], '.2f')} | {fmt(p['decode_peak_rss_mib'], '.0f')} "
                f"| {fine} | {', '.join(loads[size][side])} |"
            )
        for side in ("c2fsum", "onmt"):
            p = pooled.get(side, {})
            for key, label in (
                ("train_tok_per_s", "train_tok_per_s"),
                ("decode_summaries_per_s", "decode_summaries_per_s"),
                ("train_peak_rss_mib", "train_peak_rss_mib"),
                ("decode_peak_rss_mib", "decode_peak_rss_mib"),
            ):
                v = p.get(key)
                final.append((f"{label}_{side}_{size}", "n/a" if v is None else f"{v[0]:.2f}"))
        for key, label in (("train_tok_per_s", "train_speedup"), ("decode_summaries_per_s", "decode_speedup")):
            a, b = pooled.get("c2fsum", {}).get(key), pooled.get("onmt", {}).get(key)
            final.append((f"{label}_vs_onmt_{size}", f"{a[0] / b[0]:.2f}" if a and b else "n/a"))
        for side in model3:
            p = pooled.get(side, {})
            for key in (
                "train_tok_per_s",
                "decode_summaries_per_s",
                "train_peak_rss_mib",
                "decode_peak_rss_mib",
            ):
                v = p.get(key)
                final.append((f"{key}_c2fsum_{side}_{size}", "n/a" if v is None else f"{v[0]:.2f}"))
            for key in ("train_fine_fraction", "decode_fine_fraction"):
                v = p.get(key)
                final.append((f"{key}_{side}_{size}", "n/a" if v is None else f"{v[0]:.3f}"))
            for key, label in (("train_tok_per_s", "train_speedup"), ("decode_summaries_per_s", "decode_speedup")):
                a, b = p.get(key), pooled.get("c2fsum", {}).get(key)
                final.append((f"{label}_{side}_vs_model0_{size}", f"{a[0] / b[0]:.2f}" if a and b else "n/a"))
            # the speed-up the FLOP model allows at the measured fine fraction (work, not speed)
            for key, label in (("train_flop_step", "train"), ("decode_flop_summary", "decode")):
                a, b = p.get(key), pooled.get("c2fsum", {}).get(key)
                final.append(
                    (f"{label}_flop_ratio_model0_over_{side}_{size}", f"{b[0] / a[0]:.2f}" if a and b else "n/a")
                )
        peak = next(
            (log.get("peak_gflops_env") for log in results[size].get("logs", []) if log.get("peak_gflops_env")), None
        )
        if peak:
            final.append((f"sgemm_peak_gflops_{size}", peak.split()[0]))
            gf = pooled.get("c2fsum", {}).get("train_gflops")
            if gf:
                final.append((f"train_fraction_of_sgemm_peak_c2fsum_{size}", f"{gf[0] / float(peak.split()[0]):.2f}"))
            gf = pooled.get("onmt", {}).get("train_gflops")
            if gf:
                final.append((f"train_fraction_of_sgemm_peak_onmt_{size}", f"{gf[0] / float(peak.split()[0]):.2f}"))
    print()
    print(
        "Medians over the timed steps (c2fsum) / log intervals (OpenNMT-py) and decode batches / reps of "
        "all rounds, (min-max); tokens = source + target incl. </s>; decode = beam 5, exactly 15 tokens. "
        "GFLOP/s: GEMM work in the peers' FLOP model (bench/speed.py family_flops adds the chunk encoder, "
        "coarse attention and the fine fraction for MODEL 3). Fine fraction: share of source words run "
        "through the word-level LSTM; *_flop_ratio_model0_over_*: MODEL 0's FLOPs over MODEL 3's, the "
        "speed-up the work allows."
    )

    print()
    final.append(("threads", str(args.threads)))
    final.append(("rounds", str(rounds)))
    final.append(("loadavg_1m_end", loadavg()))
    final.append(("wall_s", f"{time.monotonic() - t_start:.0f}"))
    for k, v in final:
        print(f"{k}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
