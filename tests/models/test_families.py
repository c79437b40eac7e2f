"""The families as decoding and training see them: one constructor, how to read as an argument, copies."""

import copy

import pytest
import torch

from c2fsum.config import ModelConfig
from c2fsum.models import FAMILIES, CoarseToFine, build_model
from c2fsum.models.base import Reading
from grids import grid
from tiny import tiny_model

WRITERS = [f for f in FAMILIES if f != "select-rewrite"]
"""The families that write words (the sentence selector picks sentences: tests/models/test_select_rewrite.py)."""


@pytest.mark.parametrize("family", list(FAMILIES))
def test_build_model_is_the_family_class_built_from_the_config(family):
    cfg = ModelConfig(family=family, emb_dim=8, hidden=12, chunk_filters=6, chunk_width=3)
    torch.manual_seed(0)
    a = build_model(cfg, 30, 4)
    torch.manual_seed(0)
    b = FAMILIES[family](cfg, 30, 4)
    assert type(a) is FAMILIES[family]
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True))


def test_an_unknown_family_is_named_in_the_error():
    with pytest.raises(ValueError, match="model.family"):
        build_model(ModelConfig(family="model9"), 30)


@pytest.mark.parametrize("family", WRITERS)
def test_every_family_carries_the_reading_it_was_asked_for_on_the_memory_and_keeps_none(family):
    """How to read is an argument of encode, resolved there and carried on the memory (beam rows
    keep it); the model holds no reading of its own: two readings leave it as it was."""
    model = tiny_model(family, 30).eval()
    src, mask = grid(2, 4, 5, [12, 7])
    before = {k: v.clone() for k, v in model.state_dict().items()}
    asked = Reading(chunks=3, budget=0.5)
    with torch.no_grad():
        plain, three = model.encode(src, mask), model.encode(src, mask, reading=asked)
    hard = isinstance(model, CoarseToFine) and model.coarse == "hard"
    assert (three.reading.chunks, three.reading.budget) == (3, 0.5)
    assert (plain.reading.chunks, plain.reading.budget) == (1, 1.0)
    assert three.reading.mode == ("argmax" if hard else "soft" if isinstance(model, CoarseToFine) else "")
    assert three.reading.lazy is hard and (three.lazy is not None) is hard
    assert three.select(torch.tensor([1, 1, 0])).reading is three.reading
    assert not any(hasattr(model, a) for a in ("read_chunks", "read_budget", "lazy", "reading"))
    assert all(torch.equal(v, model.state_dict()[k]) for k, v in before.items())


@pytest.mark.parametrize("family", WRITERS)
def test_a_deep_copy_runs_its_own_modules(family):
    """The parts hold the family's modules, not parameters: a copy's parts run the copy's modules."""
    model = tiny_model(family, 30)
    twin = copy.deepcopy(model)
    with torch.no_grad():
        for p in twin.parameters():
            p.add_(0.01)
    src, mask = grid(2, 4, 5, [12, 7])
    tgt = torch.randint(4, 30, (2, 4))
    with torch.no_grad():
        assert not torch.allclose(model(src, mask, tgt).logprobs, twin(src, mask, tgt).logprobs)
        for p in twin.parameters():
            p.sub_(0.01)
        assert torch.allclose(model(src, mask, tgt).logprobs, twin(src, mask, tgt).logprobs, atol=1e-6)
