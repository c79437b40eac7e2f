import pytest
import torch

from c2fsum.models import CoarseToFine
from c2fsum.models.base import Reading
from c2fsum.modules.hierarchical import CoarseToFineAttention, sample_chunks
from grids import grid
from tiny import tiny_model


def tiny(family="model2", seed=0, **kw):
    # unlike tiny_model's defaults: 2 decoder layers and 10 chunk filters
    return tiny_model(family, 30, seed=seed, **{"dec_layers": 2, "chunk_filters": 10, **kw})


@pytest.mark.parametrize(
    "family,kw",
    [
        ("model1", {}),
        ("model2", {}),
        ("model2", {"chunk_encoder": "bow"}),
        ("model2", {"pos_dim": 5}),
        ("model3", {}),
        ("model3", {"samples": 2}),
    ],
)
def test_shapes_sums_and_padding(family, kw):
    m = tiny(family, **kw)
    src, mask = grid(3, 4, 5, [20, 13, 3])
    tgt = torch.randint(4, 30, (3, 6))
    for training in (False, True):
        m.train(training)
        out = m(src, mask, tgt)
        assert out.logprobs.shape == (3, 6, 30) and out.attention.attn.shape == (3, 6, 4, 5)
        assert torch.allclose(out.attention.attn.sum((-1, -2)), torch.ones(3, 6), atol=1e-5)
        assert (out.attention.attn.masked_select(~mask.unsqueeze(1).expand_as(out.attention.attn)) == 0).all()
        if family != "model1":
            assert out.attention.coarse.shape == (3, 6, 4)
            assert torch.allclose(out.attention.coarse.sum(-1), torch.ones(3, 6), atol=1e-5)
            assert (out.attention.coarse[2, :, 1:] == 0).all()  # document 2 has one chunk
        if family == "model3" and training:
            assert out.attention.policy.shape == (3, 6) and (out.attention.policy <= 0).all()
        else:
            assert out.attention.policy is None


def test_model1_resets_the_lstm_at_chunk_boundaries():
    m = tiny("model1")
    src, mask = grid(1, 3, 5, [15])
    mem = m.encode(src, mask)
    src2 = src.clone()
    src2[0, 0] = torch.randint(4, 30, (5,))  # change chunk 0 only
    mem2 = m.encode(src2, mask)
    assert torch.allclose(mem.words[0, 1:], mem2.words[0, 1:])  # other chunks unaffected
    assert not torch.allclose(mem.words[0, 0], mem2.words[0, 0])


def test_hierarchical_weights_are_product_of_coarse_and_fine():
    m = tiny("model2")
    src, mask = grid(2, 4, 5, [20, 9])
    mem = m.encode(src, mask)
    st = m.init_state(mem)
    out = m.step(mem, st, torch.tensor([2, 2]))
    # per chunk, the fine weights sum to the chunk's coarse weight
    assert torch.allclose(out.attention.attn.sum(-1), out.attention.coarse, atol=1e-6)


def test_model3_test_time_is_argmax_and_reads_only_that_chunk():
    m = tiny("model3")
    src, mask = grid(2, 4, 5, [20, 14])
    mem = m.encode(src, mask, reading=Reading(lazy=False))  # the eager path's argmax (lazy: test_lazy_fine.py)
    st = m.init_state(mem)
    out = m.step(mem, st, torch.tensor([2, 2]))
    chosen = out.attention.coarse.argmax(-1)
    per_chunk = out.attention.attn.sum(-1)
    assert torch.allclose(per_chunk, torch.nn.functional.one_hot(chosen, 4).float(), atol=1e-6)
    # the fast path (only the chosen chunk) equals the full computation with a one-hot weight
    att: CoarseToFineAttention = m.attention
    keys_t, ck = mem.cache.keys_t, mem.cache.chunk_keys_t
    values = mem.words.flatten(1, 2)
    top = torch.randn(2, 12)
    fast = att(top, values, keys_t, ck, mem.word_mask, mem.chunk_mask, mode="argmax")
    torch.manual_seed(0)
    alpha_s = att.coarse_weights(top, ck, mem.chunk_mask)
    q = att.W_w(top).unsqueeze(1)
    from c2fsum.modules.attention import masked_softmax

    alpha_w = masked_softmax(torch.bmm(q, keys_t).view(2, 4, 5), mem.word_mask)
    onehot = torch.nn.functional.one_hot(alpha_s.argmax(-1), 4).float()
    alpha = onehot.unsqueeze(-1) * alpha_w
    ctx = torch.bmm(alpha.view(2, 1, 20), values).squeeze(1)
    assert torch.allclose(fast.ctx, ctx, atol=1e-6) and torch.allclose(fast.attention.attn, alpha, atol=1e-6)


def test_model3_training_draws_samples():
    m = tiny("model3").train()
    src, mask = grid(1, 4, 5, [20])
    mem = m.encode(src, mask)
    st = m.init_state(mem)
    picks = set()
    for _ in range(60):
        o = m.step(mem, st, torch.tensor([2]))
        picks.add(int(o.attention.attn.sum(-1).argmax()))
    assert len(picks) > 1  # not always the argmax


def test_multi_k_approaches_the_soft_weights():
    torch.manual_seed(0)
    alpha = torch.softmax(torch.randn(4, 6), -1)
    for k, tol in ((1, None), (4000, 0.03)):
        w, logp = sample_chunks(alpha, k)
        assert torch.allclose(w.sum(-1), torch.ones(4))
        assert ((w * k).round() == w * k).all()
        if tol:
            assert (w - alpha).abs().max() < tol
    # log p(mu) is the multinomial log-probability
    alpha = torch.tensor([[0.2, 0.8]])
    torch.manual_seed(1)
    w, logp = sample_chunks(alpha, 3)
    n1 = int(round(float(w[0, 0]) * 3))
    from math import comb, log

    assert abs(float(logp) - log(comb(3, n1) * 0.2**n1 * 0.8 ** (3 - n1))) < 1e-5


def test_multi_k_context_approaches_model2_context():
    soft = tiny("model2", seed=5)
    hard = tiny("model3", seed=5, samples=20000)
    hard.load_state_dict(soft.state_dict())
    src, mask = grid(1, 4, 5, [20])
    tgt = torch.randint(4, 30, (1, 3))
    hard.train()  # sampling; dropout is 0 so only the attention differs
    a = soft(src, mask, tgt).attention.attn
    b = hard(src, mask, tgt).attention.attn
    assert (a - b).abs().max() < 0.02


def test_bow_embeddings_are_fixed_and_lr_groups(prepared_small, tmp_path):
    from c2fsum.config import load_config
    from c2fsum.training.trainer import Trainer

    cfg = load_config(
        None,
        [
            "model.family=model2",
            "model.chunk_encoder=bow",
            "model.pos_dim=5",
            "model.emb_dim=8",
            "model.hidden=12",
            "model.enc_layers=1",
            "model.dec_layers=1",
            "data.chunks=3",
            "data.chunk_len=10",
            "train.batch_size=8",
            "train.max_steps=3",
            "data.vocab_size=500",
        ],
    )
    t = Trainer(cfg, prepared_small, tmp_path / "run", progress=False)
    before = t.model.source.chunk_encoder.body.emb.weight.clone()
    enc_before = t.model.source.encoder.rnn.weight_hh_l0.clone()
    t.fit()
    assert torch.equal(before, t.model.source.chunk_encoder.body.emb.weight)
    assert not torch.equal(enc_before, t.model.source.encoder.rnn.weight_hh_l0)
    # the chunk encoder's trainable part (its position embedding) learns at 0.1, the rest at 1
    groups = {g["lr"]: g["params"] for g in t.optimizer.param_groups}
    assert sorted(groups) == [0.1, 1.0]
    assert [p.shape for p in groups[0.1]] == [t.model.source.chunk_encoder.pos.weight.shape]


def test_hard_model_every_parameter_gets_gradient_with_reinforce():
    from c2fsum.losses.reinforce import discounted_returns, reinforce_loss

    m = tiny("model3").train()
    assert isinstance(m, CoarseToFine)
    src, mask = grid(2, 4, 5, [20, 11])
    tgt = torch.randint(4, 30, (2, 5))
    out = m(src, mask, tgt)
    lp = out.logprobs.gather(-1, tgt.unsqueeze(-1)).squeeze(-1)
    tmask = torch.ones(2, 5, dtype=torch.bool)
    R = discounted_returns(lp.detach(), tmask, 0.5)
    loss = -lp.sum() + reinforce_loss(out.attention.policy, R, torch.zeros(5), tmask, 0.3)
    loss.backward()
    for name, p in m.named_parameters():
        if p.requires_grad:
            assert p.grad is not None and p.grad.abs().sum() > 0, name
    # the coarse scorer W_s only learns through REINFORCE
    m.zero_grad()
    m(src, mask, tgt).logprobs.gather(-1, tgt.unsqueeze(-1)).sum().backward()
    assert m.attention.W_s.weight.grad is None or m.attention.W_s.weight.grad.abs().sum() == 0


def test_top_chunks_golden_values():
    from c2fsum.modules.hierarchical import top_chunks

    alpha_s = torch.tensor([[0.1, 0.5, 0.0, 0.4], [0.0, 1.0, 0.0, 0.0]])
    choice, weights = top_chunks(alpha_s, 2)
    assert choice[0].tolist() == [1, 3]
    assert torch.allclose(weights[0], torch.tensor([5 / 9, 4 / 9]))
    # one non-empty chunk: the second slot repeats it with weight 0
    assert choice[1].tolist() == [1, 1] and weights[1].tolist() == [1.0, 0.0]
    choice, weights = top_chunks(alpha_s, 1)
    assert choice.squeeze(1).tolist() == [1, 1] and weights.squeeze(1).tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="read_chunks"):
        top_chunks(alpha_s, 0)


def test_read_chunks_is_refused_for_models_without_hard_attention():
    from c2fsum.config import Config
    from c2fsum.decoding.documents import decode_examples
    from c2fsum.decoding.options import DecodeOptions

    with pytest.raises(ValueError, match="MODEL 3"):
        decode_examples(tiny("model2"), None, [], Config(), DecodeOptions(read_chunks=2))
