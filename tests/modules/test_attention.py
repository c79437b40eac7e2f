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
    att = BilinearAttention(query_dim=Hq, key_dim=H).double()
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
    out, alpha, _ = att(q, values, keys_t, mask)
    assert out.shape == (3, 5)
    assert torch.allclose(alpha.sum(-1), torch.ones(3, dtype=torch.float64))
    assert (alpha[~mask] == 0).all()
    # changing what sits in padded positions changes nothing
    words2 = words.clone()
    words2[0, 0, 5:] = 100.0
    v2, k2 = att.prepare(words2)
    out2, alpha2, _ = att(q, v2, k2, mask)
    assert torch.allclose(out, out2) and torch.allclose(alpha, alpha2)


def test_attention_matches_formula():
    att, words, mask, q = _setup()
    values, keys_t = att.prepare(words)
    ctx, alpha, _ = att(q, values, keys_t, mask)
    b = 1
    beta = values[b] @ (att.W.weight @ q[b])  # beta_i = h_i^T W h_dec
    a = torch.softmax(beta, 0)
    assert torch.allclose(alpha[b], a) and torch.allclose(ctx[b], a @ values[b])


def test_attention_gradcheck():
    att, words, mask, q = _setup(B=2, S=4, H=3, Hq=2)
    values, keys_t = att.prepare(words)
    values = values.clone().requires_grad_(True)
    q = q.clone().requires_grad_(True)

    def f(v, qq):
        ctx, alpha, _ = att(qq, v, v.transpose(1, 2).contiguous(), mask)
        return ctx, alpha

    assert torch.autograd.gradcheck(f, (values, q))


def test_intra_temporal_attention_penalizes_attending_again():
    """Constructed case: two equal words; after attending word 0 strongly, it loses weight."""
    att = BilinearAttention(query_dim=2, key_dim=2, temporal=True).double()
    with torch.no_grad():
        att.W.weight.copy_(torch.eye(2, dtype=torch.float64))
    values = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]], dtype=torch.float64)  # (1, 3, 2)
    keys_t = values.transpose(1, 2).contiguous()
    mask = torch.tensor([[True, True, False]])
    # t = 1: the query prefers word 0 (e = [3, 0]); the plain softmax
    _, a1, past = att(torch.tensor([[3.0, 0.0]], dtype=torch.float64), values, keys_t, mask, None)
    assert torch.allclose(a1, torch.softmax(torch.tensor([[3.0, 0.0, -1e9]], dtype=torch.float64), -1))
    # t = 2: a query scoring both words equally (e = [1, 1]): e'_2i = exp(1) / exp(e_1i)
    _, a2, past2 = att(torch.tensor([[1.0, 1.0]], dtype=torch.float64), values, keys_t, mask, past)
    e_prime = torch.tensor([torch.e / torch.e**3, torch.e / 1.0], dtype=torch.float64)
    assert torch.allclose(a2[0, :2], e_prime / e_prime.sum())
    assert a2[0, 0] < 0.5 < a2[0, 1] and a2[0, 2] == 0
    # the log-denominator accumulates sum_{j<=t} exp(e_ji)
    assert torch.allclose(
        past2[0, :2], torch.log(torch.tensor([torch.e**3 + torch.e, 1 + torch.e], dtype=torch.float64))
    )
    # without temporal normalization the same query splits evenly
    plain = BilinearAttention(query_dim=2, key_dim=2, temporal=False).double()
    plain.W.load_state_dict(att.W.state_dict())
    _, b2, _ = plain(torch.tensor([[1.0, 1.0]], dtype=torch.float64), values, keys_t, mask, None)
    assert torch.allclose(b2[0, :2], torch.tensor([0.5, 0.5], dtype=torch.float64))
