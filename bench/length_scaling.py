#!/usr/bin/env python3
"""How summarizing one document scales with its length: MODEL 0 vs MODEL 2 vs MODEL 3 (lazy).

A benchmark, not a test. Documents of 400, 1,600, 6,400 and 25,600 words (real CNN/DailyMail
test articles concatenated, or ``--source longdocs``: the scientific papers of
``../shared/data/longdocs`` concatenated) are laid out as unbounded grids of N = 40-word chunks
(M = 10 ... 640) and summarized one at a time with beam search (beam 5, exactly ``--steps``
output words: min_len = max_len, so every model does the same number of decoder steps).

For every model and length, in a fresh process (so the peak resident memory is its own):

    seconds_per_summary   wall time of encode + beam search, median over ``--docs`` documents
    end_to_end_seconds    wall time of what ``c2fsum summarize`` does after start-up (process,
                          imports, model load): raw text -> tokenize -> grid -> encode -> beam
                          search -> text, on the same number of raw texts of exactly that many
                          whitespace-separated words; median
    peak_rss_mib          the process's peak resident memory (after a warm-up on 400 words)
    added_mib             peak_rss_mib minus that of the same model on 400 words:
                          the memory the document adds
    fraction_encoded      share of the document's words that went through the word-level LSTM

Models are the CPU presets (``configs/NAME-cpu.yaml``; ``--paper``: the paper presets) with
random weights (seeded): time and memory do not depend on the weights, only which chunks
MODEL 3 picks does (a trained model may pick fewer distinct chunks). A spec may add overrides
after a colon: ``model3:model.chunk_encoder=bow``, and ``model3:lazy=false`` decodes MODEL 3
eagerly (every chunk encoded up front) for comparison.

Writes ``OUT/length_scaling.csv`` and ``OUT/length_scaling.png`` (log-log) and prints a table
and the issue's targets::

    OMP_NUM_THREADS=1 PYTHONPATH=src .venv/bin/python bench/length_scaling.py --out results/length
    ... --sizes 400,1600 --docs 1 --steps 10         # a quick look
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared" / "data"
SOURCES = {"cnndm": SHARED / "cnndm" / "test.jsonl.gz", "longdocs": SHARED / "longdocs" / "scisummnet_sample.jsonl.gz"}
DEFAULT_MODELS = "model0,model2,model3,model3-multi2"
VOCAB = 20_000


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=ROOT / "results" / "length_scaling", help="results folder")
    p.add_argument("--models", default=DEFAULT_MODELS, help=f"comma-separated specs (default {DEFAULT_MODELS})")
    p.add_argument("--sizes", default="400,1600,6400,25600", help="document lengths in words")
    p.add_argument("--source", choices=sorted(SOURCES), default="cnndm")
    p.add_argument("--docs", type=int, default=2, help="documents per length (different text each)")
    p.add_argument("--beam", type=int, default=5)
    p.add_argument("--steps", type=int, default=40, help="output words per summary (min_len = max_len)")
    p.add_argument("--chunk-len", type=int, default=40, help="N, words per chunk")
    p.add_argument("--paper", action="store_true", help="paper sizes (2x500 LSTMs, 300-d) instead of -cpu presets")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--worker", help=argparse.SUPPRESS)
    return p.parse_args(argv)


# -- documents -------------------------------------------------------------------------------
def make_documents(source: Path, sizes: list[int], n_docs: int) -> dict:
    """Token lists of exactly ``size`` words for each size: consecutive articles concatenated."""
    from c2fsum.data.tokenize import preprocess_article

    need = max(sizes) * n_docs
    words: list[str] = []
    with gzip.open(source, "rt", encoding="utf-8") as f:
        for line in f:
            words.extend(w for s in preprocess_article(json.loads(line)["article"]) for w in s)
            if len(words) >= need:
                break
    if len(words) < need:
        raise SystemExit(f"{source}: only {len(words)} words, {need} needed")
    docs = {str(n): [words[i * n : (i + 1) * n] for i in range(n_docs)] for n in sizes}
    return {"docs": docs, "warmup": words[:400], "raw": raw_documents(source, sizes, n_docs)}


def raw_documents(source: Path, sizes: list[int], n_docs: int) -> dict:
    """Raw article texts of exactly ``size`` whitespace-separated words (articles joined by blank
    lines): what ``c2fsum summarize`` reads, for the end-to-end times."""
    import re

    need = max(sizes) * n_docs
    parts: list[str] = []
    count = 0
    while count < need:  # the file again from its start if it is too short (cnndm test: 198,414 words)
        with gzip.open(source, "rt", encoding="utf-8") as f:
            for line in f:
                art = json.loads(line)["article"]
                parts.append(art)
                count += len(art.split())
                if count >= need:
                    break
        if not count:
            raise SystemExit(f"{source}: no words")
    text = "\n\n".join(parts)
    spans = [m.span() for m in re.finditer(r"\S+", text)]
    if len(spans) < need:
        raise SystemExit(f"{source}: only {len(spans)} raw words, {need} needed")
    return {str(n): [text[spans[i * n][0] : spans[(i + 1) * n - 1][1]] for i in range(n_docs)] for n in sizes}


# -- one model, one length (a fresh process) -----------------------------------------------------
def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_worker(job: dict) -> dict:
    import torch

    from c2fsum.config import DataConfig, load_config
    from c2fsum.data.batching import collate, encode_document
    from c2fsum.data.vocab import Vocab
    from c2fsum.decoding.beam import beam_search
    from c2fsum.models import build_model
    from c2fsum.models.base import Reading

    torch.set_num_threads(1)
    data = json.loads(Path(job["data"]).read_text())
    name, _, extra = job["spec"].partition(":")
    overrides = [o for o in extra.split(",") if o]
    lazy = "lazy=false" not in overrides
    overrides = [o for o in overrides if o != "lazy=false"]
    preset = ROOT / "configs" / (f"{name}.yaml" if job["paper"] else f"{name}-cpu.yaml")
    cfg = load_config(preset, overrides)
    all_words = [w for d in data["docs"].values() for doc in d for w in doc] + data["warmup"]
    vocab = Vocab.from_tokens(all_words, size=VOCAB)
    torch.manual_seed(job["seed"])
    model = build_model(cfg.model, VOCAB + 4, cfg.data.chunks).eval()
    N, steps = job["chunk_len"], job["steps"]

    def summarize(words: list[str]) -> tuple[float, float, int]:
        ex = encode_document({"id": "d", "src": [words]}, vocab, DataConfig(chunks=0, chunk_len=N, max_tgt_len=1))
        batch = collate([ex], chunks=0, chunk_len=N)
        t0 = time.perf_counter()
        with torch.no_grad():
            memory = model.encode(batch.src, batch.src_mask, batch.src_ext, batch.n_ext, Reading(lazy=lazy))
            beam_search(model, memory, beam=job["beam"], max_len=steps, min_len=steps)
        seconds = time.perf_counter() - t0
        frac = memory.lazy.fraction_encoded() if memory.lazy is not None else 1.0
        return seconds, frac, batch.src.size(1)

    summarize(data["warmup"])  # one-time allocations, thread pools
    times, fracs = [], []
    for words in data["docs"][str(job["size"])]:
        s, f, M = summarize(words)
        times.append(s)
        fracs.append(f)
    peak = peak_rss_mib()  # before the end-to-end runs: the memory of the model-only path

    # end to end: what `c2fsum summarize` does after start-up (process, imports, model load):
    # raw text -> tokenize -> grid -> encode -> beam search -> text
    from c2fsum.decoding.options import DecodeOptions
    from c2fsum.pipeline import Pipeline

    pipe = Pipeline.__new__(Pipeline)
    pipe.model, pipe.config, pipe.vocab, pipe.path, pipe.device = model, cfg, vocab, None, "cpu"
    pipe.defaults = DecodeOptions.from_config(cfg.decode)
    e2e_times = []
    for text in data["raw"][str(job["size"])]:
        t0 = time.perf_counter()
        pipe.summarize(text, beam=job["beam"], max_len=steps, min_len=steps)
        e2e_times.append(time.perf_counter() - t0)
    return {
        "model": job["spec"],
        "words": job["size"],
        "chunks": M,
        "seconds_per_summary": statistics.median(times),
        "end_to_end_seconds": statistics.median(e2e_times),
        "peak_rss_mib": peak,
        "fraction_encoded": statistics.mean(fracs),
    }


# -- driver ------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    if args.worker:
        print(json.dumps(run_worker(json.loads(args.worker))))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    specs = [s for s in args.models.split(",") if s]
    args.out.mkdir(parents=True, exist_ok=True)
    data_file = args.out / "documents.json"
    data_file.write_text(json.dumps(make_documents(SOURCES[args.source], sizes, args.docs)))
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT / "src")}
    rows = []
    from tqdm import tqdm

    jobs = [(s, n) for s in specs for n in sizes]
    for spec, n in tqdm(jobs, desc="length scaling", unit="run"):
        job = dict(
            spec=spec,
            size=n,
            data=str(data_file),
            beam=args.beam,
            steps=args.steps,
            chunk_len=args.chunk_len,
            paper=args.paper,
            seed=args.seed,
        )
        out = subprocess.run(
            [sys.executable, __file__, "--worker", json.dumps(job)],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode:
            tqdm.write(f"{spec} at {n} words failed:\n{out.stderr[-2000:]}")
            continue
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    base = {r["model"]: r["peak_rss_mib"] for r in rows if r["words"] == min(sizes)}
    for r in rows:
        r["added_mib"] = r["peak_rss_mib"] - base.get(r["model"], float("nan"))
    keys = [
        "model",
        "words",
        "chunks",
        "seconds_per_summary",
        "end_to_end_seconds",
        "peak_rss_mib",
        "added_mib",
        "fraction_encoded",
    ]
    with open(args.out / "length_scaling.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows({k: r[k] for k in keys} for r in rows)
    print_table(rows, keys)
    check_targets(rows, sizes)
    check_end_to_end(rows)
    plot(rows, args.out / "length_scaling.png")
    print(f"written: {args.out / 'length_scaling.csv'}, {args.out / 'length_scaling.png'}")


def print_table(rows: list[dict], keys: list[str]) -> None:
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for r in rows:
        cells = [
            r["model"],
            str(r["words"]),
            str(r["chunks"]),
            f"{r['seconds_per_summary']:.3f}",
            f"{r['end_to_end_seconds']:.3f}",
            f"{r['peak_rss_mib']:.0f}",
            f"{r['added_mib']:.1f}",
            f"{r['fraction_encoded']:.3f}",
        ]
        print("| " + " | ".join(cells) + " |")


def check_targets(rows: list[dict], sizes: list[int]) -> None:
    """The issue's targets, from the smallest to the largest length."""
    lo, hi = min(sizes), max(sizes)
    at = {(r["model"], r["words"]): r for r in rows}
    models = sorted({r["model"] for r in rows})
    for m in models:
        if (m, lo) in at and (m, hi) in at:
            g = at[m, hi]["seconds_per_summary"] / at[m, lo]["seconds_per_summary"]
            print(f"{m}: time {lo} -> {hi} words grows {g:.1f}x (words grow {hi / lo:.0f}x)")
    ref = "model0"
    for m in models:
        if m.startswith("model3") and (m, hi) in at and (ref, hi) in at:
            speed = at[ref, hi]["seconds_per_summary"] / at[m, hi]["seconds_per_summary"]
            mem = at[ref, hi]["added_mib"] / max(at[m, hi]["added_mib"], 1e-9)
            grow = (
                at[m, hi]["seconds_per_summary"] / at[m, lo]["seconds_per_summary"] if (m, lo) in at else float("nan")
            )
            print(
                f"{m} at {hi} words: {speed:.1f}x faster than {ref} (target >= 10), "
                f"added memory {at[m, hi]['added_mib']:.1f} vs {at[ref, hi]['added_mib']:.1f} MiB "
                f"({mem:.1f}x smaller, target >= 10), time growth {grow:.1f}x (target <= 4)"
            )


def check_end_to_end(rows: list[dict]) -> None:
    """Issue 17's end-to-end targets: MODEL 3 >= 4x faster than MODEL 0 at 25,600 words, >= 6x at
    100,000 words and under 1.5 s there (start-up taken off)."""
    at = {(r["model"], r["words"]): r for r in rows}
    for m in sorted({r["model"] for r in rows if r["model"].startswith("model3")}):
        for n, target in ((25_600, 4.0), (100_000, 6.0)):
            if (m, n) in at and ("model0", n) in at:
                e2e = at["model0", n]["end_to_end_seconds"] / at[m, n]["end_to_end_seconds"]
                only = at["model0", n]["seconds_per_summary"] / at[m, n]["seconds_per_summary"]
                print(
                    f"{m} at {n} words end to end: {at[m, n]['end_to_end_seconds']:.2f} s vs model0 "
                    f"{at['model0', n]['end_to_end_seconds']:.2f} s, {e2e:.1f}x (target >= {target:.0f}); "
                    f"model only {only:.1f}x"
                )
        if (m, 100_000) in at:
            print(f"{m} at 100000 words end to end: {at[m, 100_000]['end_to_end_seconds']:.2f} s (target < 1.5 s)")


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(20, 4.5))
    panels = [
        ("seconds_per_summary", "decode wall time per summary (s)"),
        ("end_to_end_seconds", "end-to-end time per summary, start-up off (s)"),
        ("peak_rss_mib", "peak resident memory (MiB)"),
        ("fraction_encoded", "fraction of words encoded at the fine level"),
    ]
    for ax, (key, title) in zip(axes, panels, strict=True):
        for m in dict.fromkeys(r["model"] for r in rows):
            pts = sorted((r["words"], r[key]) for r in rows if r["model"] == m)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=m)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("document length (words)")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
