import torch

from c2fsum.modules.attention import BilinearAttention, masked_softmax


def test_masked_softmax_golden():
    # scores [0, ln 3, 5(masked)] -> weights [1/4, 3/4, 0]
    s = torch.tensor([[0.0, torch.log(torch.tensor(3.0)).item(), 5.0]])
    m = torch.tensor([[True, True, False]])
    w = masked_softmax(s, m)
    assert torch.allclose(w, torch.tensor([[0.25, 0.75, 0.0]]))


def test_masked_softmax_empty_row_is_zero_not_nan():
    w = masked_softmax(torch.randn(2, 4), torch.tensor([[False] * 4, [True, False, True, False]]))
    assert torch.equal(w[0], torch.zeros(4))
    assert torch.isfinite(w).all()
    assert torch.allclose(w[1].sum(), torch.tensor(1.0))


def _setup(B=3, S=7, H=5, Hq=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    att = BilinearAttention(query_dim=Hq, key_dim=H, out_dim=6).double()
    words = torch.randn(B, 1, S, H, generator=g, dtype=torch.float64)
    mask = torch.ones(B, S, dtype=torch.bool)
    mask[0, 5:] = False
    mask[B - 1, 2:] = False
    words = words * mask.view(B, 1, S, 1)
    q = torch.randn(B, Hq, generator=g, dtype=torch.float64)
    return att, words, mask, q


def test_attention_sums_to_one_and_ignores_padding():
    att, words, mask, q = _setup()
    values, keys_t = att.prepare(words)
    out, alpha = att(q, values, keys_t, mask)
    assert out.shape == (3, 6)
    assert torch.allclose(alpha.sum(-1), torch.ones(3, dtype=torch.float64))
    assert (alpha[~mask] == 0).all()
    # changing what sits in padded positions changes nothing
    words2 = words.clone()
    words2[0, 0, 5:] = 100.0
    v2, k2 = att.prepare(words2)
    out2, alpha2 = att(q, v2, k2, mask)
    assert torch.allclose(out, out2) and torch.allclose(alpha, alpha2)


def test_attention_matches_formula():
    att, words, mask, q = _setup()
    values, keys_t = att.prepare(words)
    out, alpha = att(q, values, keys_t, mask)
    b = 1
    beta = values[b] @ (att.W.weight @ q[b])            # beta_i = h_i^T W h_dec
    a = torch.softmax(beta, 0)
    ctx = a @ values[b]
    expect = torch.tanh(att.out.weight @ torch.cat([ctx, q[b]]))
    assert torch.allclose(alpha[b], a) and torch.allclose(out[b], expect)


def test_attention_gradcheck():
    att, words, mask, q = _setup(B=2, S=4, H=3, Hq=2)
    values, keys_t = att.prepare(words)
    values = values.clone().requires_grad_(True)
    q = q.clone().requires_grad_(True)

    def f(v, qq):
        return att(qq, v, v.transpose(1, 2).contiguous(), mask)

    assert torch.autograd.gradcheck(f, (values, q))
