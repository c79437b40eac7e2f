#!/usr/bin/env python3
"""The sanity task at a larger size: MODEL 3 (REINFORCE) and MODEL 2 (soft attention), both with
the pointer, trained through ``c2fsum train`` on :mod:`c2fsum.data.synthetic` documents, and the
figures of :func:`c2fsum.evaluation.sanity.sanity_figures` on the test split::

    PYTHONPATH=src OMP_NUM_THREADS=1 .venv/bin/python bench/sanity_task.py            # 10 chunks x 10 words
    PYTHONPATH=src OMP_NUM_THREADS=1 .venv/bin/python bench/sanity_task.py --chunks 3 --chunk-len 4 --steps 300

One line per model: the fraction of decoding steps whose most likely chunk is the cued one
(``on_cue``; MODEL 3's argmax choice), the mean coarse mass on it, the mean coarse entropy in
nats (uniform: ln M), the exact-match rate of greedy summaries and the share of out-of-vocabulary
target words copied at their place. The tiny version is ``tests/data/test_sanity_task.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import tempfile
import time
from pathlib import Path

import torch

from c2fsum.cli.main import main
from c2fsum.data.synthetic import write_sanity_data
from c2fsum.evaluation.sanity import sanity_figures

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "sanity.yaml"


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--chunks", type=int, default=10, help="M (10)")
    p.add_argument("--chunk-len", type=int, default=10, help="N words per chunk, the cue included (10)")
    p.add_argument("--content", type=int, default=50, help="in-vocabulary content words (50)")
    p.add_argument("--oov-rate", type=float, default=0.25, help="share of content words out of vocabulary (0.25)")
    p.add_argument("--train", type=int, default=5000, help="training documents (5000)")
    p.add_argument("--test", type=int, default=500, help="test documents (500)")
    p.add_argument("--steps", type=int, default=1500, help="optimizer steps per model (1500)")
    p.add_argument("--hidden", type=int, default=128, help="LSTM units (128)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--families", default="model3,model2", help="comma-separated (model3,model2)")
    p.add_argument("--no-pointer", action="store_true", help="train without the pointer (control)")
    p.add_argument("--reinforce-scale", type=float, help="MODEL 3's REINFORCE weight (config: 0.3)")
    p.add_argument("--work", help="keep data and runs here (default: a temporary folder)")
    return p.parse_args()


def run(a: argparse.Namespace, work: Path) -> None:
    torch.set_num_threads(1)
    data = write_sanity_data(
        work / "data",
        chunks=a.chunks,
        chunk_len=a.chunk_len,
        n_content=a.content,
        oov_rate=a.oov_rate,
        sizes=(a.train, 50, a.test),
        seed=a.seed,
    )
    print(
        f"task: {a.chunks} chunks x {a.chunk_len} words, {a.content} content words, oov_rate {a.oov_rate}, "
        f"{a.train} train / {a.test} test docs, {a.steps} steps, hidden {a.hidden}, seed {a.seed}; "
        f"uniform entropy ln {a.chunks} = {math.log(a.chunks):.3f}"
    )
    for family in a.families.split(","):
        out = work / family
        overrides = [
            f"model.family={family}",
            f"model.pointer={str(not a.no_pointer).lower()}",
            f"model.hidden={a.hidden}",
            f"model.emb_dim={a.hidden // 2}",
            f"data.chunks={a.chunks}",
            f"data.chunk_len={a.chunk_len}",
            f"data.max_tgt_len={a.chunk_len - 1}",
            f"decode.max_len={a.chunk_len + 2}",
            f"train.max_steps={a.steps}",
            f"train.eval_every={max(a.steps // 3, 1)}",
            f"train.seed={a.seed}",
        ]
        if a.reinforce_scale is not None:
            overrides.append(f"train.reinforce_scale={a.reinforce_scale}")
        t0 = time.perf_counter()
        args = ["-q", "train", "--config", str(CONFIG), "--data", str(data), "--out", str(out), "--set", *overrides]
        with contextlib.redirect_stdout(io.StringIO()):
            main(args)
        train_s = time.perf_counter() - t0
        f = sanity_figures(out, data)
        print(
            f"{family}{'' if a.no_pointer else '+pointer'}: on_cue {f['on_cue']:.4f}  cue_mass {f['cue_mass']:.4f}  "
            f"entropy {f['entropy']:.4f}  exact {f['exact']:.3f}  oov_copy {f['oov_copy']:.4f} "
            f"({f['n_oov']} OOV words in {f['n_docs']} docs)  train {train_s:.0f}s",
            flush=True,
        )


def main_() -> None:
    a = parse_args()
    if a.work:
        run(a, Path(a.work))
    else:
        with tempfile.TemporaryDirectory() as d:
            run(a, Path(d))


if __name__ == "__main__":
    main_()
