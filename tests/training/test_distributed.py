"""Distributed training (torchrun, DDP over gloo on loopback) against one process.

Two launches of two CPU processes serve every test of this module (``two_ranks``):
``c2fsum train --nproc 2`` (through torchrun) trains MODEL 3 for 3 steps, then two processes of
``distributed_worker.py``, given torchrun's environment variables directly (env:// rendezvous
on a free loopback port), train MODEL 0, MODEL 2, MODEL 0 with a batch of 3 in two
micro-batches, MODEL 3 for 5 steps, and resume the 3-step MODEL 3 run to 5 steps.

The comparisons of one process with two run in float64 (``TOL``'s comment says why).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

import tiny
from c2fsum.config import ConfigError, load_config
from c2fsum.data.batching import shard_batch
from c2fsum.errors import TrainingError
from c2fsum.losses.reinforce import MovingAverageBaseline
from c2fsum.training.trainer import Trainer

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("distributed_worker.py")
TINY = [
    *tiny.TINY,
    "train.batch_size=20",  # the default, not tiny's 8: each test sets its own
    "train.log_every=1",
    "train.seed=7",
    "data.vocab_size=2000",
]
# dropout 0: the two runs then compute the same function; SGD lr 1 (the paper's recipe)
EXACT = [*TINY, "model.dropout=0", "train.batch_size=20"]
# 40 training documents: batch 20 -> 2 steps per epoch; 6 steps cross three epoch ends (validation, lr decision)
JOBS = {
    "m0": [*EXACT, "train.max_steps=6"],
    "m2": [*EXACT, "model.family=model2", "model.chunk_filters=12", "model.chunk_width=3", "train.max_steps=6"],
    # batch 3: the 14th batch holds one document, so rank 1 is idle; each rank splits its share in 2
    "m0_odd": [*TINY, "model.dropout=0", "train.batch_size=3", "train.max_steps=14", "train.accumulate=2"],
}
M3_PRESET = str(ROOT / "configs" / "model3-cpu.yaml")
M3 = [*TINY, "model.chunk_filters=12", "model.chunk_width=3", "data.val_holdout=0", "train.batch_size=10"]
# One process and two compute the same sums in different orders (each rank sums the gradients of
# its share of the batch, all-reduce then adds the ranks' sums; the kernels' own order depends on the
# instruction set), so their parameters differ by rounding alone, amplified by training. In float32
# (unit roundoff u = 2^-24 = 6.0e-8) m0_odd's 14 SGD steps at lr 1 turned that into 2.8e-5 on one
# Xeon (about 460 u on parameters of size 4.6) and below 2e-5 on another: no float32 bound holds on
# every CPU. In float64 (u = 2^-53 = 1.1e-16) the same amplification gives about 460 * 4.6 u = 6e-14
# (measured: 0.0); TOL = 2^-30 = 9.3e-10 allows 10^4 times more amplification than float32 showed, and
# stays far below what a real fault (a micro-batch lost or counted twice, a wrong average) moves: the
# parameters move by more than 100 * TOL in training (asserted below).
TOL = 2.0**-30
EXACT_DTYPE = "float64"


@contextmanager
def default_dtype(name: str) -> Iterator[None]:
    """torch's default dtype set to ``name`` (e.g. ``"float64"``) inside the block only."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, name))
    try:
        yield
    finally:
        torch.set_default_dtype(before)


def _env(**extra: str) -> dict[str, str]:
    return dict(
        os.environ,
        OMP_NUM_THREADS="1",
        PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
        **extra,
    )


def _launch(cmd: list[str]) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spawn_ranks(cmd: list[str], world: int = 2) -> None:
    """Start ``world`` processes of ``cmd`` with the environment torchrun would give them."""
    common = {
        "WORLD_SIZE": str(world),
        "LOCAL_WORLD_SIZE": str(world),
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(_free_port()),
    }
    procs = [
        subprocess.Popen(
            cmd,
            env=_env(**common, RANK=str(r), LOCAL_RANK=str(r)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for r in range(world)
    ]
    try:
        errs = [p.communicate(timeout=600)[1] for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for r, (p, err) in enumerate(zip(procs, errs, strict=True)):
        assert p.returncode == 0, f"rank {r}: {err[-3000:]}"


@pytest.fixture(scope="module")
def two_ranks(prepared_small, tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    cli = _launch(
        [
            sys.executable,
            "-m",
            "c2fsum",
            "-q",
            "train",
            "--nproc",
            "2",
            "--config",
            M3_PRESET,
            "--data",
            str(prepared_small),
            "--out",
            str(out / "m3_part"),
            "--max-steps",
            "3",
            "--set",
            *M3,
        ]
    )
    jobs = [{"name": name, "set": sets, "dtype": EXACT_DTYPE} for name, sets in JOBS.items()]
    jobs += [
        {"name": "m3", "config": M3_PRESET, "set": [*M3, "train.max_steps=5"]},
        {"name": "m3_part", "config": M3_PRESET, "set": [*M3, "train.max_steps=5"], "resume": True},
    ]
    (out / "jobs.json").write_text(json.dumps(jobs))
    _spawn_ranks([sys.executable, str(WORKER), str(prepared_small), str(out), str(out / "jobs.json")])
    return out, cli.stdout


def _one_process(name: str, data: Path, out: Path) -> Trainer:
    with default_dtype(EXACT_DTYPE):
        t = Trainer(load_config(None, JOBS[name]), data, out / name, progress=False)
        t.fit()
    return t


def _max_diff(a: dict, b: dict) -> float:
    assert a.keys() == b.keys()
    return max(float((a[k].float() - b[k].float()).abs().max()) for k in a)


def _rows(run: Path, split: str) -> list[dict]:
    return [r for r in map(json.loads, (run / "metrics.jsonl").read_text().splitlines()) if r["split"] == split]


@pytest.mark.parametrize("name", ["m0", "m2", "m0_odd"])
def test_two_processes_reach_the_parameters_of_one(two_ranks, prepared_small, tmp_path, name):
    out, _ = two_ranks
    one = _one_process(name, prepared_small, tmp_path)
    ref = {k: v.detach() for k, v in one.model.state_dict().items()}
    ranks = [load_file(str(out / f"{name}.rank{r}.safetensors")) for r in (0, 1)]
    assert _max_diff(ranks[0], ranks[1]) == 0.0  # DDP keeps the replicas identical
    diff = _max_diff(ref, ranks[0])
    print(f"{name}: max |1 process - 2 processes| = {diff:.3g}")
    assert diff < TOL
    # the parameters moved well beyond that tolerance, so the comparison means something
    with default_dtype(EXACT_DTYPE):
        init = Trainer(
            load_config(None, [*JOBS[name], "train.max_steps=0"]), prepared_small, tmp_path / "init", progress=False
        ).model.state_dict()
    assert all(v.dtype == torch.float64 for v in ref.values() if v.is_floating_point())
    assert _max_diff(init, ref) > 100 * TOL
    # rank 0 logged what one process logs: the global training perplexity, validation over all ranks
    two, single = _rows(out / name, "train"), _rows(tmp_path / name, "train")
    assert [r["step"] for r in two] == [r["step"] for r in single] == list(range(1, len(two) + 1))
    for a, b in zip(two, single, strict=True):
        # float64 runs that differ by < TOL in every parameter: 1e-4 of the perplexity is a loose bound
        assert a["ppl"] == pytest.approx(b["ppl"], rel=1e-4) and a["lr"] == b["lr"]
    val2, val1 = _rows(out / name, "val"), _rows(tmp_path / name, "val")
    assert [r["step"] for r in val2] == [r["step"] for r in val1]
    assert [r["ppl"] for r in val2] == pytest.approx([r["ppl"] for r in val1], rel=1e-4)
    state = json.loads((out / name / "last" / "trainer.json").read_text())
    assert state["schedule"]["scale"] == one.schedule.scale and state["position"]["tokens"] == one.pos.tokens


def test_model3_baselines_are_equal_on_both_ranks(two_ranks):
    out, _ = two_ranks
    b0, b1 = (json.loads((out / f"m3.rank{r}.json").read_text())["baseline"] for r in (0, 1))
    assert len(b0) > 5 and any(v != 0.0 for v in b0)
    assert b0 == b1
    saved = json.loads((out / "m3" / "last" / "trainer.json").read_text())["baseline"]
    assert saved == b0


def test_a_two_process_run_resumes_exactly(two_ranks):
    """3 steps by `c2fsum train --nproc 2`, resumed to 5 in a new launch == 5 steps in one go,
    bit for bit: MODEL 3 with dropout samples chunks on each rank, so every rank's generators
    must come back from the checkpoint."""
    out, cli_stdout = two_ranks
    assert cli_stdout.count('"stop"') == 1  # one summary: rank 0 only
    full, resumed = (load_file(str(out / f"{n}.rank{r}.safetensors")) for n in ("m3", "m3_part") for r in (0,))
    assert _max_diff(full, resumed) == 0.0
    for r in (0, 1):
        a = json.loads((out / f"m3.rank{r}.json").read_text())["baseline"]
        assert a == json.loads((out / f"m3_part.rank{r}.json").read_text())["baseline"]
    assert [r["step"] for r in _rows(out / "m3_part", "train")] == [1, 2, 3, 4, 5]  # no row twice
    assert _rows(out / "m3_part", "train") == [
        {**r, "tgt_tokens_per_s": s["tgt_tokens_per_s"]}
        for r, s in zip(_rows(out / "m3", "train"), _rows(out / "m3_part", "train"), strict=True)
    ]
    assert not list(out.glob("m3_part/**/*rank1*"))  # rank 1 wrote nothing into the run


# -- one process -------------------------------------------------------------------------------
def test_shard_batch_splits_a_global_batch():
    assert shard_batch([10, 11, 12, 13, 14], 0, 2) == [10, 12, 14]
    assert shard_batch([10, 11, 12, 13, 14], 1, 2) == [11, 13]
    assert shard_batch([10], 1, 2) == []
    with pytest.raises(ValueError, match="rank 2 is not in 0..1"):
        shard_batch([1, 2], 2, 2)


def test_baseline_from_the_sums_of_parts_equals_the_whole():
    g = torch.Generator().manual_seed(0)
    returns = torch.randn(6, 5, generator=g, dtype=torch.float64)
    mask = torch.rand(6, 5, generator=g) > 0.3
    whole, parts = MovingAverageBaseline(0.1, [0.5] * 3), MovingAverageBaseline(0.1, [0.5] * 3)
    whole.update(returns, mask)
    (s1, c1), (s2, c2) = (MovingAverageBaseline.return_sums(returns[i::2], mask[i::2]) for i in (0, 1))
    parts.update_from_sums(s1 + s2, c1 + c2)
    assert torch.allclose(whole.values, parts.values, rtol=0, atol=1e-12)
    # hand check of the first step: b_0 <- 0.5 + 0.1 (mean of the real returns at t = 0 - 0.5)
    expect = 0.5 + 0.1 * (float(returns[mask[:, 0], 0].mean()) - 0.5)
    assert whole.values[0].item() == pytest.approx(expect, abs=1e-12)


def test_gradient_accumulation_equals_one_batch(prepared_small, tmp_path):
    sets = [*EXACT, "train.max_steps=3", "train.batch_size=8"]
    with default_dtype(EXACT_DTYPE):  # the same sums in another order: TOL's comment
        a = Trainer(load_config(None, sets), prepared_small, tmp_path / "a", progress=False)
        a.fit()
        b = Trainer(load_config(None, [*sets, "train.accumulate=3"]), prepared_small, tmp_path / "b", progress=False)
        b.fit()
    assert _max_diff(a.model.state_dict(), b.model.state_dict()) < TOL


def test_bf16_autocast_trains_close_to_float32(prepared_small, tmp_path):
    sets = [*EXACT, "train.max_steps=2", "train.batch_size=8"]
    from c2fsum.training.precision import cpu_bf16_lstm_available

    if not cpu_bf16_lstm_available():  # an AVX2 CPU: the trainer refuses bf16 by name instead of crashing in oneDNN
        with pytest.raises(TrainingError, match="train.amp=bf16: this CPU's oneDNN has no bfloat16 LSTM"):
            Trainer(load_config(None, [*sets, "train.amp=bf16"]), prepared_small, tmp_path / "b", progress=False)
        return
    a = Trainer(load_config(None, sets), prepared_small, tmp_path / "a", progress=False)
    a.fit()
    b = Trainer(load_config(None, [*sets, "train.amp=bf16"]), prepared_small, tmp_path / "b", progress=False)
    b.fit()
    diff = _max_diff(a.model.state_dict(), b.model.state_dict())
    assert 0.0 < diff < 0.05  # autocast was on (bf16 rounding) and training still agrees
    assert all(torch.isfinite(v).all() for v in b.model.state_dict().values())


def test_bad_amp_and_accumulation_values_are_named(prepared_small, tmp_path):
    with pytest.raises(ConfigError, match="train.amp: got 'fp8'"):  # refused at load, before any work
        load_config(None, [*TINY, "train.amp=fp8"])
    with pytest.raises(ConfigError, match="train.accumulate: got 0"):
        load_config(None, [*TINY, "train.accumulate=0"])


def test_nproc_becomes_a_torchrun_command():
    from c2fsum.cli.launch import torchrun_command

    cmd = torchrun_command(4, ["-q", "train", "--nproc", "4", "--config", "c.yaml", "--nproc=4", "--out", "r"])
    assert cmd[1:] == [
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc_per_node=4",
        "-m",
        "c2fsum",
        "-q",
        "train",
        "--config",
        "c.yaml",
        "--out",
        "r",
    ]
