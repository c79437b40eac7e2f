"""Issue 51: the beam search step's vocabulary-sized work made cheaper returns the same numbers.

Each speed path against the plain one it replaces: the block top-k (:func:`row_topk`) against
``torch.topk``, the constraints written in place (:meth:`StepConstraints.apply_`) against the
added bias, the generator's log-softmax in place against a new tensor, and beam search with
all of them against beam search with none, on a vocabulary wide enough for the block top-k.
"""

from __future__ import annotations

import pytest
import torch

import c2fsum.decoding.beam as beam_module
from c2fsum.config import ModelConfig
from c2fsum.decoding.beam import beam_search, row_topk
from c2fsum.decoding.hypothesis import RepeatBlocker, StepConstraints
from c2fsum.models import build_model
from grids import grid

WIDE = 3001
"""A vocabulary above :func:`row_topk`'s threshold for r = 10 (2,560), with a partial last block."""


@pytest.mark.parametrize("n", [2560, 3001, 50000, 50013])
@pytest.mark.parametrize("r", [1, 2, 10])
def test_row_topk_is_torch_topk(n, r):
    g = torch.Generator().manual_seed(n + r)
    x = torch.log_softmax(torch.randn(7, n, generator=g) * 3, dim=1)
    x[:, [0, 1, 3]] = float("-inf")  # forbidden columns
    x[2, : n // 2] = float("-inf")  # a row mostly forbidden
    x[3, -5:] = 10.0 + torch.arange(5.0)  # the best words in the partial last block
    x[4, 64:128] = 5.0 + torch.rand(64, generator=g)  # the best words all in one block
    values, idx = row_topk(x, r)
    want_values, want_idx = x.topk(r, dim=1)
    assert torch.equal(values, want_values)
    assert torch.equal(idx, want_idx)


def test_row_topk_ties_keep_the_values():
    x = torch.zeros(3, 4000)
    x[:, ::7] = 1.0  # many equal best values: torch.topk's order among them is unspecified
    values, idx = row_topk(x, 10)
    assert torch.equal(values, x.topk(10, dim=1).values)
    assert torch.equal(x.gather(1, idx), values)
    assert all(len(set(row)) == 10 for row in idx.tolist())


@pytest.mark.parametrize("min_len", [0, 3])
@pytest.mark.parametrize("rules", [None, "trigrams", "both"])
def test_constraints_in_place_are_the_added_bias(min_len, rules):
    g = torch.Generator().manual_seed(min_len)
    rows, n = 6, 40
    constrain = StepConstraints(pad_id=0, bos_id=1, eos_id=2, min_len=min_len, never=[7, 2, 99])
    blocker = None
    if rules:
        blocker = RepeatBlocker(rows, trigrams=True, back_to_back=rules == "both")
        history = torch.randint(4, 9, (5, rows), generator=g).tolist()
        for toks in history:
            blocker.advance(list(range(rows)), toks)
    for step in (0, 2, 3, 5):
        lp = torch.log_softmax(torch.randn(rows, n, generator=g), dim=1)
        lp[0, 4:] = float("-inf")  # a row with few words left: may get </s> back
        want = constrain(lp, step=step, blocker=blocker)
        got = constrain.apply_(lp.clone(), step=step, blocker=blocker)
        assert torch.equal(got, want)


def test_constraints_in_place_leave_gradients_alone():
    constrain = StepConstraints(pad_id=0, bos_id=1, eos_id=2, min_len=2)
    lp = torch.log_softmax(torch.randn(3, 10, requires_grad=True), dim=1)
    out = constrain.apply_(lp, step=0)
    assert out is not lp and out.requires_grad
    assert torch.equal(out, constrain(lp, step=0))


def _model(pointer: bool, vocab: int = WIDE):
    torch.manual_seed(3)
    cfg = ModelConfig(emb_dim=8, hidden=12, enc_layers=1, dec_layers=2, dropout=0.0, pointer=pointer)
    return build_model(cfg, vocab).eval()


@pytest.mark.parametrize("pointer", [False, True])
def test_generator_log_softmax_in_place_is_the_same(pointer):
    model = _model(pointer)
    src, mask = grid(3, 2, 5, [10, 7, 3], seed=1, vocab=WIDE)
    prev = torch.tensor([5, 6, 7])
    with torch.no_grad():
        memory = model.encode(src, mask)
        got = model.step(memory, model.init_state(memory), prev).logprobs
    memory = model.encode(src, mask)
    want = model.step(memory, model.init_state(memory), prev).logprobs  # with gradients: a new tensor
    assert want.requires_grad
    want = want.detach()
    # The same words at -inf; the values equal up to rounding: without gradients the generator may
    # run a packed GEMM (another summation order), 1 ulp apart under ATEN_CPU_CAPABILITY=avx2 with
    # oneDNN/MKL at AVX2 (9.5e-7 at |log p| ~ 8.7). Bound: 8 float32 ulps of the largest |log p|.
    finite = torch.isfinite(want)
    assert torch.equal(finite, torch.isfinite(got))
    bound = 8 * torch.finfo(torch.float32).eps * float(want[finite].abs().max())
    assert float((got - want)[finite].abs().max()) <= bound


def _plain_step(monkeypatch):
    """Beam search as before issue 51: torch.topk on whole rows, the constraints' bias added."""
    monkeypatch.setattr(beam_module, "row_topk", lambda x, r: x.topk(r, dim=1))
    monkeypatch.setattr(StepConstraints, "apply_", StepConstraints.__call__)


@pytest.mark.parametrize("pointer", [False, True])
@pytest.mark.parametrize(
    "opts",
    [
        dict(beam=5, max_len=8, min_len=8),  # bench/speed.py's decoding: every summary max_len long
        dict(beam=4, max_len=9, min_len=2, length_norm=1.0, block_trigrams=True, n_best=2),
        dict(beam=3, max_len=7, block_repeats=True, block_trigrams=True, never=[9, 10]),
    ],
)
def test_beam_search_same_as_without_the_step_kernels(monkeypatch, pointer, opts):
    model = _model(pointer)
    src, mask = grid(4, 3, 5, [15, 9, 4, 1], seed=2, vocab=WIDE)
    with torch.no_grad():
        fast = beam_search(model, model.encode(src, mask), **opts)
        with monkeypatch.context() as m:
            _plain_step(m)
            plain = beam_search(model, model.encode(src, mask), **opts)
    for hs_fast, hs_plain in zip(fast, plain, strict=True):
        assert len(hs_fast) == len(hs_plain)
        for a, b in zip(hs_fast, hs_plain, strict=True):
            assert a.tokens == b.tokens and a.eos == b.eos
            assert a.score == b.score and a.norm_score == b.norm_score
            assert torch.equal(a.attn, b.attn)


@pytest.mark.parametrize("shared", [False, True])
def test_output_weights_made_once_while_the_weights_stay(shared):
    torch.manual_seed(4)
    cfg = ModelConfig(emb_dim=8, hidden=12, enc_layers=1, dec_layers=1, dropout=0.0, share_embeddings=shared)
    model = build_model(cfg, WIDE).eval()
    src, mask = grid(2, 2, 5, [10, 4], seed=3, vocab=WIDE)

    def decode():
        memory = model.encode(src, mask)
        hyps = beam_search(model, memory, beam=3, max_len=6)
        return memory.shared, [(h[0].tokens, h[0].score) for h in hyps]

    with torch.no_grad():
        first, hyps = decode()
        again, hyps_again = decode()
        assert again is first and hyps_again == hyps  # the next batch reuses them
        model.gen.vocab.bias.add_(1.0)  # an in-place change of a weight the key does not hold...
        assert decode()[0] is first  # ...is read at every step: the bias is not packed
        emb_or_weight = model.tgt_emb.weight if shared else model.gen.vocab.weight
        emb_or_weight.mul_(1.5)  # changed in place (as an optimizer step): made anew
        changed, hyps_changed = decode()
        assert changed is not first
        model.load_state_dict({k: v.clone() for k, v in model.state_dict().items()})
        assert decode()[0] is not changed
    model.train()
    assert model.gen._kept is None  # training keeps no copy
    model.eval()
    with torch.no_grad():
        fresh, hyps_fresh = decode()
    assert fresh is not changed and hyps_fresh == hyps_changed  # the same summaries as when made anew
    memory = model.encode(src, mask)
    model.gen.prepare(memory, model.kernels, model.tgt_emb.weight)  # with gradients: never kept
    assert memory.shared is not fresh and model.gen._kept is not None and model.gen._kept[1] is fresh
