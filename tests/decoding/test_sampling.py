"""Sampling: the returned log-probability is that of the sampled path, and it has a gradient."""

from __future__ import annotations

import pytest
import torch
from toy_models import BOS, EOS, PAD, TableToy, ToyRNN, random_batch, table_from_probs

from c2fsum.decoding.sampling import sample


def test_logprob_is_the_teacher_forced_logprob_and_differentiable():
    model = ToyRNN(seed=1, vocab_size=8)
    src, mask, _ = random_batch(model, seed=1, batch=4)
    memory = model.encode(src, mask)  # with its graph
    out = sample(model, memory, max_len=9, generator=torch.Generator().manual_seed(0))
    assert out.tokens.shape == out.mask.shape == out.step_logprobs.shape
    for b, toks in enumerate(out.token_lists()):
        seq = toks + [EOS] * bool(out.eos[b])
        assert out.tokens[b, : len(seq)].tolist() == seq and out.mask[b].sum() == len(seq)
        assert (out.tokens[b, len(seq) :] == PAD).all()
        with torch.no_grad():
            lp, _ = model(src[b : b + 1], mask[b : b + 1], torch.tensor([[BOS, *seq[:-1]]]))
        lp[..., [PAD, BOS]] = float("-inf")  # the sampler never draws them
        want = lp.log_softmax(-1)[0].gather(1, torch.tensor(seq).unsqueeze(1)).sum()
        assert out.logprob[b].item() == pytest.approx(want.item(), abs=1e-5)
    out.logprob.sum().backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all(), name
    assert model.out.grad.abs().sum() > 0 and model.src_emb.weight.grad.abs().sum() > 0


def test_frequencies_follow_the_model():
    table = table_from_probs({(0, BOS): {4: 0.6, 5: 0.3, EOS: 0.05}})
    model = TableToy(table)
    n = 4000
    memory = model.encode(torch.full((n, 1, 1), 4), torch.ones(n, 1, 1, dtype=torch.bool))
    out = sample(model, memory, max_len=1, generator=torch.Generator().manual_seed(0))
    counts = torch.bincount(out.tokens[:, 0], minlength=6).double() / n
    allowed = table[0, BOS].exp().clone()
    allowed[[PAD, BOS]] = 0
    torch.testing.assert_close(counts, allowed / allowed.sum(), atol=0.03, rtol=0)


def test_min_len_generator_and_no_special_tokens():
    trans = torch.zeros(6, 10)
    trans[:, EOS] = 3.0
    trans[:, [PAD, BOS]] = 10.0
    model = ToyRNN(seed=3, trans=trans)
    _, _, memory = random_batch(model, seed=3, batch=8)
    with torch.no_grad():
        a = sample(model, memory, max_len=10, min_len=4, generator=torch.Generator().manual_seed(5))
        b = sample(model, memory, max_len=10, min_len=4, generator=torch.Generator().manual_seed(5))
    assert torch.equal(a.tokens, b.tokens)
    assert (a.lengths >= 4).all()
    produced = a.tokens[a.mask]
    assert not ((produced == PAD) | (produced == BOS)).any()


def test_temperature_must_be_positive():
    model = ToyRNN()
    _, _, memory = random_batch(model)
    with pytest.raises(ValueError, match="temperature must be > 0, got 0"):
        sample(model, memory, max_len=3, temperature=0)
