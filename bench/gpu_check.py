#!/usr/bin/env python3
"""The Python half of ``bench/gpu_check.sh`` (run that; see its header for what is checked).

Stages, each printing ``CHECK <name>: PASS|FAIL <facts>`` lines that the shell script collects:

``--stage families``
    For each family (MODEL 0, 1, 2, lazy MODEL 3, paulus-ml and -rl, select-rewrite's selector trained
    on labels and with its REINFORCE objective) at its ``-cpu`` preset's sizes:
    train ``--steps``/2 steps with ``train.amp=bf16`` on ``--device``, resume (``Trainer(...,
    resume=True)``, the code path of ``c2fsum train --resume``) to ``--steps``, check the position,
    finite weights and validation perplexity, print tokens/s (source + target tokens of the steps
    over their wall time, from the checkpoint's ``trainer.json``); decode the 10 test documents on
    ``--device`` (beam 3) and print summaries/s. Then the float32 agreement: a small model of the
    family trained ``--agree-steps`` steps on CPU (float32) is decoded on CPU and on ``--device``
    from the same weights (greedy and beam 3, TF32 off): the tokens must be equal.
``--stage shipped``
    each shipped model (``--models``, by name) summarizes ``--papers`` (a JSONL file with an
    ``article`` field; default the test corpus) on CPU and on ``--device`` in float32 (TF32 off):
    the texts must be equal; prints seconds per paper on each.
``--stage nccl-probe`` (under torchrun)
    every rank joins a process group (NCCL on CUDA, gloo on CPU), all-reduces a tensor and checks
    the sum; rank 0 prints the all-reduce bandwidth of 64 MB.
``--stage ddp-report RUN``
    reads a run trained under torchrun and prints its steps and tokens/s.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = {
    "model0": ("model0-cpu.yaml", []),
    "model1": ("model1-cpu.yaml", []),
    "model2": ("model2-cpu.yaml", []),
    "model3-lazy": ("model3-cpu.yaml", ["model.lazy_fine=true"]),
    "paulus": ("paulus-ml-cpu.yaml", []),
    "paulus-rl": ("paulus-rl-cpu.yaml", []),
    "select-rewrite": ("select-rewrite-cpu.yaml", []),
    "select-rl": ("select-rewrite-cpu.yaml", ["train.objective=mixed"]),
}
COMMON = [
    "data.vocab_size=2000",
    "data.val_holdout=0",
    "train.batch_size=8",
    "train.eval_every=0",
    "train.log_every=5",
    "train.seed=5",
]
AGREE = ["model.emb_dim=32", "model.hidden=48", "model.chunk_filters=16", "model.dropout=0.0", "train.lr=0.01"]


def check(name: str, ok: bool, facts: str) -> bool:
    print(f"CHECK {name}: {'PASS' if ok else 'FAIL'} {facts}", flush=True)
    return ok


def prepared(work: Path) -> Path:
    from c2fsum.data.prepare import prepare

    data = work / "data"
    if not (data / "vocab.txt").exists():
        prepare(ROOT / "tests" / "data" / "corpus", data, vocab_size=2000, workers=1, progress=False)
    return data


def test_articles() -> list[str]:
    lines = (ROOT / "tests" / "data" / "corpus" / "test.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(x)["article"] for x in lines]


def train(data: Path, out: Path, family: str, sets: list[str], steps: int, resume: bool = False) -> dict:
    from c2fsum.config import load_config
    from c2fsum.training.trainer import Trainer

    preset, extra = FAMILIES[family]
    cfg = load_config(ROOT / "configs" / preset, [*COMMON, *extra, *sets, f"train.max_steps={steps}"])
    return Trainer(cfg, data, out, resume=resume, progress=False).fit()


def finite_weights(run: Path) -> tuple[bool, str]:
    import torch
    from safetensors.torch import load_file

    w = load_file(str(run / "last" / "model.safetensors"))
    bad = [k for k, v in w.items() if not bool(torch.isfinite(v).all())]
    return not bad, f"{len(w)} tensors" + (f", not finite: {bad[:3]}" if bad else "")


def family_check(family: str, data: Path, work: Path, device: str, steps: int, agree_steps: int) -> bool:
    import torch

    from c2fsum.models.checkpoint import read_json
    from c2fsum.pipeline import Pipeline

    ok = True
    run = work / f"bf16-{family}"
    sets = ["train.amp=bf16", f"train.device={device}"]
    half = max(1, steps // 2)
    t0 = time.monotonic()
    train(data, run, family, sets, half)
    summary = train(data, run, family, sets, steps, resume=True)
    wall = time.monotonic() - t0
    state = read_json(run / "last" / "trainer.json")
    pos = state["position"]
    fin, facts = finite_weights(run)
    ppl = summary["val_ppl"]
    tok_s = pos["tokens"] / max(pos["elapsed"], 1e-9)
    ok &= check(
        f"{family} bf16 train {half} + resume to {steps} on {device}",
        pos["step"] == steps and fin and math.isfinite(ppl),
        f"step {pos['step']}, val ppl {ppl:.1f}, weights {facts}; {tok_s:,.0f} tokens/s (src+tgt) over "
        f"{pos['elapsed']:.1f} s of training, {wall:.1f} s with start-up and validation",
    )
    texts = test_articles()
    pipe = Pipeline(run, device=device)
    t0 = time.monotonic()
    out = pipe.summarize(texts, beam=3, max_len=20)
    dt = time.monotonic() - t0
    ok &= check(
        f"{family} decode on {device}",
        len(out) == len(texts) and all(isinstance(s.text, str) for s in out),
        f"{len(out)} summaries in {dt:.2f} s ({len(out) / dt:.1f}/s, beam 3, 20 tokens); first: {out[0].text[:60]!r}",
    )
    # float32 agreement: the same weights decoded on CPU and on the device
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    arun = work / f"fp32-{family}"
    train(data, arun, family, ["train.device=cpu", *AGREE], agree_steps)
    cpu, dev = Pipeline(arun, device="cpu"), Pipeline(arun, device=device)
    for beam in (1, 3):
        a = cpu.summarize(texts, beam=beam, max_len=20, min_len=0)
        b = dev.summarize(texts, beam=beam, max_len=20, min_len=0)
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x.tokens != y.tokens]
        score = max(abs(x.score - y.score) for x, y in zip(a, b, strict=True))
        where = ""
        if diff:
            i = diff[0]
            k = next((j for j, (x, y) in enumerate(zip(a[i].tokens, b[i].tokens, strict=False)) if x != y), None)
            where = f"; first: document {i} token {k}: cpu {a[i].tokens[:12]} vs {device} {b[i].tokens[:12]}"
        ok &= check(
            f"{family} float32 cpu vs {device}, beam {beam}",
            not diff,
            f"{len(texts) - len(diff)} of {len(texts)} documents the same tokens; max |score diff| {score:.2e}{where}",
        )
    return ok


def stage_families(a: argparse.Namespace) -> int:
    import torch

    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(max(1, min(8, os.cpu_count() or 1)))
    data = prepared(work)
    ok = True
    for family in a.families.split(","):
        t0 = time.monotonic()
        try:
            ok &= family_check(family, data, work, a.device, a.steps, a.agree_steps)
        except Exception as e:  # noqa: BLE001 - report and go on with the next family
            traceback.print_exc()
            ok &= check(f"{family}", False, f"raised {type(e).__name__}: {str(e).splitlines()[0][:200]}")
        print(f"  ({family}: {time.monotonic() - t0:.1f} s)", flush=True)
    return 0 if ok else 1


def stage_shipped(a: argparse.Namespace) -> int:
    import torch

    import c2fsum

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    path = Path(a.papers) if a.papers else ROOT / "tests" / "data" / "corpus" / "test.jsonl"
    texts = [json.loads(x)["article"] for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    ok = True
    for name in a.models.split(","):
        try:
            timed = {}
            outs = {}
            for device in ("cpu", a.device):
                pipe = c2fsum.load(name, device=device)
                pipe.summarize(texts[:1])  # warm-up (kernels, caches)
                t0 = time.monotonic()
                outs[device] = pipe.summarize(texts)
                if device == "cuda":
                    torch.cuda.synchronize()
                timed[device] = (time.monotonic() - t0) / len(texts)
            a_, b_ = outs["cpu"], outs[a.device]
            same = sum(x.text == y.text for x, y in zip(a_, b_, strict=True))
            first = next((i for i, (x, y) in enumerate(zip(a_, b_, strict=True)) if x.text != y.text), None)
            where = (
                ""
                if first is None
                else f"; first difference: paper {first}: {a_[first].text[:80]!r} vs {b_[first].text[:80]!r}"
            )
            ok &= check(
                f"{name} cpu vs {a.device}, float32",
                same == len(texts),
                f"{same} of {len(texts)} papers the same summary; {timed['cpu']:.3f} s/paper on cpu, "
                f"{timed[a.device]:.3f} s/paper on {a.device}{where}",
            )
        except Exception as e:  # noqa: BLE001 - report and go on with the next model
            traceback.print_exc()
            ok &= check(f"{name}", False, f"raised {type(e).__name__}: {str(e).splitlines()[0][:200]}")
    return 0 if ok else 1


def stage_probe(a: argparse.Namespace) -> int:
    import torch
    import torch.distributed as dist

    rank, world, local = (int(os.environ.get(k, d)) for k, d in (("RANK", 0), ("WORLD_SIZE", 1), ("LOCAL_RANK", 0)))
    cuda = a.device == "cuda"
    dev = torch.device("cuda", local) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(dev)
    backend = "nccl" if cuda else "gloo"
    dist.init_process_group(backend=backend, init_method="env://", rank=rank, world_size=world)
    t = torch.full((4,), float(rank + 1), device=dev)
    dist.all_reduce(t)
    want = world * (world + 1) / 2
    big = torch.ones(16 * 1024 * 1024, device=dev)  # 64 MB of float32
    dist.all_reduce(big)
    if cuda:
        torch.cuda.synchronize()
    t0 = time.monotonic()
    for _ in range(5):
        dist.all_reduce(big)
    if cuda:
        torch.cuda.synchronize()
    dt = (time.monotonic() - t0) / 5
    ok = bool((t == want).all()) and bool((big == world**6).all())
    flags = torch.tensor([0 if ok else 1], device=dev)
    dist.all_reduce(flags)
    if rank == 0:
        check(
            f"{backend} all-reduce on {world} process(es)",
            int(flags.item()) == 0,
            f"sum {t[0].item():g} (expected {want:g}); 64 MB all-reduce {dt * 1000:.1f} ms ({0.064 / dt:.1f} GB/s)",
        )
    dist.destroy_process_group()
    return 0 if ok else 1


def stage_ddp_report(a: argparse.Namespace) -> int:
    run = Path(a.run)
    state = json.loads((run / "last" / "trainer.json").read_text())
    pos = state["position"]
    rows = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines() if x.strip()]
    tgt = sorted(r["tgt_tokens_per_s"] for r in rows if r.get("split") == "train")
    ok = pos["step"] == a.steps
    check(
        f"torchrun c2fsum train ({a.nproc} process(es), {a.device})",
        ok,
        f"step {pos['step']} of {a.steps}; {pos['tokens'] / max(pos['elapsed'], 1e-9):,.0f} tokens/s (src+tgt), "
        + (f"median {tgt[len(tgt) // 2]:,.0f} target tokens/s over {len(tgt)} log rows" if tgt else "no log rows"),
    )
    return 0 if ok else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stage", required=True, choices=["families", "shipped", "nccl-probe", "ddp-report"])
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--work", default="gpu_check.work")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--agree-steps", type=int, default=20)
    ap.add_argument("--models", default="pubmed-rewrite,pubmed-model3")
    ap.add_argument("--papers", help="JSONL with an 'article' field (default: the test corpus)")
    ap.add_argument("--run")
    ap.add_argument("--nproc", type=int, default=1)
    a = ap.parse_args()
    stage = {
        "families": stage_families,
        "shipped": stage_shipped,
        "nccl-probe": stage_probe,
        "ddp-report": stage_ddp_report,
    }[a.stage]
    return stage(a)


if __name__ == "__main__":
    sys.exit(main())
