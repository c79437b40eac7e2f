"""Teacher forcing with every decoder step at once (``Kernels.parallel_steps``) against its plain
twin, the step-by-step loop: the training loss of every family and option, and every gradient,
equal in float64.

Both paths compute the same sums in another order (one LSTM call against T cell calls, one
product over all steps against one per step), so float64 values agree to a few units of its
rounding (2e-16 relative) times the depth of the computation: 1e-9 relative is far above that
and far below any real difference (a wrong mask or step shifts values by 1e-3 or more).

MODEL 3 draws its chunks at random; the two paths draw them in another order, so the test
replaces the draw by a deterministic one of the same signature (systematic sampling: the k
quantiles (j + 1/2) / k of each row's alpha^s), which both paths then make identically.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch

from c2fsum.config import ModelConfig
from c2fsum.data.batching import Batch
from c2fsum.losses.reinforce import MovingAverageBaseline
from c2fsum.models import build_model
from c2fsum.modules import hierarchical
from c2fsum.modules.kernels import FAST, PLAIN
from c2fsum.training.objective import COARSE_MIN_ID, Objective, batch_loss
from grids import grid

V = 130  # > COARSE_MIN_ID, so that coarse supervision has target words to supervise
N_EXT = 3
RTOL, ATOL = 1e-9, 1e-12


def systematic_draws(alpha_s: torch.Tensor, k: int) -> torch.Tensor:
    """k chunks per row of ``alpha_s`` ``(R, M)``: where the quantiles (j + 1/2) / k fall in its CDF."""
    u = (torch.arange(k, dtype=alpha_s.dtype) + 0.5) / k
    cdf = alpha_s.detach().cumsum(-1)
    return torch.searchsorted(cdf, u.expand(alpha_s.size(0), k).contiguous()).clamp(max=alpha_s.size(1) - 1)


def make_batch(B: int = 3, M: int = 4, N: int = 5, T: int = 7) -> Batch:
    """Source ids >= COARSE_MIN_ID (so coarse supervision sees them), 3 document-only words, a
    target that copies some of them and one padded row."""
    src, mask = grid(B, M, N, [M * N, 13, 6], seed=3, vocab=V - COARSE_MIN_ID + 4)  # ids 4 .. 33
    src = torch.where(mask, src + COARSE_MIN_ID - 4, src)  # ids COARSE_MIN_ID .. V - 1 on real words
    src_ext = src.clone()
    src_ext[0, 0, 1], src_ext[1, 1, 2], src_ext[2, 0, 3] = V, V + 1, V + 2  # document-only words
    src[src_ext >= V] = 1  # <unk> in the fixed vocabulary
    g = torch.Generator().manual_seed(5)
    tgt_ext = torch.randint(COARSE_MIN_ID, V, (B, T), generator=g)
    for b in range(B):  # copy two source words, one of them document-only where the row has one
        real = src_ext[b][mask[b]]
        tgt_ext[b, 1] = real[2]
        tgt_ext[b, 3] = real[real >= V][0] if (real >= V).any() else real[0]
    tgt_mask = torch.ones(B, T, dtype=torch.bool)
    tgt_mask[1, 5:] = False
    tgt_ext[1, 5:] = 0
    tgt_ext[:, -1] = torch.where(tgt_mask[:, -1], 3, 0)  # </s>
    tgt_out = tgt_ext.masked_fill(tgt_ext >= V, 1)
    tgt_in = torch.cat([torch.full((B, 1), 2), tgt_out[:, :-1]], 1)
    return Batch(
        ids=[str(b) for b in range(B)],
        src=src,
        src_mask=mask,
        src_ext=src_ext,
        tgt_in=tgt_in,
        tgt_out=tgt_out,
        tgt_ext=tgt_ext,
        tgt_mask=tgt_mask,
        n_ext=N_EXT,
        examples=[],
    )


CASES = {
    "m0": dict(family="model0"),
    "m0-luong-2layers": dict(family="model0", dec_layers=2),
    "m0-paulus-all": dict(
        family="model0",
        output="paulus",
        bidirectional=True,
        temporal=True,
        intra_decoder=True,
        pointer=True,
        share_embeddings=True,
    ),
    "m0-shared-src-tgt": dict(family="model0", pointer=True, share_src_tgt_emb=True, share_embeddings=True),
    "m0-recipe": dict(
        family="model0",
        output="paulus",
        bidirectional=True,
        intra_decoder=True,
        pointer=True,
        share_embeddings=True,
        shared_output="linear",
    ),
    "m1-pointer-intra": dict(family="model1", pointer=True, intra_decoder=True, output="paulus"),
    "m2": dict(family="model2"),
    "m2-bow-pos": dict(family="model2", chunk_encoder="bow", pos_dim=3),
    "m2-pointer-intra": dict(family="model2", pointer=True, intra_decoder=True, share_embeddings=True),
    "m3-eager": dict(family="model3"),
    "m3-eager-multi3": dict(family="model3", samples=3, pointer=True),
    "m3-lazy": dict(family="model3", lazy_fine=True),
    "m3-lazy-recipe": dict(
        family="model3",
        lazy_fine=True,
        samples=3,
        bidirectional=True,
        intra_decoder=True,
        pointer=True,
        share_embeddings=True,
        output="paulus",
        pos_dim=3,
    ),
}


def _loss_and_grads(model, batch, kernels, objective):
    model.kernels = kernels
    model.zero_grad(set_to_none=True)
    out = batch_loss(model, batch, objective, MovingAverageBaseline(beta=0.5))
    out.loss.backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    return out, grads


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("train_mode", [True, False])
def test_parallel_steps_give_the_loss_and_gradients_of_the_step_loop(case, train_mode, monkeypatch):
    monkeypatch.setattr(hierarchical, "draw_chunks", systematic_draws)
    kw = dict(CASES[case])
    cfg = ModelConfig(
        emb_dim=6,
        hidden=8,
        enc_layers=1,
        dec_layers=kw.pop("dec_layers", 1),
        chunk_filters=5,
        chunk_width=2,
        dropout=0.0,
        input_feed=False,
        **kw,
    )
    torch.manual_seed(0)
    model = build_model(cfg, V, 4).double().train(train_mode)
    for p in model.parameters():  # larger weights than the default init: attention far from uniform
        p.data.uniform_(-0.5, 0.5)
    assert model.parallel_teacher_forcing()
    batch = make_batch()
    objective = Objective(coarse_supervision=0.7 if cfg.family in ("model2", "model3") else 0.0)
    fast, g_fast = _loss_and_grads(model, batch, FAST, objective)
    loop, g_loop = _loss_and_grads(model, batch, dataclasses.replace(FAST, parallel_steps=False), objective)
    plain, g_plain = _loss_and_grads(model, batch, PLAIN, objective)
    assert fast.forward.logprobs is None  # the fused loss: no (B, T, V') tensor
    if model.capabilities.hard and train_mode:
        assert fast.forward.attention.policy is not None and fast.return_sums is not None  # REINFORCE is in the loss
    if objective.coarse_supervision:
        assert fast.forward.attention.coarse is not None
    for other, g_other in ((loop, g_loop), (plain, g_plain)):
        torch.testing.assert_close(fast.loss, other.loss, rtol=RTOL, atol=ATOL)
        torch.testing.assert_close(fast.nll, other.nll, rtol=RTOL, atol=ATOL)
        torch.testing.assert_close(fast.forward.attention.attn, other.forward.attention.attn, rtol=RTOL, atol=ATOL)
        assert g_fast.keys() == g_other.keys()
        for name in g_fast:
            torch.testing.assert_close(g_fast[name], g_other[name], rtol=RTOL, atol=ATOL, msg=name)
    # every parameter the loss can reach has a gradient (a path that dropped one would agree with itself)
    missing = {n for n, p in model.named_parameters() if p.requires_grad} - g_fast.keys()
    assert all(n.startswith(("attention.W_s", "source.chunk_encoder")) for n in missing) or not missing, missing


def test_a_decoder_with_input_feeding_keeps_the_step_loop():
    cfg = ModelConfig(emb_dim=6, hidden=8, enc_layers=1, dec_layers=1, input_feed=True)
    model = build_model(cfg, V, 4)
    assert not model.parallel_teacher_forcing()
    model.kernels = PLAIN
    model.input_feed = False
    assert not model.parallel_teacher_forcing()


def test_the_parallel_path_differs_from_a_wrong_mask():
    """The tolerance is tight enough to see a one-step shift of intra-decoder attention."""
    from c2fsum.modules.intra import IntraDecoderAttention

    torch.manual_seed(1)
    intra = IntraDecoderAttention(hidden=4).double()
    h = torch.randn(2, 5, 4, dtype=torch.double)
    steps = intra.forward_steps(h)
    loop = torch.stack([intra(h[:, t], h[:, :t] if t else None)[0] for t in range(5)], 1)
    torch.testing.assert_close(steps, loop, rtol=RTOL, atol=ATOL)
    wrong = torch.stack([intra(h[:, t], h[:, : t + 1])[0] for t in range(5)], 1)  # includes step t itself
    assert (steps - wrong).abs().max() > 1e-3
