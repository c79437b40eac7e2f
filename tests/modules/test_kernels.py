"""Every speed path of modules/kernels.py (and the ones it lists) against its plain twin: values and gradients.

StepMatrix and RowSource are tested in test_deferred.py."""

import math

import pytest
import torch

from c2fsum.config import ModelConfig
from c2fsum.models import build_model
from c2fsum.modules.kernels import (
    FAST,
    PLAIN,
    linear_log_softmax_pick,
    linear_log_softmax_pick_plain,
    pack_linear_weight,
    packed_linear,
)
from grids import grid


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


def test_gradcheck_float64():
    g = torch.Generator().manual_seed(0)
    features = torch.randn(2, 3, 5, dtype=torch.float64, generator=g, requires_grad=True)
    weight = torch.randn(7, 5, dtype=torch.float64, generator=g, requires_grad=True)
    bias = torch.randn(7, dtype=torch.float64, generator=g, requires_grad=True)
    target = torch.randint(0, 7, (2, 3), generator=g)
    # gradcheck runs backward repeatedly on one graph: the logits must not be overwritten
    assert torch.autograd.gradcheck(
        lambda f, w, b: linear_log_softmax_pick(f, w, b, target, overwrite=False), (features, weight, bias)
    )
    assert torch.autograd.gradcheck(
        lambda f, w, b: linear_log_softmax_pick_plain(f, w, b, target), (features, weight, bias)
    )


def _both(features, weight, bias, target, upstream, fused, autocast=False):
    leaves = [t.clone().requires_grad_() for t in (features, weight, bias)]
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        lp = (linear_log_softmax_pick if fused else linear_log_softmax_pick_plain)(*leaves, target)
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


def test_overwriting_the_logits_gives_the_gradients_of_keeping_them():
    g = torch.Generator().manual_seed(3)
    args = torch.randn(5, 8, generator=g), torch.randn(30, 8, generator=g), torch.randn(30, generator=g)
    target, up = torch.randint(0, 30, (5,), generator=g), torch.randn(5, generator=g)
    grads = []
    for overwrite in (True, False):
        leaves = [t.clone().requires_grad_() for t in args]
        (linear_log_softmax_pick(*leaves, target, overwrite=overwrite) * up).sum().backward()
        grads.append([t.grad for t in leaves])
    for a, b in zip(*grads, strict=True):
        assert torch.equal(a, b)


def test_rows_are_sliced_in_the_forward_pass():
    """Slices of one row at a time give the same result as one slice of every row."""
    g = torch.Generator().manual_seed(2)
    args = torch.randn(4, 6, generator=g), torch.randn(9, 6, generator=g), torch.randn(9, generator=g)
    target = torch.randint(0, 9, (4,), generator=g)
    whole = linear_log_softmax_pick(*args, target)
    assert torch.equal(linear_log_softmax_pick(*args, target, slice_bytes=1), whole)


def _model_and_batch(family: str, kw: dict, dec_layers: int):
    """A tiny model of ``family`` in training mode and a batch: src, mask ``(3, 4, 5)``, tgt_in, tgt_out ``(3, 6)``."""
    cfg = ModelConfig(family=family, emb_dim=8, hidden=12, enc_layers=1, dec_layers=dec_layers, chunk_filters=6, **kw)
    torch.manual_seed(0)
    model = build_model(cfg, 40, 4).train()
    src, mask = grid(3, 4, 5, [20, 13, 6])
    tgt_in = torch.randint(4, 40, (3, 6))
    tgt_in[:, 0] = model.bos_id
    tgt_out = torch.cat([tgt_in[:, 1:], torch.full((3, 1), model.eos_id)], 1)
    return model, src, mask, tgt_in, tgt_out


@pytest.mark.parametrize(
    "family, kw",
    [("model0", {}), ("model3", dict(lazy_fine=True)), ("model0", dict(pointer=True, intra_decoder=True))],
)
def test_model_forward_with_target_gives_the_plain_loss_and_gradients(family, kw):
    """Forward given the target (fused path, or gather for a pointer model) against plain log-probabilities."""
    model, src, mask, tgt_in, tgt_out = _model_and_batch(family, kw, dec_layers=1)
    model.double()
    results = []
    for fused in (True, False):
        model.zero_grad(set_to_none=True)
        torch.manual_seed(7)  # same dropout masks and chunk samples
        out = model(src, mask, tgt_in, target=tgt_out if fused else None)
        if fused:
            lp = out.target_lp
            assert out.logprobs is None  # a pointer model too: the target's copy term alone
        else:
            lp = out.logprobs.gather(-1, tgt_out.unsqueeze(-1)).squeeze(-1)
        lp.sum().backward()
        results.append((lp.detach(), {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}))
    (lp_f, g_f), (lp_p, g_p) = results
    assert torch.allclose(lp_f, lp_p, rtol=1e-10, atol=1e-12)
    assert g_f.keys() == g_p.keys() and len(g_f) > 5
    for name in g_f:
        assert torch.allclose(g_f[name], g_p[name], rtol=1e-9, atol=1e-12), name


def test_packed_linear_gives_the_plain_logits():
    g = torch.Generator().manual_seed(0)
    weight, bias, x = torch.randn(300, 16, generator=g), torch.randn(300, generator=g), torch.randn(7, 16, generator=g)
    with torch.no_grad():
        packed = pack_linear_weight(weight)
        if packed is None:
            pytest.skip("no oneDNN linear kernel in this torch build")
        fast, plain = packed_linear(x, packed, bias), torch.nn.functional.linear(x, weight, bias)
    assert torch.allclose(fast, plain, rtol=1e-5, atol=1e-5)
    assert pack_linear_weight(weight) is None  # with gradients: never packed
    assert pack_linear_weight(weight.double()) is None  # float32 only


@pytest.mark.parametrize("input_feed", [True, False])
def test_decoder_steps_equal_the_plain_cell_values_and_gradients(input_feed):
    """InputFeedingLSTM.prepare_steps + step (hoisted input product, deferred weight gradients)
    against forward (nn.LSTMCell), over a recurrence that feeds each output back in."""
    from c2fsum.modules.decoder import InputFeedingLSTM

    torch.manual_seed(0)
    E, H, L, B, T = 5, 6, 3, 4, 5
    dec = InputFeedingLSTM(input_dim=E + (H if input_feed else 0), hidden=H, layers=L, dropout=0.0).double()
    emb = torch.randn(B, T, E, dtype=torch.float64)
    results = []
    for fast in (True, False):
        dec.zero_grad(set_to_none=True)
        x = emb.clone().requires_grad_()
        h = c = torch.zeros(L, B, H, dtype=torch.float64)
        feed = torch.zeros(B, H, dtype=torch.float64)
        steps = dec.prepare_steps(x) if fast else None
        loss = x.new_zeros(())
        for t in range(T):
            rest = feed if input_feed else None
            if steps is not None:
                top, h, c = dec.step(steps, t, rest, h, c)
            else:
                top, h, c = dec(x[:, t] if rest is None else torch.cat([x[:, t], rest], -1), h, c)
            feed = torch.tanh(top)
            loss = loss + (top * (t + 1)).sum() + c.square().sum()
        loss.backward()
        results.append((loss.detach(), x.grad, {n: p.grad.clone() for n, p in dec.named_parameters()}))
    (loss_f, x_f, g_f), (loss_p, x_p, g_p) = results
    assert torch.allclose(loss_f, loss_p, rtol=1e-12)
    assert torch.allclose(x_f, x_p, rtol=1e-10, atol=1e-12)
    assert g_f.keys() == g_p.keys() and len(g_f) == 4 * L
    for name in g_f:
        assert torch.allclose(g_f[name], g_p[name], rtol=1e-10, atol=1e-12), name


@pytest.mark.parametrize("temporal", [False, True])
def test_rows_against_shared_memory_equal_attention_over_the_copied_memory(temporal):
    """BilinearAttention: R query rows per memory row, memory never copied, against the same
    attention over the memory repeated R times; values and gradients (temporal state included)."""
    from c2fsum.modules.attention import BilinearAttention

    torch.manual_seed(0)
    B, R, S, H = 3, 4, 7, 5
    att = BilinearAttention(query_dim=H, key_dim=H, temporal=temporal).double()
    mask = torch.ones(B, S, dtype=torch.bool)
    mask[1, 4:] = False
    base = torch.randn(B, S, H, dtype=torch.float64) * mask.unsqueeze(-1)
    query = torch.randn(B * R, H, dtype=torch.float64)
    past = torch.randn(B * R, S, dtype=torch.float64) if temporal else None
    results = []
    for shared in (True, False):
        values = base.clone().requires_grad_()
        q = query.clone().requires_grad_()
        if shared:
            ctx, alpha, new_past = att(q, values, values.transpose(1, 2).contiguous(), mask, past)
        else:
            v = values.repeat_interleave(R, 0)  # (B*R, S, H): row b*R + r is document b
            ctx, alpha, new_past = att(q, v, v.transpose(1, 2).contiguous(), mask.repeat_interleave(R, 0), past)
        (ctx.square().sum() + (alpha * torch.arange(S)).sum()).backward()
        results.append((ctx.detach(), alpha.detach(), new_past, values.grad, q.grad))
    shared, copied = results
    assert (shared[2] is None) == (copied[2] is None) == (not temporal)
    for a, b in zip(shared, copied, strict=True):
        if a is not None:
            assert torch.allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "family, kw",
    [
        ("model0", dict(output="paulus", share_embeddings=True, intra_decoder=True)),
        ("model0", dict(pointer=True, temporal=True)),
        ("model3", dict(lazy_fine=True)),
    ],
)
def test_model_with_every_plain_twin_trains_and_decodes_as_with_the_fast_paths(family, kw):
    """The one switch: a model built with ``kernels=PLAIN`` against the same weights with FAST."""
    model, src, mask, tgt_in, tgt_out = _model_and_batch(family, kw, dec_layers=2)
    results = []
    for kernels in (FAST, PLAIN):
        model.kernels = kernels
        model.train().zero_grad(set_to_none=True)
        torch.manual_seed(7)  # same dropout masks and chunk samples
        lp = model(src, mask, tgt_in, target=tgt_out).target_lp
        lp.sum().backward()
        grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
        model.eval()
        with torch.no_grad():
            memory = model.encode(src, mask)
            out = model.step(memory, model.init_state(memory), tgt_in[:, 0])
        results.append((lp.detach(), grads, out.logprobs))
    (lp_f, g_f, dec_f), (lp_p, g_p, dec_p) = results
    assert torch.allclose(lp_f, lp_p, rtol=1e-5, atol=1e-6)
    assert g_f.keys() == g_p.keys() and len(g_f) > 5
    for name in g_f:
        assert torch.allclose(g_f[name], g_p[name], rtol=1e-4, atol=1e-6), name
    assert torch.allclose(dec_f, dec_p, rtol=1e-5, atol=1e-5)
