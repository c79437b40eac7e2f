"""Every family and option combination keeps its parameter names, their order and its initial
weights: old checkpoints and saved optimizer states (which follow the order of
:meth:`Summarizer.optimizer_parameters`) must load.

The fixture ``state_dict_keys.json`` was written by :func:`snapshot` from the code before the
families were built by composition (issue 30); rewrite it only on purpose, with
``python tests/models/test_state_dict_keys.py``. Its names are those of the older checkpoints:
today's model must give them through its key map (:data:`c2fsum.models.seq2seq.Seq2Seq.RENAMED`),
and its optimizer must take the parameters in the fixture's order (that of ``parameters()`` when
the family registered every module itself, before the parts owned their parameters).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tiny import tiny_model  # noqa: E402

FIXTURE = Path(__file__).with_name("state_dict_keys.json")
VOCAB = 40

PAULUS = dict(
    bidirectional=True,
    intra_decoder=True,
    pointer=True,
    share_embeddings=True,
    share_src_tgt_emb=True,
    output="paulus",
    input_feed=False,
)
OPTIONS: dict[str, dict] = {
    "plain": {},
    "intra_decoder": dict(intra_decoder=True),
    "pointer": dict(pointer=True),
    "pointer_intra": dict(pointer=True, intra_decoder=True),
    "share_embeddings": dict(share_embeddings=True),
    "shared_linear": dict(share_embeddings=True, shared_output="linear"),
    "share_src_tgt_emb": dict(share_src_tgt_emb=True),
    "paulus_output": dict(output="paulus"),
    "no_input_feed": dict(input_feed=False),
    "bidirectional": dict(bidirectional=True),
    "enc2_dec1": dict(enc_layers=2),
    "paulus_all": PAULUS,
}
FLAT_ONLY = {"temporal": dict(temporal=True), "paulus_all_temporal": {**PAULUS, "temporal": True}}
HIERARCHICAL_ONLY = {
    "bow": dict(chunk_encoder="bow"),
    "pos": dict(pos_dim=3),
    "bow_pos_paulus": {**PAULUS, "chunk_encoder": "bow", "pos_dim": 3},
}
COMBOS = [
    (family, name, kw)
    for family in ("model0", "model1", "model2", "model3")
    for name, kw in {**OPTIONS, **(FLAT_ONLY if family in ("model0", "model1") else HIERARCHICAL_ONLY)}.items()
] + [("model3", "lazy_fine", dict(lazy_fine=True))]


def describe(family: str, kw: dict) -> dict:
    """State-dict keys, parameter names in the optimizer's order, and a fingerprint of each initial
    weight drawn after seed 0 (its sum and an index-weighted sum, float64)."""
    model = tiny_model(family, VOCAB, seed=0, **kw)
    prints, bounds = {}, {}
    for name, p in model.optimizer_parameters():
        v = p.detach().double().flatten()
        index = torch.arange(v.numel(), dtype=v.dtype)
        prints[name] = [round(float(v.sum()), 9), round(float((v * index).sum()), 6)]
        top = float(v.abs().max()) if v.numel() else 0.0
        bounds[name] = [v.numel() * top, float(index.sum()) * top]  # for the tolerance
    return dict(state_dict=list(model.state_dict()), parameters=list(prints), init=prints, bounds=bounds)


def snapshot() -> dict:
    """The fixture: :func:`describe` of every combination without its ``bounds``."""
    out = {}
    for family, name, kw in COMBOS:
        d = describe(family, kw)
        del d["bounds"]
        out[f"{family}/{name}"] = d
    return out


@pytest.mark.parametrize("family,name,kw", COMBOS, ids=[f"{f}/{n}" for f, n, _ in COMBOS])
def test_parameter_names_order_and_initial_weights_are_those_of_the_fixture(family, name, kw):
    want = json.loads(FIXTURE.read_text())[f"{family}/{name}"]
    got = describe(family, kw)
    # the fixture holds the names of older checkpoints: today's are those through the key map
    renamed = type(tiny_model(family, VOCAB, seed=0, **kw)).renamed
    assert sorted(got["state_dict"]) == sorted(renamed(dict.fromkeys(want["state_dict"])))
    assert got["parameters"] == list(renamed(dict.fromkeys(want["parameters"])))
    want["init"] = renamed(want["init"])
    # The weights are drawn by the same generator on every CPU, but the kernel that scales a draw u
    # into u * (b - a) + a rounds differently on other instruction sets (measured under
    # ATEN_CPU_CAPABILITY=default: 2 units in the last place of a bias). Two float32 roundings of
    # values no larger than the tensor's largest |v| move a weight by at most 2 * 2^-23 * max|v|;
    # we allow twice that, 2^-21 * max|v| per weight, so n * 2^-21 * max|v| on the sum and
    # sum_i i * 2^-21 * max|v| on the index-weighted sum; plus the fixture's rounding to 9 and 6 decimals.
    for key, (total, weighted) in want["init"].items():
        (got_total, got_weighted), (bound, bound_weighted) = got["init"][key], got["bounds"][key]
        assert abs(got_total - total) <= 2**-21 * bound + 5e-10, key
        assert abs(got_weighted - weighted) <= 2**-21 * bound_weighted + 5e-7, key


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(snapshot(), indent=1) + "\n")


@pytest.mark.parametrize("family", ["model0", "model3"])
def test_weights_saved_under_the_old_names_load_through_the_key_map(family, tmp_path):
    """A checkpoint written before the generator owned its parameters (``generator.*``,
    ``switch.*``) loads into today's model (``gen.vocab.*``, ``gen.switch.*``), every tensor in place."""
    from safetensors.torch import save_file

    from c2fsum.models.checkpoint import load_weights
    from c2fsum.models.seq2seq import Seq2Seq

    saved = tiny_model(family, VOCAB, seed=0, pointer=True)
    back = {new: old for old, new in Seq2Seq.RENAMED.items()}
    old_names = {}
    for k, v in saved.state_dict().items():
        new = next((n for n in back if k.startswith(n)), None)
        old_names[k if new is None else back[new] + k[len(new) :]] = v.clone()
    assert {"generator.bias", "switch.weight"} <= set(old_names)
    save_file(old_names, str(tmp_path / "model.safetensors"))
    model = tiny_model(family, VOCAB, seed=1, pointer=True)
    load_weights(model, tmp_path / "model.safetensors")
    assert all(torch.equal(v, model.state_dict()[k]) for k, v in saved.state_dict().items())


@pytest.mark.parametrize("family,name", [("model0", "paulus_all"), ("model3", "pos"), ("model3", "bow_pos_paulus")])
def test_an_old_runs_optimizer_state_resumes_onto_the_same_parameters(family, name, tmp_path):
    """Optimizer states are saved by position (:mod:`c2fsum.training.checkpoint`). A run saved before
    the parts owned their parameters numbered them as the fixture lists them (old names; a chunk
    encoder's in a second group, its own learning rate). Such a state, written here by hand with
    each parameter's entry unique, resumes onto the parameter of the same (renamed) name."""
    from c2fsum.config import load_config
    from c2fsum.models.checkpoint import write_tensors
    from c2fsum.training.checkpoint import restore_optimizer
    from c2fsum.training.optim import make_optimizer

    kw = {**OPTIONS, **FLAT_ONLY, **HIERARCHICAL_ONLY}[name]
    model = tiny_model(family, VOCAB, seed=0, **kw)

    def today(old: str) -> str:
        return next(iter(type(model).renamed({old: None})))

    trainable = {n for n, p in model.named_parameters() if p.requires_grad}
    old_names = [n for n in json.loads(FIXTURE.read_text())[f"{family}/{name}"]["parameters"] if today(n) in trainable]
    chunk = [n for n in old_names if n.startswith("chunk_encoder.")]
    rest = [n for n in old_names if not n.startswith("chunk_encoder.")]
    pid = {n: i for i, n in enumerate(rest + chunk)}  # torch numbers the parameters group after group
    shapes = {n: p.shape for n, p in model.named_parameters()}
    tensors = {}
    for old, i in pid.items():
        tensors[f"{i}.sum"] = torch.full(shapes[today(old)], float(i + 1))
        tensors[f"{i}.step"] = torch.tensor(float(i + 7))
    cfg = load_config(None, ["train.optimizer=adagrad"])
    groups = make_optimizer(model, cfg).state_dict()["param_groups"]
    groups[0]["params"] = [pid[n] for n in rest]
    if chunk:
        groups[1]["params"] = [pid[n] for n in chunk]
    write_tensors(tmp_path / "optimizer.safetensors", tensors)
    optimizer = make_optimizer(model, cfg)
    restore_optimizer(tmp_path, optimizer, {"optimizer": {"param_groups": groups, "scalars": {}}})
    params = dict(model.named_parameters())
    for old, i in pid.items():
        state = optimizer.state[params[today(old)]]
        assert torch.equal(state["sum"], torch.full_like(state["sum"], float(i + 1))), old
        assert float(state["step"]) == i + 7, old
    assert bool(chunk) == (family == "model3")
