#!/usr/bin/env python3
"""How much the self-critical baseline lowers the variance of the selector's REINFORCE gradient.

For each of ``--papers`` papers of a prepared split, ``--samples`` selections are drawn from the
selector's policy (:meth:`c2fsum.models.select_rewrite.SentenceSelector.reinforce`, dropout off);
for each draw the gradient of the REINFORCE surrogate is taken twice from the same draw (the same
seed): with the greedy selection's returns as baseline, and without a baseline. Per paper the
variance of the estimate is the trace of the covariance of its ``--samples`` gradients,
``mean_i ||g_i - mean g||^2``; printed per paper and summed over papers, with the squared norm of
the mean gradient (the signal) beside it, for both::

    OMP_NUM_THREADS=1 .venv/bin/python bench/select_reinforce_variance.py --model RUN_DIR \\
        --data DATA_DIR --split val --papers 8 --samples 16

Without ``--model``, an untrained selector of the ``--config`` preset's sizes (the variance of a
random policy). A benchmark, never part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

from c2fsum.config import ModelConfig, load_config
from c2fsum.data.batching import collate, encode_document
from c2fsum.data.prepare import read_split
from c2fsum.models import build_model
from c2fsum.models.checkpoint import load_checkpoint
from c2fsum.models.select_rewrite import SentenceSelector


def gradient(
    model: SentenceSelector, batch, *, seed: int, baseline: bool, summary_words: int, min_words: int
) -> torch.Tensor:
    """The REINFORCE surrogate's gradient, flattened over the trainable parameters, for the draw of ``seed``."""
    model.zero_grad(set_to_none=True)
    torch.manual_seed(seed)
    loss, _, _ = model.reinforce(
        batch.src, batch.src_mask, batch.examples, baseline=baseline, summary_words=summary_words, min_words=min_words
    )
    loss.backward()
    params = [p for p in model.parameters() if p.requires_grad]
    return torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).flatten() for p in params])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="", help="a select-rewrite run or checkpoint directory (default: untrained)")
    ap.add_argument("--config", default="configs/select-rewrite-cpu.yaml", help="sizes of the untrained selector")
    ap.add_argument("--data", required=True, help="a prepared data folder")
    ap.add_argument("--split", default="val")
    ap.add_argument("--papers", type=int, default=8)
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument(
        "--summary-words", type=int, default=ModelConfig.selector_rl_words, help="the selections' word budget"
    )
    ap.add_argument(
        "--min-words", type=int, default=ModelConfig.selector_rl_min_words, help="no STOP before this many words"
    )
    ap.add_argument("--json", default="", help="also write the figures to this file")
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    if a.model:
        loaded = load_checkpoint(a.model)
        model, cfg, vocab = loaded.model, loaded.config, loaded.vocab
    else:
        from c2fsum.training.trainer import read_vocab

        cfg = load_config(a.config)
        vocab = read_vocab(Path(a.data), cfg.data.vocab_size)
        torch.manual_seed(0)
        model = build_model(cfg.model, len(vocab), cfg.data.chunks)
    assert isinstance(model, SentenceSelector), f"{a.model}: not a select-rewrite model"
    model.eval()  # dropout off: the draws differ only by the policy's sampling
    docs = read_split(a.data, a.split, limit=a.papers)
    rows = []
    started = time.perf_counter()
    for d in docs:
        ex = encode_document(d, vocab, cfg.data)
        batch = collate([ex], chunks=cfg.data.chunks, chunk_len=cfg.data.chunk_len)
        row: dict = {"id": ex.id}
        for name, base in (("baseline", True), ("none", False)):
            g = torch.stack(
                [
                    gradient(model, batch, seed=s, baseline=base, summary_words=a.summary_words, min_words=a.min_words)
                    for s in range(a.samples)
                ]
            )
            mean = g.mean(0)
            row[f"variance_{name}"] = float(((g - mean) ** 2).sum(1).mean())
            row[f"signal_{name}"] = float((mean**2).sum())
        rows.append(row)
        print(
            f"{ex.id}: variance {row['variance_none']:.4g} without baseline, {row['variance_baseline']:.4g} with "
            f"(ratio {row['variance_none'] / max(row['variance_baseline'], 1e-30):.1f}); squared norm of the mean "
            f"{row['signal_none']:.4g} / {row['signal_baseline']:.4g}",
            flush=True,
        )
    total = {
        k: sum(r[k] for r in rows) for k in ("variance_none", "variance_baseline", "signal_none", "signal_baseline")
    }
    print(
        f"papers: {len(rows)}\nsamples_per_paper: {a.samples}\n"
        f"variance_without_baseline: {total['variance_none']:.6g}\n"
        f"variance_with_baseline: {total['variance_baseline']:.6g}\n"
        f"variance_ratio: {total['variance_none'] / max(total['variance_baseline'], 1e-30):.3f}\n"
        f"seconds: {time.perf_counter() - started:.1f}"
    )
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"model": a.model or "untrained", "papers": rows, **total}, f, indent=1)


if __name__ == "__main__":
    main()
