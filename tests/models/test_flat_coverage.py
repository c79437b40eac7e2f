"""Coverage (See et al. 2017) on the flat family: off is today's model exactly, on with w_c = 0 is the
same function, the scores follow the formula, a float64 gradient check, teacher forcing agrees with
step-by-step decoding (the coverage state carried), and beam search carries it per hypothesis."""

import pytest
import torch

from c2fsum.config import ConfigError, resolve
from c2fsum.decoding.beam import beam_search
from c2fsum.decoding.greedy import greedy_decode
from c2fsum.models.base import Summarizer
from c2fsum.modules.attention import BilinearAttention
from grids import grid
from tiny import tiny_model

V = 30
POINTER = dict(pointer=True, share_embeddings=True, input_feed=False, output="paulus", bidirectional=True)


def rewriter(coverage: bool, seed=0, **kw):
    """Weights drawn in [-1, 1], so attention is far from uniform and coverage shows."""
    return tiny_model("model0", V, seed=seed, coverage=coverage, init_range=1.0, **{**POINTER, **kw})


def test_coverage_off_adds_no_parameter_and_keeps_the_parallel_path():
    off = rewriter(False)
    on = rewriter(True)
    assert "attention.coverage_w" not in off.state_dict()
    assert set(on.state_dict()) - set(off.state_dict()) == {"attention.coverage_w"}
    assert off.parallel_teacher_forcing()  # today's speed path is untouched
    assert not on.parallel_teacher_forcing()  # step t reads the attention of the steps before


@pytest.mark.parametrize("kw", [POINTER, dict(pointer=False, input_feed=True, temporal=True)])
def test_coverage_with_zero_weight_is_the_model_without(kw):
    off, on = rewriter(False, **kw), rewriter(True, **kw)
    weights = off.state_dict()
    on.load_state_dict({**weights, "attention.coverage_w": torch.zeros(12)})
    src, mask = grid(2, 2, 5, [10, 6])
    tgt = torch.randint(4, V, (2, 6))
    tgt[:, 0] = 2
    src_ext = src if kw.get("pointer") else None
    # one path for both (step by step; the model without coverage may also run every step at once,
    # which rounds differently: tests/models/test_parallel_teacher_forcing.py)
    a, b = (Summarizer.teacher_forced(m, m.encode(src, mask, src_ext, 0), tgt) for m in (off, on))
    assert torch.equal(a.logprobs, b.logprobs) and torch.equal(a.attention.attn, b.attention.attn)
    with torch.no_grad():
        on.attention.coverage_w.fill_(1.0)
    c = on(src, mask, tgt, src_ext, 0)
    assert (a.attention.attn - c.attention.attn).abs().max() > 1e-2  # the weight is read


def test_scores_follow_see_et_al_eq_11():
    g = torch.Generator().manual_seed(3)
    att = BilinearAttention(query_dim=4, key_dim=5, coverage=True).double()
    with torch.no_grad():
        att.coverage_w.copy_(torch.randn(5, generator=g, dtype=torch.float64))
    words = torch.randn(2, 1, 6, 5, generator=g, dtype=torch.float64)
    mask = torch.ones(2, 6, dtype=torch.bool)
    mask[1, 4:] = False
    q = torch.randn(2, 4, generator=g, dtype=torch.float64)
    cov = torch.rand(2, 6, generator=g, dtype=torch.float64) * mask
    values, keys_t = att.prepare(words)
    ctx, alpha, _ = att(q, values, keys_t, mask, None, cov)
    for b in range(2):
        wq = att.W.weight @ q[b]  # W h_dec
        keys = values[b] + cov[b].unsqueeze(-1) * att.coverage_w  # h_i + c_i w_c
        e = (keys @ wq).masked_fill(~mask[b], float("-inf"))
        a = torch.softmax(e, 0)
        assert torch.allclose(alpha[b], a) and torch.allclose(ctx[b], a @ values[b])


def test_gradcheck_through_scores_and_coverage():
    g = torch.Generator().manual_seed(4)
    att = BilinearAttention(query_dim=3, key_dim=3, coverage=True).double()
    words = torch.randn(2, 1, 4, 3, generator=g, dtype=torch.float64)
    mask = torch.ones(2, 4, dtype=torch.bool)
    mask[0, 3] = False
    values, keys_t = att.prepare(words)
    q = torch.randn(2, 3, generator=g, dtype=torch.float64, requires_grad=True)
    cov = torch.rand(2, 4, generator=g, dtype=torch.float64, requires_grad=True)
    att.coverage_w.data.copy_(torch.randn(3, generator=g, dtype=torch.float64))  # not 0: c_t counts
    assert torch.autograd.gradcheck(lambda q, cov: att(q, values, keys_t, mask, None, cov)[:2], (q, cov))
    # w_c through the module's parameter: its gradient against a central finite difference
    out = att(q.detach(), values, keys_t, mask, None, cov.detach())[0].sum()
    (grad,) = torch.autograd.grad(out, att.coverage_w)
    eps = 1e-6
    for i in range(3):
        with torch.no_grad():
            att.coverage_w[i] += eps
            up = att(q, values, keys_t, mask, None, cov)[0].sum()
            att.coverage_w[i] -= 2 * eps
            down = att(q, values, keys_t, mask, None, cov)[0].sum()
            att.coverage_w[i] += eps
        assert abs((up - down) / (2 * eps) - grad[i]) < 1e-6


def coverage_model(seed=1, **kw):
    m = rewriter(True, seed=seed, **kw)
    with torch.no_grad():
        m.attention.coverage_w.normal_(0, 2.0)  # a strong coverage term, so a wrong state shows
    return m


@pytest.mark.parametrize("kw", [POINTER, dict(pointer=False, input_feed=True)])
def test_teacher_forcing_equals_stepping_with_the_carried_coverage(kw):
    m = coverage_model(**kw)
    src, mask = grid(2, 2, 5, [10, 7])
    tgt = torch.randint(4, V, (2, 6))
    tgt[:, 0] = 2
    src_ext = src if kw.get("pointer") else None
    fast = m(src, mask, tgt, src_ext, 0)
    slow = Summarizer.forward(m, src, mask, tgt, src_ext, 0)  # one m.step per word
    assert torch.allclose(fast.logprobs, slow.logprobs, atol=1e-6)
    # the state after T steps holds the attention of every step summed
    memory = m.encode(src, mask, src_ext, 0)
    state = m.init_state(memory)
    for t in range(tgt.size(1)):
        state = m.step(memory, state, tgt[:, t]).state
    assert torch.allclose(state.extra.coverage, fast.attention.attn.flatten(2).sum(1), atol=1e-6)


@pytest.mark.parametrize("kw", [POINTER, dict(pointer=False, input_feed=True)])
def test_beam_and_greedy_carry_the_coverage_of_their_own_hypothesis(kw):
    m = coverage_model(**kw)
    src, mask = grid(3, 2, 5, [10, 7, 4])
    src_ext = src if kw.get("pointer") else None
    with torch.no_grad():
        memory = m.encode(src, mask, src_ext, 0)
        greedy = greedy_decode(m, memory, max_len=8)
        beam1 = beam_search(m, m.encode(src, mask, src_ext, 0), beam=1, max_len=8)
        beams = beam_search(m, m.encode(src, mask, src_ext, 0), beam=4, max_len=8)
    assert [h.tokens for h in greedy] == [b[0].tokens for b in beam1]
    for b, hyps in enumerate(beams):
        h = hyps[0]
        # rescoring the hypothesis by teacher forcing (its own coverage) gives the beam's score
        ids = torch.tensor([[2, *h.tokens]])
        target = torch.tensor([[*h.tokens, 3]]) if h.eos else torch.tensor([h.tokens])
        ids = ids[:, : target.size(1)]
        one = slice(b, b + 1)
        with torch.no_grad():
            out = m(src[one], mask[one], ids, None if src_ext is None else src_ext[one], 0)
        score = out.logprobs.gather(-1, target.unsqueeze(-1)).sum()
        assert abs(float(score) - h.score) < 1e-4


def test_config_refuses_coverage_without_flat_attention():
    with pytest.raises(ConfigError, match="model.coverage"):
        resolve({"model": {"family": "model3", "coverage": True}})


def test_the_objective_adds_lambda_times_the_coverage_loss():
    from collections import Counter

    from c2fsum.config import DataConfig
    from c2fsum.data.batching import collate, encode_document
    from c2fsum.data.vocab import Vocab
    from c2fsum.losses.coverage import coverage_loss
    from c2fsum.losses.reinforce import MovingAverageBaseline
    from c2fsum.training.objective import Objective, batch_loss

    words = "the mice lived longer than the controls in both groups".split()
    vocab = Vocab.build(Counter(words), 50)
    docs = [
        {"id": "a", "src": [[*words, "</s>"]], "tgt": "mice lived longer".split(), "refs": []},
        {"id": "b", "src": [[*words[:6], "</s>"]], "tgt": "the mice lived the mice".split(), "refs": []},
    ]
    data = DataConfig(chunks=1, chunk_len=12)
    batch = collate([encode_document(d, vocab, data) for d in docs], chunks=1, chunk_len=12)
    m = tiny_model("model0", len(vocab), seed=2, coverage=True, init_range=1.0, **POINTER)
    base = MovingAverageBaseline()
    torch.manual_seed(0)
    plain = batch_loss(m, batch, Objective(coverage_weight=0.0), base)
    torch.manual_seed(0)
    lam = 0.7
    with_cov = batch_loss(m, batch, Objective(coverage_weight=lam), base)
    cov = coverage_loss(with_cov.forward.attention.attn, batch.tgt_mask)
    assert cov > 0
    assert torch.allclose(with_cov.loss, plain.loss + lam * cov / 2)  # D = 2 documents
    assert torch.equal(with_cov.nll, plain.nll)
