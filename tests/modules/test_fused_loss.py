"""The fused training loss (modules/generators.log_softmax_pick) equals log_softmax + gather."""

import math

import pytest
import torch

from c2fsum.config import ModelConfig
from c2fsum.models import build_model
from c2fsum.modules.generators import log_softmax_pick
from grids import grid


def test_hand_computed_value():
    logits = torch.tensor([[0.0, math.log(3.0)]])  # softmax = (1/4, 3/4)
    assert torch.allclose(log_softmax_pick(logits, torch.tensor([1])), torch.tensor([math.log(0.75)]))
    assert torch.allclose(log_softmax_pick(logits, torch.tensor([0])), torch.tensor([math.log(0.25)]))


def test_gradcheck_float64():
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(2, 3, 7, dtype=torch.float64, generator=g, requires_grad=True)
    target = torch.randint(0, 7, (2, 3), generator=g)
    assert torch.autograd.gradcheck(lambda x: log_softmax_pick(x, target), (logits,))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_equals_the_plain_composition(dtype):
    g = torch.Generator().manual_seed(1)
    base = (4 * torch.randn(3, 5, 50, generator=g)).to(dtype)
    target = torch.randint(0, 50, (3, 5), generator=g)
    weight = torch.randn(3, 5, generator=g)  # an upstream gradient that is not all ones
    outs = []
    for fused in (True, False):
        x = base.clone().requires_grad_()
        if fused:
            lp = log_softmax_pick(x, target)
        else:
            lp = torch.log_softmax(x.float(), -1).gather(-1, target.unsqueeze(-1)).squeeze(-1)
        (lp * weight).sum().backward()
        outs.append((lp.detach(), x.grad))
    assert outs[0][1].dtype == dtype
    assert torch.allclose(outs[0][0], outs[1][0], atol=1e-5)
    assert torch.allclose(outs[0][1].float(), outs[1][1].float(), atol=1e-6 if dtype == torch.float32 else 1e-2)


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
