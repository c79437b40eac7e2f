#!/usr/bin/env python3
"""MODEL 0 vs MODEL 3 (lazy fine encoding) at the paper's shapes: training and decoding speed.

A benchmark, not a test. Shapes: 400 source words as a 10x40 grid, vocabulary 50,000, batch 20,
15-word targets, beam 5 (exactly ``--tgt-len`` output words: min_len = max_len), for the paper
sizes (2-layer 500-unit LSTMs, 300-d embeddings, 600 CNN filters) and the CPU sizes (1 x 256,
128-d, 150 filters). Synthetic data: seeded Zipf-distributed ids (like ``../shared/bench/make_data.py``).

Prints ``name: value`` lines, e.g. ``cpu_model3_lazy_decode_summaries_per_s: 4.5``, per size and
model (``_lazy``: MODEL 3 with lazy fine encoding; its training is eager unless ``--lazy-train``):

    train_tok_per_s        source + target tokens per second of forward + backward + clip + SGD
                           (MODEL 3: NLL + REINFORCE term; ``--lazy-train``: ``model.lazy_fine``)
    decode_summaries_per_s beam search summaries per second (batches of 20 documents)
    fine_fraction          share of source words run through the word-level LSTM when decoding
    peak_rss_mib           peak resident memory of the process that ran only that model

Run::

    OMP_NUM_THREADS=1 PYTHONPATH=src .venv/bin/python bench/lazy_throughput.py [--sizes cpu,paper]
    ... --dry-run          # tiny shapes, seconds
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

import torch

from c2fsum.config import ModelConfig
from c2fsum.decoding.beam import beam_search
from c2fsum.losses.nll import target_logprobs
from c2fsum.losses.reinforce import discounted_returns, reinforce_loss
from c2fsum.models import build_model

SIZES = {
    "paper": dict(emb_dim=300, hidden=500, enc_layers=2, dec_layers=2, chunk_filters=600),
    "cpu": dict(emb_dim=128, hidden=256, enc_layers=1, dec_layers=1, chunk_filters=150),
    "dry": dict(emb_dim=8, hidden=16, enc_layers=1, dec_layers=1, chunk_filters=8),
}


def kv(name: str, value: float) -> None:
    print(f"{name}: {value:.4g}", flush=True)


def parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="cpu,paper")
    p.add_argument("--vocab", type=int, default=50_000)
    p.add_argument("--batch", type=int, default=20)
    p.add_argument("--chunks", type=int, default=10)
    p.add_argument("--chunk-len", type=int, default=40)
    p.add_argument("--tgt-len", type=int, default=15)
    p.add_argument("--beam", type=int, default=5)
    p.add_argument("--steps", type=int, default=5, help="timed training steps (after one warm-up step)")
    p.add_argument("--decode-batches", type=int, default=2, help="timed decoding batches (after one warm-up)")
    p.add_argument("--lazy-train", action="store_true", help="train MODEL 3 with model.lazy_fine")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--only", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def zipf_ids(g: torch.Generator, shape: tuple, vocab: int) -> torch.Tensor:
    """Ids in [4, vocab) with p(rank r) ~ 1 / (r + 2.7)."""
    ranks = torch.arange(1, vocab - 3, dtype=torch.float64)
    p = 1.0 / (ranks + 2.7)
    return torch.multinomial(p, int(torch.tensor(shape).prod()), replacement=True, generator=g).view(shape) + 4


def make_batch(args, g: torch.Generator):
    B, M, N, T = args.batch, args.chunks, args.chunk_len, args.tgt_len
    src = zipf_ids(g, (B, M, N), args.vocab)
    mask = torch.ones(B, M, N, dtype=torch.bool)
    tgt = zipf_ids(g, (B, T), args.vocab)
    tgt_in = torch.cat([torch.full((B, 1), 2), tgt[:, :-1]], 1)
    tgt_mask = torch.ones(B, T, dtype=torch.bool)
    return src, mask, tgt_in, tgt, tgt_mask


def train_speed(model, args, g) -> float:
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=1.0)
    model.train()
    times = []
    for step in range(args.steps + 1):
        src, mask, tgt_in, tgt, tgt_mask = make_batch(args, g)
        t0 = time.perf_counter()
        out = model(src, mask, tgt_in)
        lp = target_logprobs(out.logprobs, tgt, tgt_mask)  # (B, T)
        loss = -lp.sum() / args.batch
        if out.policy is not None:  # MODEL 3: REINFORCE term
            returns = discounted_returns(lp.detach(), tgt_mask, 0.5)
            loss = loss + reinforce_loss(out.policy, returns, returns.mean(0, keepdim=True), tgt_mask, 0.3) / args.batch
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        if step:
            times.append(time.perf_counter() - t0)
    tokens = args.batch * (args.chunks * args.chunk_len + args.tgt_len)
    return tokens / statistics.median(times)


@torch.no_grad()
def decode_speed(model, args, g) -> tuple[float, float]:
    model.eval()
    times, fracs = [], []
    for i in range(args.decode_batches + 1):
        src, mask, *_ = make_batch(args, g)
        t0 = time.perf_counter()
        memory = model.encode(src, mask)
        beam_search(model, memory, beam=args.beam, max_len=args.tgt_len, min_len=args.tgt_len)
        if i:
            times.append(time.perf_counter() - t0)
            fracs.append(memory.lazy.fraction_encoded() if memory.lazy is not None else 1.0)
    return args.batch / statistics.median(times), statistics.mean(fracs)


def run_one(args, size: str, family: str) -> None:
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    cfg = ModelConfig(family=family, dropout=0.3, lazy_fine=args.lazy_train, **SIZES[size])
    model = build_model(cfg, args.vocab, args.chunks)
    lazy = "_lazy" if family == "model3" else ""
    kv(f"{size}_{family}{lazy if args.lazy_train else ''}_train_tok_per_s", train_speed(model, args, g))
    name = f"{size}_{family}{lazy}"  # MODEL 3 always decodes lazily
    per_s, frac = decode_speed(model, args, g)
    kv(f"{name}_decode_summaries_per_s", per_s)
    kv(f"{name}_fine_fraction", frac)
    kv(f"{name}_peak_rss_mib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def main(argv=None) -> None:
    args = parse(argv)
    torch.set_num_threads(args.threads)
    if args.dry_run:
        args.vocab, args.batch, args.steps, args.decode_batches = 1000, 4, 1, 1
    if args.only:
        run_one(args, *args.only.split(":"))
        return
    kv("threads", args.threads)
    sizes = ["dry"] if args.dry_run else args.sizes.split(",")
    argv = sys.argv[1:] if argv is None else list(argv)
    for size in sizes:
        for family in ("model0", "model3"):  # one process each: its own peak memory
            subprocess.run(
                [sys.executable, __file__, *argv, "--only", f"{size}:{family}"],
                check=True,
                env={**os.environ, "OMP_NUM_THREADS": str(args.threads)},
            )


if __name__ == "__main__":
    main()
