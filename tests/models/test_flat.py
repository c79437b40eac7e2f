import torch

from c2fsum.config import ModelConfig
from c2fsum.models import Flat
from grids import grid


def tiny(seed=0, **kw):
    torch.manual_seed(seed)
    args = dict(emb_dim=8, hidden=12, enc_layers=2, dec_layers=2, dropout=0.3)
    args.update(kw)
    return Flat(ModelConfig(**args), vocab_size=30).eval()


def test_shapes_attention_and_padding_mass():
    m = tiny()
    src, mask = grid(3, 4, 5, [20, 13, 3])
    tgt = torch.randint(4, 30, (3, 6))
    lp, attn = m(src, mask, tgt)
    assert lp.shape == (3, 6, 30) and attn.shape == (3, 6, 4, 5)
    assert torch.allclose(lp.exp().sum(-1), torch.ones(3, 6), atol=1e-5)
    assert torch.allclose(attn.sum((-1, -2)), torch.ones(3, 6), atol=1e-5)
    assert (attn.masked_select(~mask.unsqueeze(1).expand_as(attn)) == 0).all()


def test_adding_padding_never_changes_outputs():
    m = tiny()
    src, mask = grid(1, 2, 5, [7])
    tgt = torch.randint(4, 30, (1, 5))
    lp1, at1 = m(src, mask, tgt)
    # the same document in a grid with more (empty) chunks and beside a longer document
    big_src, big_mask = grid(2, 4, 5, [20, 7], seed=3)
    big_src[1] = 0
    big_src[1].view(-1)[:10] = src.view(-1)
    big_mask[1] = False
    big_mask[1].view(-1)[:7] = True
    big_src = big_src * big_mask
    lp2, at2 = m(big_src, big_mask, torch.cat([torch.randint(4, 30, (1, 5)), tgt]))
    assert torch.allclose(lp1[0], lp2[1], atol=1e-5)
    assert torch.allclose(at1[0], at2[1, :, :2], atol=1e-6)
    assert (at2[1, :, 2:] == 0).all()


def test_teacher_forcing_equals_stepwise_decoding():
    m = tiny()
    src, mask = grid(2, 3, 4, [12, 5])
    tgt = torch.randint(4, 30, (2, 5))
    lp, attn = m(src, mask, tgt)
    mem = m.encode(src, mask)
    st = m.init_state(mem)
    for t in range(5):
        o = m.step(mem, st, tgt[:, t])
        st = o.state
        assert torch.allclose(o.logprobs, lp[:, t], atol=1e-6)
        assert torch.allclose(o.attention.attn, attn[:, t], atol=1e-6)


def test_memory_select_expands_for_beams():
    m = tiny()
    src, mask = grid(2, 3, 4, [12, 5])
    mem = m.encode(src, mask)
    idx = torch.tensor([0, 0, 1, 1, 1])
    big = mem.select(idx)
    st = m.init_state(big)
    o = m.step(big, st, torch.full((5,), 2))
    o1 = m.step(mem, m.init_state(mem), torch.full((2,), 2))
    assert torch.allclose(o.logprobs[[0, 2]], o1.logprobs, atol=1e-6)


def test_copied_ids_are_read_as_unk():
    m = tiny()
    src, mask = grid(1, 1, 4, [4])
    mem = m.encode(src, mask)
    st = m.init_state(mem)
    a = m.step(mem, st, torch.tensor([35])).logprobs
    b = m.step(mem, st, torch.tensor([1])).logprobs
    assert torch.equal(a, b)


def test_every_parameter_gets_a_gradient():
    m = tiny().train()
    src, mask = grid(2, 3, 4, [12, 5])
    tgt = torch.randint(4, 30, (2, 5))
    lp, _ = m(src, mask, tgt)
    lp.gather(-1, tgt.unsqueeze(-1)).sum().backward()
    for name, p in m.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name


def test_uniform_init_range_and_zero_padding_rows():
    m = Flat(ModelConfig(emb_dim=8, hidden=12, init_range=0.05), vocab_size=30)
    for p in m.parameters():
        assert p.abs().max() <= 0.05 + 1e-7
    assert (m.source.emb.weight[0] == 0).all() and (m.tgt_emb.weight[0] == 0).all()
