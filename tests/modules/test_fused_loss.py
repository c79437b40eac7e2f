"""The fused training loss (modules/generators.linear_log_softmax_pick) equals linear + log_softmax + gather."""

import math

import pytest
import torch

from c2fsum.config import ModelConfig
from c2fsum.models import build_model
from c2fsum.modules.generators import linear_log_softmax_pick
from grids import grid


def _plain(features, weight, bias, target):
    logits = torch.nn.functional.linear(features, weight, bias)
    return torch.log_softmax(logits.float(), -1).gather(-1, target.unsqueeze(-1)).squeeze(-1)


def test_hand_computed_value():
    # features (1, 2) with identity weight: logits = (0, ln 3), softmax = (1/4, 3/4)
    f = torch.tensor([[0.0, math.log(3.0)]])
    w, b = torch.eye(2), torch.zeros(2)
    assert torch.allclose(linear_log_softmax_pick(f, w, b, torch.tensor([1])), torch.tensor([math.log(0.75)]))
    assert torch.allclose(linear_log_softmax_pick(f, w, b, torch.tensor([0])), torch.tensor([math.log(0.25)]))
    # gradient by hand: d/dlogits of log p(1) = onehot(1) - softmax = (-1/4, 1/4); through W = I
    f.requires_grad_()
    linear_log_softmax_pick(f, w, b, torch.tensor([1])).sum().backward()
    assert torch.allclose(f.grad, torch.tensor([[-0.25, 0.25]]))


def test_gradcheck_float64(monkeypatch):
    import c2fsum.modules.generators as gen

    monkeypatch.setattr(gen, "OVERWRITE_LOGITS", False)  # gradcheck runs backward repeatedly on one graph
    g = torch.Generator().manual_seed(0)
    features = torch.randn(2, 3, 5, dtype=torch.float64, generator=g, requires_grad=True)
    weight = torch.randn(7, 5, dtype=torch.float64, generator=g, requires_grad=True)
    bias = torch.randn(7, dtype=torch.float64, generator=g, requires_grad=True)
    target = torch.randint(0, 7, (2, 3), generator=g)
    assert torch.autograd.gradcheck(lambda f, w, b: linear_log_softmax_pick(f, w, b, target), (features, weight, bias))


def _both(features, weight, bias, target, upstream, fused, autocast=False):
    leaves = [t.clone().requires_grad_() for t in (features, weight, bias)]
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        lp = (linear_log_softmax_pick if fused else _plain)(*leaves, target)
    (lp * upstream).sum().backward()
    return lp.detach(), [t.grad for t in leaves]


@pytest.mark.parametrize("autocast", [False, True])
def test_equals_the_plain_composition(autocast):
    g = torch.Generator().manual_seed(1)
    features, weight, bias = torch.randn(3, 5, 16, generator=g), torch.randn(50, 16, generator=g), torch.randn(50)
    target = torch.randint(0, 50, (3, 5), generator=g)
    upstream = torch.randn(3, 5, generator=g)  # an upstream gradient that is not all ones
    (lp_f, g_f), (lp_p, g_p) = (_both(features, weight, bias, target, upstream, f, autocast) for f in (True, False))
    assert lp_f.dtype == torch.float32
    tol = 1e-5 if not autocast else 3e-2
    assert torch.allclose(lp_f, lp_p, atol=tol, rtol=tol)
    for a, b in zip(g_f, g_p, strict=True):
        assert a.dtype == b.dtype == torch.float32
        assert torch.allclose(a, b, atol=tol, rtol=tol)


def test_logits_far_below_the_maximum_get_zero_probability_and_the_inputs_are_left_alone():
    """The backward overwrites its own logits (clamped before exp): never the caller's tensors."""
    features = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    # logits as far apart as SGD at lr 1 drives them
    weight = torch.tensor([[0.0, 0.0], [-4000.0, 4000.0], [3.0, -1.0]])
    bias = torch.zeros(3)
    target = torch.tensor([0, 1])
    kept = [t.clone() for t in (features, weight, bias)]
    (lp_f, g_f), (lp_p, g_p) = (_both(features, weight, bias, target, torch.ones(2), f) for f in (True, False))
    assert torch.allclose(lp_f, lp_p)
    for a, b in zip(g_f, g_p, strict=True):
        assert torch.allclose(a, b, atol=1e-30)
    for t, k in zip((features, weight, bias), kept, strict=True):
        assert torch.equal(t, k)


def test_overwriting_the_logits_gives_the_gradients_of_keeping_them(monkeypatch):
    import c2fsum.modules.generators as gen

    g = torch.Generator().manual_seed(3)
    args = torch.randn(5, 8, generator=g), torch.randn(30, 8, generator=g), torch.randn(30, generator=g)
    target, up = torch.randint(0, 30, (5,), generator=g), torch.randn(5, generator=g)
    overwritten = _both(*args, target, up, fused=True)
    monkeypatch.setattr(gen, "OVERWRITE_LOGITS", False)
    kept = _both(*args, target, up, fused=True)
    for a, b in zip(overwritten[1], kept[1], strict=True):
        assert torch.equal(a, b)


def test_rows_are_sliced_in_the_forward_pass(monkeypatch):
    """Slices of one row at a time give the same result as one slice of every row."""
    import c2fsum.modules.generators as gen

    g = torch.Generator().manual_seed(2)
    args = torch.randn(4, 6, generator=g), torch.randn(9, 6, generator=g), torch.randn(9, generator=g)
    target = torch.randint(0, 9, (4,), generator=g)
    whole = linear_log_softmax_pick(*args, target)
    monkeypatch.setattr(gen, "_SLICE_BYTES", 1)
    assert torch.equal(linear_log_softmax_pick(*args, target), whole)


@pytest.mark.parametrize(
    "family, kw",
    [("model0", {}), ("model3", dict(lazy_fine=True)), ("model0", dict(pointer=True, intra_decoder=True))],
)
def test_model_forward_with_target_gives_the_plain_loss_and_gradients(family, kw):
    """Forward given the target (fused path, or gather for a pointer model) against plain log-probabilities."""
    cfg = ModelConfig(family=family, emb_dim=8, hidden=12, enc_layers=1, dec_layers=1, chunk_filters=6, **kw)
    torch.manual_seed(0)
    model = build_model(cfg, 40, 4).double().train()
    src, mask = grid(3, 4, 5, [20, 13, 6])
    tgt_in = torch.randint(4, 40, (3, 6))
    tgt_in[:, 0] = model.bos_id
    tgt_out = torch.cat([tgt_in[:, 1:], torch.full((3, 1), model.eos_id)], 1)
    results = []
    for fused in (True, False):
        model.zero_grad(set_to_none=True)
        torch.manual_seed(7)  # same dropout masks and chunk samples
        out = model(src, mask, tgt_in, target=tgt_out if fused else None)
        if fused:
            lp = out.target_lp
            assert (out.logprobs is None) == (family != "model0" or "pointer" not in kw)
        else:
            lp = out.logprobs.gather(-1, tgt_out.unsqueeze(-1)).squeeze(-1)
        lp.sum().backward()
        results.append((lp.detach(), {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}))
    (lp_f, g_f), (lp_p, g_p) = results
    assert torch.allclose(lp_f, lp_p, rtol=1e-10, atol=1e-12)
    assert g_f.keys() == g_p.keys() and len(g_f) > 5
    for name in g_f:
        assert torch.allclose(g_f[name], g_p[name], rtol=1e-9, atol=1e-12), name
