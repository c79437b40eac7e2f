import pytest
import torch

from c2fsum.config import ModelConfig
from c2fsum.decoding.postprocess import ids_to_words
from c2fsum.modules.intra import IntraDecoderAttention
from grids import grid
from tiny import tiny_model

V = 30
ALL = dict(
    bidirectional=True,
    temporal=True,
    intra_decoder=True,
    pointer=True,
    share_embeddings=True,
    share_src_tgt_emb=True,
    input_feed=False,
    output="paulus",
)
PAPER = ALL
"""Paulus et al. (2017) as published: every component on, one embedding matrix for encoder and
decoder (section 2.4) and a decoder fed the previous word's embedding only (section 2)."""


def tiny(family="model0", seed=0, **kw):
    return tiny_model(family, V, seed=seed, **kw)


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
        m.gen.switch.bias.fill_(20.0)  # p(u=1) ~ 1: always copy
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
    assert not hasattr(m.gen.vocab, "weight")
    W = m.gen.vocab.output_matrix(m.tgt_emb.weight)
    assert torch.allclose(W, torch.tanh(m.tgt_emb.weight @ m.gen.vocab.proj))
    names = [n for n, _ in m.named_parameters()]
    assert "gen.vocab.proj" in names and sum("tgt_emb" in n for n in names) == 1


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
    assert mem.shared is not None  # W_out once per batch, shared by selected rows
    assert mem.select(torch.tensor([1, 1, 0])).shared.weight is mem.shared.weight


def test_one_embedding_matrix_for_encoder_and_decoder(tmp_path):
    """Paulus section 2.4: the same W_emb embeds the article and the summary words."""
    from c2fsum.config import Config
    from c2fsum.data.vocab import SPECIALS, Vocab
    from c2fsum.models.checkpoint import load_checkpoint
    from c2fsum.training.checkpoint import save_checkpoint

    tied, apart = tiny("model0", share_src_tgt_emb=True), tiny("model0")
    assert tied.tgt_emb is tied.source.emb and apart.tgt_emb is not apart.source.emb
    n = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
    assert n(apart) - n(tied) == V * 8  # one V x E matrix fewer
    # both the encoder's and the decoder's look-ups send their gradient to the one matrix
    src, mask = grid(1, 2, 4, [8])
    tgt = torch.full((1, 2), 9)  # a word that is not in the source
    tied.train()
    tied(src, mask, tgt).logprobs.sum().backward()
    g = tied.source.emb.weight.grad
    assert g[9].abs().sum() > 0  # decoder input
    assert g[src[0, 0, 0]].abs().sum() > 0  # encoder input
    # a checkpoint keeps the tie and the outputs
    cfg = Config()
    cfg.model = ModelConfig(family="model0", emb_dim=8, hidden=12, enc_layers=1, dec_layers=1, share_src_tgt_emb=True)
    vocab = Vocab([*SPECIALS, *(f"w{i}" for i in range(V - 4))])
    save_checkpoint(tmp_path / "ck", model=tied.eval(), config=cfg, vocab=vocab)
    loaded = load_checkpoint(tmp_path / "ck").model
    assert loaded.tgt_emb is loaded.source.emb
    assert torch.equal(loaded(src, mask, tgt).logprobs, tied(src, mask, tgt).logprobs)


def test_a_checkpoint_written_without_the_new_keys_loads_as_before(tmp_path):
    """Checkpoints from before ``share_src_tgt_emb`` existed: the key is absent, the model loads
    with two embeddings and its own input feeding, as trained."""
    import json

    from c2fsum.config import Config
    from c2fsum.data.vocab import SPECIALS, Vocab
    from c2fsum.models.checkpoint import load_checkpoint
    from c2fsum.training.checkpoint import save_checkpoint

    m = tiny("model0", share_embeddings=True)
    cfg = Config()
    cfg.model = ModelConfig(family="model0", emb_dim=8, hidden=12, enc_layers=1, dec_layers=1, share_embeddings=True)
    save_checkpoint(tmp_path / "ck", model=m, config=cfg, vocab=Vocab([*SPECIALS, *(f"w{i}" for i in range(V - 4))]))
    saved = json.loads((tmp_path / "ck" / "config.json").read_text())
    del saved["model"]["share_src_tgt_emb"]
    (tmp_path / "ck" / "config.json").write_text(json.dumps(saved))
    (tmp_path / "ck" / "manifest.json").unlink()  # as an edited checkpoint it no longer matches its manifest
    loaded = load_checkpoint(tmp_path / "ck").model
    assert loaded.tgt_emb is not loaded.source.emb and loaded.input_feed
    assert torch.equal(loaded.tgt_emb.weight, m.tgt_emb.weight) and torch.equal(
        loaded.source.emb.weight, m.source.emb.weight
    )


@pytest.mark.parametrize("input_feed", [False, True])
def test_without_input_feeding_the_decoder_reads_only_the_previous_word(input_feed):
    """Paulus section 2: h^d_t is computed from the embedding of y_{t-1} (and h^d_{t-1}); the
    attention context reaches the output layer, not the LSTM. With input feeding (the thesis)
    the context c_{t-1} enters the LSTM too."""
    m = tiny("model0", **{**PAPER, "input_feed": input_feed, "pointer": False})
    assert m.dec.lstm.cells[0].input_size == 8 + (12 if input_feed else 0)
    src, mask = grid(1, 2, 4, [8])
    tgt = torch.randint(4, V, (1, 4))
    mem = m.encode(src, mask)
    other = m.encode(src.flip(2).masked_fill(~mask, 0), mask)  # another article: other contexts
    other.final = mem.final  # ... but the same initial decoder state
    hs = []
    for memory in (mem, other):
        st = m.init_state(memory)
        for t in range(4):
            st = m.step(memory, st, tgt[:, t]).state
        hs.append(st.h)
    assert torch.equal(hs[0], hs[1]) is (not input_feed)


@pytest.mark.parametrize("preset", ["paulus-ml", "paulus-rl", "paulus-ml-cpu", "paulus-rl-cpu"])
def test_paulus_presets_build_the_published_model(preset):
    from pathlib import Path

    from c2fsum.config import load_config

    m = load_config(Path(__file__).resolve().parents[2] / "configs" / f"{preset}.yaml").model
    paper = {k: v for k, v in PAPER.items()}
    assert {k: getattr(m, k) for k in paper} == paper
    assert (m.enc_layers, m.dec_layers) == (1, 1)


@pytest.mark.parametrize("preset", ["model0", "model1", "model2", "model3", "model0-cpu", "model3-cpu"])
def test_thesis_presets_keep_separate_embeddings_and_input_feeding(preset):
    from pathlib import Path

    from c2fsum.config import load_config

    m = load_config(Path(__file__).resolve().parents[2] / "configs" / f"{preset}.yaml").model
    assert m.input_feed and not m.share_src_tgt_emb
