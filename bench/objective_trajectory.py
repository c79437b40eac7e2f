#!/usr/bin/env python3
"""Fixed-seed training trajectories, to check that a change of the training code changes no number.

Trains five tiny configurations for a few steps on 40 shared CNN/DM documents (MODEL 0 ML,
MODEL 1 pointer with the mixed objective, MODEL 3 +ALTERNATE, MODEL 3 +PRETRAIN with gradient
accumulation, lazy MODEL 3 mixed) and writes, per run, the metrics rows (without timings), a hash
of every weight tensor and the REINFORCE baselines. Run it with two checkouts' sources, then
compare (same machine: the hashes are exact float bytes)::

    PYTHONPATH=/path/to/main/src python bench/objective_trajectory.py before.json
    PYTHONPATH=src python bench/objective_trajectory.py after.json
    python bench/objective_trajectory.py --compare before.json after.json

A few seconds on one core. Not a test: the hashes depend on the machine's float kernels.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path

TINY = (
    "model.emb_dim=16 model.hidden=24 model.enc_layers=1 model.dec_layers=1 data.chunks=4 data.chunk_len=20 "
    "data.max_tgt_len=20 train.batch_size=8 train.log_every=1 train.seed=7 data.vocab_size=2000 train.max_steps=6"
).split()
RUNS = {
    "model0_ml": [],
    "model1_pointer_mixed": [
        "model.family=model1",
        "model.pointer=true",
        "train.objective=mixed",
        "train.rl_weight=0.5",
        "train.max_steps=3",
    ],
    "model3_alt": ["model.family=model3", "model.chunk_encoder=bow", "train.alternate=0.5"],
    "model3_pretrain_acc": [
        "model.family=model3",
        "model.chunk_filters=8",
        "train.soft_pretrain_epochs=1",
        "train.accumulate=2",
    ],
    "model3_lazy_mixed": [
        "model.family=model3",
        "model.chunk_encoder=bow",
        "model.lazy_fine=true",
        "train.objective=mixed",
        "train.rl_weight=0.7",
        "train.max_steps=3",
    ],
}


def record(out_json: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from c2fsum.config import load_config
    from c2fsum.data.prepare import prepare
    from c2fsum.training.trainer import Trainer
    from shared_data import write_raw_folder

    work = Path(tempfile.mkdtemp(prefix="c2fsum-trajectory-"))
    try:
        raw = write_raw_folder(work / "raw", {"train": 40, "val": 10, "test": 10})
        prepare(raw, work / "data", vocab_size=50000, workers=1, progress=False)
        result = {}
        for name, extra in RUNS.items():
            t = Trainer(load_config(None, TINY + extra), work / "data", work / name, progress=False)
            t.fit()
            rows = [json.loads(x) for x in open(work / name / "metrics.jsonl")]
            for r in rows:
                r.pop("tgt_tokens_per_s", None)
            weights = {
                k: hashlib.sha256(v.detach().contiguous().numpy().tobytes()).hexdigest()[:16]
                for k, v in t.model.state_dict().items()
            }
            result[name] = {"rows": rows, "weights": weights, "baseline": t.baseline.state()}
            print(f"{name}: step {t.pos.step}, val ppl {rows[-1]['ppl']:.6f}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out_json.write_text(json.dumps(result, indent=1), encoding="utf-8")


def compare(a: Path, b: Path) -> int:
    x, y = json.loads(a.read_text()), json.loads(b.read_text())
    bad = 0
    for name in sorted(set(x) | set(y)):
        same = x.get(name) == y.get(name)
        bad += not same
        print(f"{name}: {'identical' if same else 'DIFFERENT'}")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path, nargs="?", help="write the trajectories here")
    ap.add_argument("--compare", type=Path, nargs=2, metavar=("A", "B"), help="compare two recordings")
    a = ap.parse_args(argv)
    if a.compare:
        return compare(*a.compare)
    if a.out is None:
        ap.error("give OUT.json or --compare A B")
    record(a.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
