"""``c2fsum export`` of every preset family (MODEL 0, 1, 2, 3 and Paulus et al.'s, whose embedding is
shared between source and target) at float32 and float16: the folder loads back and decodes the
tokens of its source model.

What is pinned is exact: float32 weights are stored bit for bit, so the export decodes the tokens of
the run's checkpoint; float16 weights load back as the float32 values of their rounding, so the export
decodes the tokens of the run's model with its weights rounded the same way in memory (the same
numbers through the same code: equal on any CPU).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

import c2fsum
import tiny
from c2fsum.cli.main import main
from c2fsum.data.prepare import read_split
from c2fsum.models.checkpoint import read_tensors

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
FAMILIES = ["model0-cpu", "model1-cpu", "model2-cpu", "model3-cpu", "paulus-ml-cpu"]
SETS = [*tiny.SHRINK, "data.max_tgt_len=6", "decode.beam=2", "decode.max_len=8", "decode.min_len=3"]


@pytest.fixture(scope="module")
def runs(prepared_small, tmp_path_factory) -> dict[str, Path]:
    """Each family trained 2 steps (tiny sizes) into its own run directory."""
    root = tmp_path_factory.mktemp("families")
    out = {}
    for name in FAMILIES:
        out[name] = root / name
        assert main(tiny.train_argv(CONFIGS / f"{name}.yaml", prepared_small, out[name], 2, SETS)) == 0
    return out


@pytest.fixture(scope="module")
def articles(prepared_small) -> list[str]:
    """Two test documents of the prepared folder as raw text."""
    docs = read_split(prepared_small, "test", limit=2)
    return [" ".join(w for sentence in d["src"] for w in sentence if w != "</s>") for d in docs]


def _round_in_memory(model: torch.nn.Module, dtype: torch.dtype) -> None:
    """Replace every floating-point weight by the float32 value of its rounding to ``dtype``."""
    with torch.no_grad():
        for v in model.state_dict().values():
            if v.is_floating_point():
                v.copy_(v.to(dtype).to(v.dtype))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("name", FAMILIES)
def test_export_loads_back_and_decodes_the_same_tokens(runs, articles, tmp_path, capsys, name, dtype):
    run, out = runs[name], tmp_path / "export"
    assert main(["-q", "export", "--model", str(run), "--which", "last", "--out", str(out), "--dtype", dtype]) == 0
    assert f"stored as {dtype}" in capsys.readouterr().out
    meta = json.loads((out / "export.json").read_text())
    assert meta["weights_dtype"] == dtype
    stored = read_tensors(out / "model.safetensors")
    source = read_tensors(run / "last" / "model.safetensors")
    assert stored.keys() == source.keys()
    want_dtype = getattr(torch, dtype)
    for k, v in source.items():
        assert stored[k].dtype == (want_dtype if v.is_floating_point() else v.dtype), k
        assert torch.equal(stored[k].to(v.dtype), v.to(stored[k].dtype).to(v.dtype)), k

    exported, reference = c2fsum.load(str(out)), c2fsum.load(str(run / "last"))
    assert exported.config.model.family == reference.config.model.family
    if dtype != "float32":
        _round_in_memory(reference.model, want_dtype)
    for k, v in exported.model.state_dict().items():  # loaded back as float32, the rounded values
        assert v.dtype == reference.model.state_dict()[k].dtype and torch.equal(v, reference.model.state_dict()[k]), k
    got, want = exported.summarize(articles), reference.summarize(articles)
    assert [s.tokens for s in got] == [s.tokens for s in want]
    assert all(s.tokens for s in want)  # something was decoded


def test_paulus_ties_its_embedding_in_the_export(runs, tmp_path):
    """One parameter under two names is written under each and comes back tied."""
    out = tmp_path / "export"
    assert main(["-q", "export", "--model", str(runs["paulus-ml-cpu"]), "--which", "last", "--out", str(out)]) == 0
    model = c2fsum.load(str(out)).model
    shared = {}
    for k, p in model.state_dict(keep_vars=True).items():
        shared.setdefault(p.data_ptr(), []).append(k)
    assert any(len(names) > 1 for names in shared.values())  # the tie survived loading
