"""Run by tests/training/test_distributed.py under torchrun: several tiny trainings in one launch.

    python -m torch.distributed.run --standalone --nproc_per_node 2 distributed_worker.py DATA OUT JOBS

``JOBS`` is a JSON file ``[{"name": ..., "config": PRESET or null, "set": ["key=value", ...],
"resume": false, "dtype": "float64"}, ...]`` (``dtype``: torch's default dtype for the job, float32
when absent); job
``name`` trains into ``OUT/name`` (``resume`` continues it). Every rank then writes what it
holds (its parameters and MODEL 3 baselines), which only rank 0 would otherwise keep, to
``OUT/name.rank<R>.safetensors`` and ``OUT/name.rank<R>.json``.
"""

import json
import sys
from pathlib import Path

import torch
from safetensors.torch import save_file

from c2fsum.config import load_config
from c2fsum.training.distributed import shutdown
from c2fsum.training.trainer import Trainer


def main(data: str, out: str, jobs_file: str) -> None:
    trainer = None
    for job in json.loads(Path(jobs_file).read_text(encoding="utf-8")):
        torch.set_default_dtype(getattr(torch, job.get("dtype", "float32")))
        cfg = load_config(job.get("config"), job["set"])
        trainer = Trainer(cfg, data, Path(out) / job["name"], resume=job.get("resume", False), progress=False)
        summary = trainer.fit()
        r = trainer.dist.rank
        save_file(
            {k: v.contiguous() for k, v in trainer.model.state_dict().items()},
            str(Path(out) / f"{job['name']}.rank{r}.safetensors"),
        )
        (Path(out) / f"{job['name']}.rank{r}.json").write_text(
            json.dumps({"world": trainer.dist.world, "baseline": trainer.baseline.state(), "summary": summary})
        )
    if trainer is not None:
        shutdown(trainer.dist)


if __name__ == "__main__":
    main(*sys.argv[1:4])
