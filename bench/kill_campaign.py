#!/usr/bin/env python3
"""SIGKILL campaign: real training runs killed at seeded random moments, then resumed to the end.

Each kill starts a fresh run of ``c2fsum train`` (a subprocess, the command line as a user runs
it) of MODEL 0 (``configs/model0-cpu.yaml``) or lazy MODEL 3 (``configs/model3-cpu.yaml`` with
``model.lazy_fine=true``: the word-level LSTM reads only the sampled chunks in training), shrunk
to a tiny size and validating and checkpointing after *every* step, so that validation and
checkpoint writes take most of each step. The moment of the kill is one of (seeded, shuffled):

    time        a uniform random delay after the run's first log row, up to the time the
                uninterrupted run took from its first to its last log row (anywhere in the loop)
    validation  right after the training row of step k appears in metrics.jsonl (validation of
                step k runs next), plus 0-20 ms
    checkpoint  right when the temporary folder of the ``best`` or ``last`` checkpoint of step k
                appears in the run directory (``.best.*.tmp`` / ``.last.*.tmp``), plus 0-3 ms

Nothing is added to the trainer: the driver polls the run directory (about every 0.2 ms) and
sends SIGKILL itself. After each kill it classifies where the kill landed from what is on disk,
verifies every checkpoint the loaders would use (``verify_checkpoint`` + ``load_checkpoint``;
a failure counts as an unreadable checkpoint), then runs ``c2fsum train --resume`` (a plain
start when no checkpoint exists yet) to the last step and compares ``last/`` and ``best/``
``model.safetensors`` with the uninterrupted run of the same model, tensor by tensor with
``torch.equal`` (CPU, one thread: the resume is specified to be bit for bit), and the logged
rows (``metrics.jsonl`` without the timing column) with the uninterrupted run's.

Prints one table row per kill, then the counts::

    kills: 20 of 20 planned (model0 10, model3-lazy 10)
    landed: 7 validation, 5 writing last/, ...
    unreadable checkpoints after the kills: 0
    resumed runs with the parameters of the uninterrupted run: 20 of 20 (last/, best/)
    resumed runs equal in every respect: 19 of 20 (also metrics.jsonl rows ...)

Exit status 1 if a checkpoint was unreadable or a resumed run differs.

Example (about 6 minutes on 2 busy cores; set OMP_NUM_THREADS=1)::

    OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python bench/kill_campaign.py
    .venv/bin/python bench/kill_campaign.py --kills 4 --seed 3 --work /tmp/kc   # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STEPS = 16
# 40 corpus documents in batches of 8: 5 batches an epoch, so 16 steps cross three epoch ends
sys.path.insert(0, str(ROOT / "tests"))
import tiny  # noqa: E402  (tests/tiny.py: the one definition of the tiny models' sizes)

SETS = [*tiny.CAMPAIGN, "train.eval_every=1", "train.log_every=1", "train.seed=11"]
MODELS = {
    "model0": (ROOT / "configs" / "model0-cpu.yaml", []),
    "model3-lazy": (ROOT / "configs" / "model3-cpu.yaml", ["model.lazy_fine=true"]),
}
TIMING_KEYS = ("tgt_tokens_per_s",)


def train_cmd(model: str, data: Path, out: Path, resume: bool) -> list[str]:
    preset, extra = MODELS[model]
    cmd = [sys.executable, "-m", "c2fsum", "-q", "train", "--config", str(preset), "--data", str(data)]
    cmd += ["--out", str(out), "--max-steps", str(STEPS), "--set", *SETS, *extra]
    return cmd + (["--resume"] if resume else [])


def run_to_end(model: str, data: Path, out: Path, resume: bool) -> float:
    """Train (or resume) to the last step; the seconds from the first to the last log row."""
    p = subprocess.Popen(train_cmd(model, data, out, resume), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    metrics, first, last, size = out / "metrics.jsonl", None, None, 0
    while p.poll() is None:
        new = metrics.stat().st_size if metrics.exists() else 0
        if new > size:
            now = time.monotonic()
            first, last, size = first or now, now, new
        time.sleep(0.002)
    err = p.stderr.read().decode(errors="replace") if p.stderr else ""
    if p.returncode != 0:
        raise SystemExit(f"{out}: c2fsum train{' --resume' if resume else ''} failed ({p.returncode}):\n{err}")
    return (last - first) if first is not None and last is not None else 0.0


def log_rows(out: Path) -> list[dict]:
    """Complete rows of metrics.jsonl (a row cut by the kill is left out)."""
    path = out / "metrics.jsonl"
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return rows


@dataclass
class Kill:
    n: int
    model: str
    moment: str
    step: int
    delay_ms: float
    target: str = ""
    fired: bool = False
    landed: str = ""
    ckpt_step: int | None = None
    unreadable: list[str] = field(default_factory=list)
    resumed_from: str = ""
    last_equal: bool | None = None
    best_equal: bool | None = None
    logs_equal: bool | None = None
    detail: str = ""


def plan(kills: int, seed: int) -> list[Kill]:
    """Seeded moments: models alternate; moments shuffled so each kind gets about a third."""
    rnd = random.Random(seed)
    kinds = (["time", "validation", "checkpoint"] * kills)[:kills]
    rnd.shuffle(kinds)
    out = []
    for i, kind in enumerate(kinds):
        model = list(MODELS)[i % len(MODELS)]
        step = rnd.randint(1, STEPS - 1)
        if kind == "time":
            delay = rnd.uniform(0.0, 1.0)  # a fraction of the uninterrupted run's training time
        elif kind == "validation":
            delay = rnd.uniform(0.0, 20.0)
        else:
            delay = rnd.uniform(0.0, 3.0)
        k = Kill(i + 1, model, kind, step, delay)
        if kind == "checkpoint":
            k.target = rnd.choice(["best", "last"])
        out.append(k)
    return out


def fire(k: Kill, model_time: float, data: Path, out: Path) -> None:
    """Start a fresh run and SIGKILL it at ``k``'s moment (polling the run directory)."""
    p = subprocess.Popen(train_cmd(k.model, data, out, False), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    metrics = out / "metrics.jsonl"
    seen_size, rows_text, first_row_at, armed_at = -1, "", None, None
    want = f'"split": "train", "step": {k.step},'
    try:
        while p.poll() is None:
            now = time.monotonic()
            try:
                size = metrics.stat().st_size
            except FileNotFoundError:
                size = 0
            if size != seen_size:
                seen_size = size
                rows_text = metrics.read_text(encoding="utf-8", errors="replace") if size else ""
                if rows_text and first_row_at is None:
                    first_row_at = now
            if k.moment == "time":
                if first_row_at is not None and now - first_row_at >= k.delay_ms * model_time:
                    break
            elif armed_at is None:
                if want in rows_text:
                    armed_at = now
            elif k.moment == "validation":
                if now - armed_at >= k.delay_ms / 1000:
                    break
            else:  # checkpoint: the temporary folder of the target appears
                if any(name.startswith(f".{k.target}.") and name.endswith(".tmp") for name in os.listdir(out)):
                    if k.delay_ms > 0:
                        time.sleep(k.delay_ms / 1000)
                    break
            time.sleep(0.0002)
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            k.fired = True
    finally:
        p.wait()
        if p.stderr is not None:
            err = p.stderr.read().decode(errors="replace")
            p.stderr.close()
            if not k.fired and p.returncode != 0:
                raise SystemExit(f"kill {k.n}: the run failed before the kill:\n{err}")


def inspect(k: Kill, out: Path) -> None:
    """Where the kill landed, and whether every checkpoint a loader would use is readable."""
    from c2fsum.models.checkpoint import load_checkpoint, read_json, verify_checkpoint
    from c2fsum.utils.io import existing_checkpoint_dir

    names = set(os.listdir(out)) if out.exists() else set()
    tmps = sorted(n.split(".")[1] for n in names if n.startswith(".") and n.endswith(".tmp") and "." in n[1:])
    steps = {}
    for name in ("last", "best"):
        d = existing_checkpoint_dir(out / name)
        if d is None:
            continue
        try:
            verify_checkpoint(d)
            load_checkpoint(d)
            steps[name] = read_json(d / "trainer.json")["position"]["step"]
        except Exception as e:  # any failure here is the campaign's finding
            k.unreadable.append(f"{d.name}: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
    k.ckpt_step = steps.get("last")
    rows = log_rows(out)
    last = rows[-1] if rows else None
    ck = k.ckpt_step or 0
    swaps = [n for n in ("last", "best") if f"{n}.old" in names]
    if tmps:
        k.landed = f"writing {'+'.join(tmps)}/ (temporary folder)"
    elif swaps:
        n = swaps[0]
        k.landed = f"swap of {n}/ ({'deleting' if n in names else 'between the renames of'} {n}.old)"
    elif last is None:
        k.landed = "start-up (no log row yet)" if not names - {"metrics.jsonl", "config.json"} else "step 1"
    elif last["split"] == "train" and last["step"] > ck:
        k.landed = f"validation of step {last['step']}"
    elif last["split"] == "val" and last["step"] > ck:
        k.landed = f"after validation of step {last['step']}, before its checkpoints were done"
    elif ck >= STEPS:
        k.landed = f"shut-down (after the final checkpoint, step {ck})"
    else:
        k.landed = f"training step {ck + 1}"


def same_tensors(a: Path, b: Path) -> tuple[bool, str]:
    import torch
    from safetensors.torch import load_file

    ta, tb = load_file(str(a)), load_file(str(b))
    if set(ta) != set(tb):
        return False, f"tensor names differ: {sorted(set(ta) ^ set(tb))[:4]}"
    diffs = {n: float((ta[n].double() - tb[n].double()).abs().max()) for n in ta if not torch.equal(ta[n], tb[n])}
    if diffs:
        worst = max(diffs, key=lambda n: diffs[n])
        return False, f"{len(diffs)} of {len(ta)} tensors differ (max abs diff {diffs[worst]:.3g} in {worst})"
    return True, ""


def comparable(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in TIMING_KEYS} for r in rows]


def compare(k: Kill, out: Path, ref: Path) -> None:
    notes = []
    for name in ("last", "best"):
        ok, why = same_tensors(out / name / "model.safetensors", ref / name / "model.safetensors")
        setattr(k, f"{name}_equal", ok)
        if not ok:
            notes.append(f"{name}: {why}")
    a, b = comparable(log_rows(out)), comparable(log_rows(ref))
    k.logs_equal = a == b
    if not k.logs_equal:
        first = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        notes.append(f"log rows differ from row {first + 1} ({len(a)} vs {len(b)} rows)")
    left = sorted(n for n in os.listdir(out) if n.endswith((".tmp", ".old")))
    if left:
        notes.append(f"left over after the resume: {left}")
    k.detail = "; ".join(notes)


def yes(v: bool | None) -> str:
    return "-" if v is None else ("=" if v else "DIFF")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=20, help="number of kills, alternating the models (20)")
    ap.add_argument("--seed", type=int, default=27, help="seed of the moments (27)")
    ap.add_argument("--work", help="working folder (default: a temporary one, removed at the end)")
    a = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    work = Path(a.work) if a.work else Path(tempfile.mkdtemp(prefix="kill_campaign."))
    work.mkdir(parents=True, exist_ok=True)
    try:
        data = work / "data"
        if not (data / "vocab.txt").exists():
            subprocess.run(
                [sys.executable, "-m", "c2fsum", "-q", "prepare", "--input", str(ROOT / "tests" / "data" / "corpus")]
                + ["--output", str(data), "--vocab-size", "500", "--workers", "1"],
                check=True,
                capture_output=True,
            )
        refs, model_time = {}, {}
        for model in MODELS:
            ref = work / f"ref-{model}"
            shutil.rmtree(ref, ignore_errors=True)
            # "time" kills fall between the first and the last log row of the uninterrupted run
            model_time[model] = run_to_end(model, data, ref, resume=False)
            refs[model] = ref
            print(f"uninterrupted {model}: {len(log_rows(ref))} log rows in {model_time[model]:.1f} s", flush=True)
        kills = plan(a.kills, a.seed)
        header = "| # | model | moment (planned) | landed | ckpt step | unreadable | resumed | last | best | logs |"
        print(header)
        print("|" + "---|" * (header.count("|") - 1))
        for k in kills:
            out = work / f"kill-{k.n:02d}-{k.model}"
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir(parents=True)
            fire(k, model_time[k.model], data, out)
            if not k.fired:
                k.landed = "run ended before the moment (no kill)"
            inspect(k, out)
            from c2fsum.utils.io import existing_checkpoint_dir

            resume = existing_checkpoint_dir(out / "last") is not None
            k.resumed_from = f"step {k.ckpt_step}" if resume else "fresh start"
            run_to_end(k.model, data, out, resume=resume)
            compare(k, out, refs[k.model])
            planned = {
                "time": f"time +{k.delay_ms * model_time[k.model]:.2f} s",
                "validation": f"validation step {k.step} +{k.delay_ms:.0f} ms",
                "checkpoint": f"{k.target}/ of step {k.step} +{k.delay_ms:.1f} ms",
            }[k.moment]
            print(
                f"| {k.n} | {k.model} | {planned} | {k.landed} | {k.ckpt_step if k.ckpt_step is not None else '-'} "
                f"| {len(k.unreadable)} | {k.resumed_from} | {yes(k.last_equal)} | {yes(k.best_equal)} "
                f"| {yes(k.logs_equal)} |",
                flush=True,
            )
            for why in [*k.unreadable, *([k.detail] if k.detail else [])]:
                print(f"    kill {k.n}: {why}", flush=True)
        fired = [k for k in kills if k.fired]
        unreadable = sum(len(k.unreadable) for k in kills)
        params = [k for k in kills if k.last_equal and k.best_equal]
        equal = [k for k in kills if k.last_equal and k.best_equal and k.logs_equal and not k.detail]
        per_model = ", ".join(f"{m} {sum(1 for k in fired if k.model == m)}" for m in MODELS)
        kinds: dict[str, int] = {}
        for k in fired:
            key = re.sub(r" (of )?step \d+", "", k.landed.split(" (")[0])
            kinds[key] = kinds.get(key, 0) + 1
        print()
        print(f"kills: {len(fired)} of {len(kills)} planned ({per_model})")
        print("landed: " + ", ".join(f"{v} {k}" for k, v in sorted(kinds.items(), key=lambda x: -x[1])))
        print(f"unreadable checkpoints after the kills: {unreadable}")
        print(f"resumed runs with the parameters of the uninterrupted run: {len(params)} of {len(kills)} (last/ best/)")
        print(
            f"resumed runs equal in every respect: {len(equal)} of {len(kills)} "
            "(also metrics.jsonl rows without timing equal, nothing left over)"
        )
        return 0 if unreadable == 0 and len(equal) == len(kills) and len(fired) == len(kills) else 1
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
