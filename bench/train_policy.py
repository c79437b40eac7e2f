#!/usr/bin/env python3
"""Train MODEL 3 briefly on the benchmark corpus, so speed can be measured with a trained policy.

MODEL 3 with lazy chunk encoding runs the word-level LSTM only over the chunks its hard
attention picks; with untrained weights the coarse attention is nearly uniform and 16 target
words pick most of the 10 chunks. This script trains MODEL 3 (REINFORCE term included, Adam) on
the synthetic corpus of ``bench/speed.py`` (its targets copy lead-biased spans of the source:
spans start within the first 100 of the 400 words, i.e. in chunks 1-3), at the sizes of a
``speed.py`` preset, and saves the weights as safetensors with the model settings in the file's
metadata, for ``speed.py --init`` / ``bench/throughput --model3-init SIZE=PATH``. Every
``--log-every`` steps it prints the training NLL per token, the mean entropy of the coarse
attention (ln 10 = 2.30 is uniform) and the share of source words encoded at the fine level::

    PYTHONPATH=src .venv/bin/python bench/train_policy.py --config model0 --chunk-encoder bow --pos-dim 25 --steps 500
    PYTHONPATH=src .venv/bin/python bench/train_policy.py --config small --chunk-encoder bow --pos-dim 25 --steps 1200

(by default into ``~/.cache/c2fsum-bench/policies/{paper,cpu}.safetensors``, where
``bench/throughput`` finds them).

A benchmark helper, not the training CLI (``c2fsum train`` trains on prepared data).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import speed  # noqa: E402  (bench/speed.py: presets, corpus, batches, model)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", default="small", choices=sorted(speed.PRESET_FILES))
    ap.add_argument("--chunk-encoder", default="cnn", choices=("cnn", "bow"))
    ap.add_argument("--pos-dim", type=int, default=0, help="chunk position embedding size (+POS: 25)")
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (default %(default)s)")
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help="where to save the weights (default ~/.cache/c2fsum-bench/policies/SIZE.safetensors, SIZE = paper for "
        "--config model0, cpu for small: where bench/throughput looks for them)",
    )
    a = ap.parse_args(argv)
    if a.threads:
        torch.set_num_threads(a.threads)
    if a.out is None:
        a.out = speed.policy_path(a.config)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    args = speed.parse(
        ["--config", a.config, "--family", "model3", "--lazy-train", "--chunk-encoder", a.chunk_encoder]
        + ["--pos-dim", str(a.pos_dim)]
    )
    cfg = speed.resolve_cfg(args)
    speed.ensure_data(args.data)
    pairs, origin = speed.load_examples(args.data, cfg, "train", 2000, args.seed)
    batches = speed.make_batches(pairs, cfg["batch"], args.chunks, cfg["src_len"] // args.chunks)
    print(f"data: {origin}, {len(batches)} batches of {cfg['batch']}", flush=True)

    from safetensors.torch import save_file

    from c2fsum.losses.reinforce import MovingAverageBaseline
    from c2fsum.training.objective import update_baseline

    meta = {"family": "model3", "chunk_encoder": a.chunk_encoder, "pos_dim": str(a.pos_dim), "config": a.config}
    model = speed.build_model(cfg, args.seed, args).train()
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=a.lr)
    # speed.bench_loss: the trainer's objective at the train.* defaults, ML + REINFORCE
    # (gamma 0.5, lambda 0.3) with its moving-average baseline (beta 0.1)
    baseline = MovingAverageBaseline()
    t0 = time.time()
    for i in range(1, a.steps + 1):
        batch = batches[(i - 1) % len(batches)]
        step = speed.bench_loss(model, batch, baseline)
        opt.zero_grad(set_to_none=True)
        step.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        assert step.return_sums is not None and step.forward is not None  # MODEL 3 has a policy
        update_baseline(baseline, [step.return_sums])
        if i % a.log_every == 0 or i == a.steps:
            with torch.no_grad():
                c = step.forward.attention.coarse.clamp_min(1e-12)  # (B, T, M)
                entropy = float(-(c * c.log()).sum(-1).mean())
            print(
                f"step {i} ({time.time() - t0:.0f} s): nll/token {float(step.nll.detach()) / batch.n_tokens:.3f}, "
                f"coarse entropy {entropy:.3f}, fine fraction {step.forward.fine_fraction:.3f}",
                flush=True,
            )
            state = {k: v.detach().contiguous() for k, v in model.state_dict().items()}
            save_file(state, str(a.out), metadata={**meta, "steps": str(i)})
    print(f"saved: {a.out}")


if __name__ == "__main__":
    main()
