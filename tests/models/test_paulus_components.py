import pytest
import torch

from c2fsum.config import ModelConfig
from c2fsum.decoding.postprocess import ids_to_words
from c2fsum.models import build_model
from c2fsum.modules.intra import IntraDecoderAttention
from grids import grid

V = 30
ALL = dict(bidirectional=True, temporal=True, intra_decoder=True, pointer=True, share_embeddings=True, output="paulus")


def tiny(family="model0", seed=0, **kw):
    torch.manual_seed(seed)
    cfg = ModelConfig(
        family=family,
        emb_dim=8,
        hidden=12,
        enc_layers=1,
        dec_layers=1,
        dropout=0.0,
        chunk_filters=6,
        chunk_width=3,
        **kw,
    )
    return build_model(cfg, V, max_chunks=4).eval()


def ext_grid():
    src, mask = grid(2, 3, 4, [12, 7])
    src_ext = src.clone()
    src_ext[0, 0, 1] = V + 0  # a document-only word of document 0 (src holds <unk> there)
    src[0, 0, 1] = 1
    src_ext[1, 1, 0] = V + 1
    src[1, 1, 0] = 1
    return src, mask, src_ext


@pytest.mark.parametrize(
    "family,kw",
    [("model0", ALL), ("model1", ALL), ("model2", {**ALL, "temporal": False}), ("model3", {**ALL, "temporal": False})],
)
def test_mixed_distribution_sums_to_one_over_extended_vocab(family, kw):
    m = tiny(family, **kw)
    src, mask, src_ext = ext_grid()
    out = m(src, mask, torch.randint(4, V, (2, 5)), src_ext, 2)
    assert out.logprobs.shape == (2, 5, V + 2)
    assert torch.allclose(out.logprobs.exp().sum(-1), torch.ones(2, 5), atol=1e-5)
    # copy mass sits on the document's own words only
    assert out.logprobs[1, :, V].exp().max() < 1e-6  # word V+0 is not in document 1
    assert out.logprobs[0, :, V].exp().min() > 0


def test_a_source_only_word_is_copied_into_the_output():
    m = tiny("model0", **ALL)
    with torch.no_grad():
        m.switch.bias.fill_(20.0)  # p(u=1) ~ 1: always copy
        m.attention.W.weight.zero_()
    src, mask, src_ext = ext_grid()
    src[0] = torch.arange(4, 16).view(3, 4)  # distinct words ...
    src_ext[0] = src[0]
    src_ext[0].view(-1)[[1, 5, 9]] = V  # ... and one document-only word, three times
    src[0].view(-1)[[1, 5, 9]] = 1
    mem = m.encode(src, mask, src_ext, 2)
    from c2fsum.decoding.greedy import greedy_decode

    hyps = greedy_decode(m, mem, max_len=6)
    assert any(t == V for t in hyps[0].tokens)  # copied extended id
    itos = [f"w{i}" for i in range(V)]
    words = ids_to_words(hyps[0].tokens, itos, ["zanzibar"])
    assert "zanzibar" in words


def test_intra_decoder_attention_never_looks_at_current_or_future_steps():
    m = tiny("model0", intra_decoder=True, output="paulus")
    src, mask = grid(1, 3, 4, [12])
    tgt = torch.randint(4, V, (1, 6))
    a = m(src, mask, tgt).logprobs
    tgt2 = tgt.clone()
    tgt2[0, 3:] = torch.randint(4, V, (3,))
    b = m(src, mask, tgt2).logprobs
    assert torch.allclose(a[0, :3], b[0, :3], atol=1e-6)  # steps < 3 blind to inputs >= 3
    att = IntraDecoderAttention(hidden=4)
    h = torch.randn(2, 4)
    c, w = att(h, None)
    assert torch.equal(c, torch.zeros(2, 4)) and w is None  # c^d_1 = 0
    hist = torch.randn(2, 3, 4)
    c, w = att(h, hist)
    assert w.shape == (2, 3) and torch.allclose(w.sum(-1), torch.ones(2))
    assert torch.allclose(c, (w.unsqueeze(-1) * hist).sum(1))


def test_shared_output_weights_follow_the_embeddings():
    m = tiny("model0", share_embeddings=True)
    assert not hasattr(m.generator, "weight")
    W = m.generator.output_matrix(m.tgt_emb.weight)
    assert torch.allclose(W, torch.tanh(m.tgt_emb.weight @ m.generator.proj))
    names = [n for n, _ in m.named_parameters()]
    assert "generator.proj" in names and sum("tgt_emb" in n for n in names) == 1


def test_bidirectional_encoder_states_concatenate_both_directions():
    m = tiny("model0", bidirectional=True)
    src, mask = grid(1, 2, 4, [8])
    mem = m.encode(src, mask)
    assert mem.words.shape == (1, 2, 4, 12)
    src2 = src.clone()
    src2[0, 1, 3] = (src2[0, 1, 3] + 1) % V + 4 if src2[0, 1, 3] < V - 1 else 5  # change the last word
    mem2 = m.encode(src2, mask)
    # the backward half of the first word's state sees the last word, the forward half does not
    assert torch.allclose(mem.words[0, 0, 0, :6], mem2.words[0, 0, 0, :6])
    assert not torch.allclose(mem.words[0, 0, 0, 6:], mem2.words[0, 0, 0, 6:])


def test_every_parameter_of_the_full_model_gets_a_gradient():
    m = tiny("model0", **ALL).train()
    src, mask, src_ext = ext_grid()
    tgt = torch.randint(4, V, (2, 5))
    out = m(src, mask, tgt, src_ext, 2)
    tgt_ext = tgt.clone()
    tgt_ext[0, 2] = V  # a copied target word
    out.logprobs.gather(-1, tgt_ext.unsqueeze(-1)).sum().backward()
    for name, p in m.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name


def test_temporal_is_refused_for_hierarchical_attention():
    with pytest.raises(ValueError, match="temporal"):
        tiny("model2", temporal=True)


def test_stepwise_decoding_equals_teacher_forcing_for_the_full_model():
    m = tiny("model0", **ALL)
    src, mask, src_ext = ext_grid()
    tgt = torch.randint(4, V, (2, 5))
    full = m(src, mask, tgt, src_ext, 2).logprobs
    mem = m.encode(src, mask, src_ext, 2)
    st = m.init_state(mem)
    for t in range(5):
        o = m.step(mem, st, tgt[:, t])
        st = o.state
        assert torch.allclose(o.logprobs, full[:, t], atol=1e-5)
    assert mem.shared is not None and mem.select(torch.tensor([1, 1, 0])).shared[0] is mem.shared[0]  # W_out once
