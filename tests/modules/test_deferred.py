"""Deferred attention-memory gradients (modules/deferred.py) equal plain autograd's."""

import pytest
import torch

from c2fsum.config import ModelConfig
from c2fsum.losses.nll import token_nll
from c2fsum.models import Flat
from c2fsum.modules.deferred import StepMatrix
from c2fsum.modules.kernels import Kernels
from grids import grid


def _recurrence(m: torch.Tensor, deferred: bool, T: int = 5) -> torch.Tensor:
    """a_{t+1} = tanh(a_t @ m @ m^T): each step's input depends on the last step's output."""
    B, X, _ = m.shape
    a = torch.linspace(-1, 1, B * X, dtype=m.dtype).view(B, 1, X)
    sm = StepMatrix(m) if deferred else None
    mt = StepMatrix(m.transpose(1, 2).contiguous()) if deferred else None
    loss = m.new_zeros(())
    for t in range(T):
        y = sm.left_mul(a) if deferred else torch.bmm(a, m)  # (B, 1, Y)
        a = torch.tanh(mt.left_mul(y) if deferred else torch.bmm(y, m.transpose(1, 2)))
        loss = loss + (a * (t + 1)).sum()
    return loss


def test_step_matrix_gradient_equals_plain_autograd():
    g = torch.Generator().manual_seed(0)
    base = torch.randn(3, 4, 6, generator=g, dtype=torch.float64)
    grads = []
    for deferred in (False, True):
        m = base.clone().requires_grad_()
        _recurrence(m, deferred).backward()
        grads.append(m.grad)
    assert torch.allclose(grads[0], grads[1], rtol=1e-12, atol=1e-12)
    assert grads[0].abs().sum() > 0


def test_step_matrix_without_gradients_is_a_plain_bmm():
    m = torch.randn(2, 3, 4, requires_grad=True)
    a = torch.randn(2, 1, 3)
    with torch.no_grad():
        sm = StepMatrix(m)
        assert not sm.deferred
        assert torch.equal(sm.left_mul(a), torch.bmm(a, m))


def _grads(model: Flat, deferred: bool, src, mask, tgt_in, tgt_out, tgt_mask):
    model.kernels = Kernels(deferred_grads=deferred, parallel_steps=False)  # the step loop, with or without
    model.zero_grad(set_to_none=True)
    torch.manual_seed(7)  # same dropout masks
    lp, _ = model(src, mask, tgt_in)
    loss = token_nll(lp, tgt_out, tgt_mask) / src.size(0)
    loss.backward()
    return loss.detach(), {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(temporal=True, family="model1", enc_layers=1, dec_layers=1),
        dict(input_feed=False, dec_layers=3, enc_layers=1),
        dict(pointer=True, intra_decoder=True, output="paulus", share_embeddings=True),
    ],
)
def test_model0_training_step_same_loss_and_gradients(kw):
    torch.manual_seed(0)
    args = dict(emb_dim=8, hidden=12, enc_layers=2, dec_layers=2, dropout=0.3)
    model = Flat(ModelConfig(**{**args, **kw}), vocab_size=40).double().train()
    src, mask = grid(3, 4, 5, [20, 13, 6])
    tgt_in = torch.randint(4, 40, (3, 6))
    tgt_in[:, 0] = model.bos_id
    tgt_out = torch.cat([tgt_in[:, 1:], torch.full((3, 1), model.eos_id)], 1)
    tgt_mask = torch.ones(3, 6, dtype=torch.bool)
    tgt_mask[2, 4:] = False
    plain_loss, plain = _grads(model, False, src, mask, tgt_in, tgt_out, tgt_mask)
    fast_loss, fast = _grads(model, True, src, mask, tgt_in, tgt_out, tgt_mask)
    assert torch.equal(plain_loss, fast_loss)
    assert plain.keys() == fast.keys() and "source.encoder.rnn.weight_ih_l0" in plain
    assert all(s.deferred for s in model.encode(src, mask).cache.steps)  # the fast path really ran
    for name in plain:
        assert torch.allclose(plain[name], fast[name], rtol=1e-10, atol=1e-12), name


def _packed_and_skipping(enc, emb, mask):
    """``enc`` over ``emb`` with ``skip_packing`` False, then True: for each, the states, final
    ``(h, c)``, the input's gradient and the first recurrent weight's gradient of one loss."""
    outs = []
    for skip_packing in (False, True):
        x = emb.clone().requires_grad_()
        states, (h, c) = enc(x, mask, skip_packing=skip_packing)
        (states.square().sum() + h.sum() + 2 * c.sum()).backward()
        outs.append((states.detach(), h.detach(), c.detach(), x.grad, enc.rnn.weight_hh_l0.grad.clone()))
        enc.zero_grad()
    return outs


@pytest.mark.parametrize("kw", [dict(), dict(per_chunk=True), dict(bidirectional=True)])
def test_encoder_without_padding_skips_packing_with_the_same_results(kw):
    from c2fsum.modules.encoders import LSTMWordEncoder

    torch.manual_seed(0)
    enc = LSTMWordEncoder(emb_dim=6, hidden=8, layers=2, dropout=0.0, **kw).double()
    emb = torch.randn(3, 2, 5, 6, dtype=torch.float64)
    mask = torch.ones(3, 2, 5, dtype=torch.bool)  # every grid full: no padding
    outs = _packed_and_skipping(enc, emb, mask)
    for a, b in zip(*outs, strict=True):
        assert torch.allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_chunks_full_and_partial_run_apart_with_the_packed_results(bidirectional):
    """Per chunk, with full chunks beside a partial and an empty one (each document's last chunks):
    the full ones unpacked and the others packed give the all-packed states, final states and
    gradients (float64: only the summation order of the products may differ)."""
    from c2fsum.modules.encoders import LSTMWordEncoder

    torch.manual_seed(0)
    enc = LSTMWordEncoder(emb_dim=6, hidden=8, layers=2, dropout=0.0, per_chunk=True, bidirectional=bidirectional)
    enc = enc.double()
    mask = torch.ones(2, 3, 5, dtype=torch.bool)
    mask[0, 1, 4:] = False  # rows 0, 2, 3 full and 1, 4, 5 not: the order back is a cycle of
    mask[1, 1, 2:] = False  # three rows, not a swap of two (its own inverse); document 1: 5 + 2
    mask[1, 2] = False  # words, then an empty chunk
    emb = torch.randn(2, 3, 5, 6, dtype=torch.float64) * mask.unsqueeze(-1)
    outs = _packed_and_skipping(enc, emb, mask)
    for a, b in zip(*outs, strict=True):
        assert torch.allclose(a, b, rtol=1e-10, atol=1e-12)
    assert outs[1][0][1, 2].abs().sum() == 0  # the empty chunk: zero states on both paths


def test_row_source_reads_agree_with_plain_indexing_values_and_gradients():
    """RowSource: many small reads of one tensor give plain indexing's values and gradient (one
    buffer summed once); a row read twice gets both gradients; unread rows get zero."""
    from c2fsum.modules.deferred import RowSource

    torch.manual_seed(0)
    base = torch.randn(6, 3, 2, requires_grad=True)
    reads = [torch.tensor([4, 1]), torch.tensor([1]), torch.tensor([0, 4, 4])]
    weights = [torch.randn(len(i), 3, 2) for i in reads]
    src = RowSource(base * 1.5)  # not a leaf: its gradient must flow on to base
    got = sum((src.read(i) * w).sum() for i, w in zip(reads, weights, strict=True))
    (g_got,) = torch.autograd.grad(got, base)
    rows = base * 1.5
    want = sum((rows[i] * w).sum() for i, w in zip(reads, weights, strict=True))
    (g_want,) = torch.autograd.grad(want, base)
    assert torch.allclose(got, want)
    assert torch.allclose(g_got, g_want)
    assert torch.equal(g_got[[2, 3, 5]], torch.zeros(3, 3, 2))
    with torch.no_grad():
        assert torch.equal(RowSource(rows).read(torch.tensor([3])), rows[[3]])
