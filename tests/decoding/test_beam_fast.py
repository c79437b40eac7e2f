"""The optimized beam search returns exactly what the plain reference (tests/decoding/beam_reference.py) returns."""

import pytest
import torch
from beam_reference import beam_search_reference

from c2fsum.config import ModelConfig
from c2fsum.decoding.beam import beam_search
from c2fsum.models import build_model
from c2fsum.modules.kernels import PLAIN
from grids import grid

V = 30


def _model(kind: str, seed: int):
    torch.manual_seed(seed)
    if kind.startswith("model0"):
        kw = {
            "model0": {},
            "model0-paulus": dict(temporal=True, intra_decoder=True, output="paulus"),
            "model0-pointer": dict(pointer=True),
        }[kind]
        cfg = ModelConfig(emb_dim=8, hidden=12, enc_layers=2, dec_layers=2, dropout=0.0, **kw)
        return build_model(cfg, V).eval()
    cfg = ModelConfig(
        family=kind, emb_dim=8, hidden=12, enc_layers=1, dec_layers=2, dropout=0.0, chunk_filters=10, chunk_width=3
    )
    return build_model(cfg, V, max_chunks=4).eval()


@pytest.mark.parametrize("kind", ["model0", "model0-paulus", "model0-pointer", "model2", "model3"])
@pytest.mark.parametrize(
    "opts",
    [
        dict(beam=5, max_len=7),
        dict(beam=3, max_len=9, min_len=4, n_best=3),
        dict(beam=4, max_len=8, length_norm=1.0, block_trigrams=True),
        dict(beam=3, max_len=9, block_repeats=True, block_trigrams=True),
        dict(beam=1, max_len=6),
    ],
)
def test_same_hypotheses_as_the_reference(kind, opts):
    model = _model(kind, seed=len(kind))
    src, mask = grid(4, 4, 5, [20, 13, 6, 1], seed=2)
    with torch.no_grad():
        fast = beam_search(model, model.encode(src, mask), **opts)
        model.kernels = PLAIN  # the reference: plain products everywhere
        ref = beam_search_reference(model, model.encode(src, mask), **opts)
    assert len(fast) == len(ref) == 4
    for hs_fast, hs_ref in zip(fast, ref, strict=True):
        assert [h.tokens for h in hs_fast] == [h.tokens for h in hs_ref]
        assert [h.eos for h in hs_fast] == [h.eos for h in hs_ref]
        for a, b in zip(hs_fast, hs_ref, strict=True):
            assert a.score == pytest.approx(b.score, abs=1e-5)
            assert a.norm_score == pytest.approx(b.norm_score, abs=1e-5)
            assert torch.allclose(a.attn, b.attn, atol=1e-6)
            assert (a.coarse is None) == (b.coarse is None)


def test_model0_beams_share_the_document_memory():
    assert _model("model0", 0).capabilities.memory_per_document
    assert not _model("model0-pointer", 0).capabilities.memory_per_document
    assert not _model("model2", 0).capabilities.memory_per_document
