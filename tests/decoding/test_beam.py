"""Beam search against exhaustive search, teacher forcing, per-document runs and hand-made tables."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from toy_models import (
    BOS,
    EOS,
    PAD,
    TableToy,
    ToyRNN,
    has_repeated_trigram,
    random_batch,
    table_from_probs,
)

from c2fsum.decoding.beam import beam_search
from c2fsum.decoding.greedy import greedy_decode
from c2fsum.decoding.hypothesis import Hypothesis
from c2fsum.models.base import Memory, Summarizer


def exhaustive(
    model: Summarizer, memory: Memory, *, max_len: int, min_len: int, alpha: float
) -> list[tuple[float, float, list[int]]]:
    """Every complete sequence of a one-document ``memory``, best first, as (norm, score, tokens).

    Complete: ends with </s> (not before ``min_len`` tokens), or has ``max_len`` tokens.
    """
    done: list[tuple[float, float, list[int]]] = []

    def grow(state, prev: int, prefix: list[int], score: float) -> None:
        out = model.step(memory, state, torch.tensor([prev]))
        lp = out.logprobs[0].double()
        for w in range(lp.numel()):
            if w in (PAD, BOS):
                continue
            s = score + lp[w].item()
            if w == EOS:
                if len(prefix) >= min_len:
                    done.append((s / (len(prefix) + 1) ** alpha, s, prefix))
            elif len(prefix) + 1 == max_len:
                done.append((s / max_len**alpha, s, [*prefix, w]))
            else:
                grow(out.state, w, [*prefix, w], s)

    with torch.no_grad():
        grow(model.init_state(memory), BOS, [], 0.0)
    return sorted(done, key=lambda d: -d[0])


def teacher_forced(model: Summarizer, src, mask, b: int, hyp: Hypothesis, n_ext: int):
    """Summed log-prob and attention ``(T, M, N)`` of ``hyp`` for document ``b`` by teacher forcing."""
    src_ext = src[b : b + 1] if n_ext else None
    seq = hyp.tokens + ([EOS] if hyp.eos else [])
    tgt_in = torch.tensor([[BOS, *seq[:-1]]])
    with torch.no_grad():
        lp, attn = model(src[b : b + 1], mask[b : b + 1], tgt_in, src_ext, n_ext)
    score = lp[0].gather(1, torch.tensor(seq).unsqueeze(1)).sum().item()
    return score, attn[0]


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    n_ext=st.sampled_from([0, 1]),
    max_len=st.sampled_from([3, 4]),
    min_len=st.integers(0, 2),
    alpha=st.sampled_from([0.0, 0.5, 1.5]),
)
def test_large_beam_equals_exhaustive_search(seed, n_ext, max_len, min_len, alpha):
    model = ToyRNN(seed=seed, scale=2.0).eval()
    _, _, memory = random_batch(model, seed=seed, n_ext=n_ext)
    n_words = model.vocab_size + n_ext - 2  # all ids but <pad> and <s>, </s> included
    beam = n_words * (n_words - 1) ** (max_len - 1)  # holds every candidate of every step
    n_best = 4
    got = beam_search(model, memory, beam=beam, max_len=max_len, min_len=min_len, length_norm=alpha, n_best=n_best)
    for b in range(3):
        want = exhaustive(model, memory.select(torch.tensor([b])), max_len=max_len, min_len=min_len, alpha=alpha)[
            :n_best
        ]
        assert [h.tokens for h in got[b]] == [w[2] for w in want]
        assert [h.score for h in got[b]] == pytest.approx([w[1] for w in want], abs=1e-5)
        assert [h.norm_score for h in got[b]] == pytest.approx([w[0] for w in want], abs=1e-5)
        for h in got[b]:
            assert h.eos or len(h.tokens) == max_len


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), block=st.booleans(), min_len=st.integers(0, 4), max_len=st.integers(1, 12))
def test_beam_of_one_is_greedy(seed, block, min_len, max_len):
    model = ToyRNN(seed=seed, vocab_size=7, coarse=True).eval()
    _, _, memory = random_batch(model, seed=seed, batch=4, n_ext=2)
    greedy = greedy_decode(model, memory, max_len=max_len, min_len=min_len, block_trigrams=block)
    beams = beam_search(model, memory, beam=1, max_len=max_len, min_len=min_len, block_trigrams=block)
    for g, (b,) in zip(greedy, beams, strict=True):
        assert (b.tokens, b.score, b.norm_score, b.eos) == (g.tokens, g.score, g.norm_score, g.eos)
        assert torch.equal(b.attn, g.attn) and torch.equal(b.coarse, g.coarse)


@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_hypotheses_match_teacher_forcing(alpha):
    """Tokens, scores and attention read back from the history are those of the path."""
    model = ToyRNN(seed=3, vocab_size=9, coarse=True).eval()
    src, mask, memory = random_batch(model, seed=3, batch=3, n_ext=2)
    out = beam_search(model, memory, beam=4, max_len=8, length_norm=alpha, n_best=4)
    for b, hyps in enumerate(out):
        assert len(hyps) == 4
        norms = [h.norm_score for h in hyps]
        assert norms == sorted(norms, reverse=True)
        for h in hyps:
            score, attn = teacher_forced(model, src, mask, b, h, n_ext=2)
            assert h.score == pytest.approx(score, abs=1e-5)
            assert h.norm_score == pytest.approx(h.score / len(h) ** alpha, abs=1e-5)
            torch.testing.assert_close(h.attn, attn)
            torch.testing.assert_close(h.coarse, attn.sum(-1))


@pytest.mark.parametrize("block", [False, True])
def test_batched_equals_one_document_at_a_time(block):
    model = ToyRNN(seed=5, vocab_size=9, scale=4.0).eval()
    _, _, memory = random_batch(model, seed=11, batch=3, n_ext=1)
    kwargs = dict(beam=3, max_len=12, n_best=3, block_trigrams=block, length_norm=0.5)
    batched = beam_search(model, memory, **kwargs)
    for b in range(3):
        (alone,) = beam_search(model, memory.select(torch.tensor([b])), **kwargs)
        assert [h.tokens for h in batched[b]] == [h.tokens for h in alone]
        assert [h.score for h in batched[b]] == pytest.approx([h.score for h in alone], abs=1e-5)
        for x, y in zip(batched[b], alone, strict=True):
            torch.testing.assert_close(x.attn, y.attn)


def test_documents_are_decoded_differently():
    """The batch test above is only meaningful if the documents differ."""
    model = ToyRNN(seed=5, vocab_size=9, scale=4.0).eval()
    _, _, memory = random_batch(model, seed=11, batch=3, n_ext=1)
    out = beam_search(model, memory, beam=3, max_len=12)
    assert len({tuple(hs[0].tokens) for hs in out}) > 1


def test_length_normalization_changes_the_ranking():
    # </s> at once: log 0.5; the path 4 5 </s>: log 0.45 + 2 log 0.95 = -0.90 (worse), but per
    # token -0.30 against -0.69 (better)
    table = table_from_probs({(0, BOS): {EOS: 0.5, 4: 0.45}, (1, 4): {5: 0.95}, (2, 5): {EOS: 0.95}})
    model = TableToy(table)
    src = torch.tensor([[[4, 5, 0]]])
    memory = model.encode(src, src != PAD)
    (raw,) = beam_search(model, memory, beam=2, max_len=4, n_best=2)
    (norm,) = beam_search(model, memory, beam=2, max_len=4, n_best=2, length_norm=1.0)
    assert [h.tokens for h in raw] == [[], [4, 5]]
    assert [h.tokens for h in norm] == [[4, 5], []]
    assert raw[0].score == pytest.approx(math.log(0.5), abs=1e-6)
    assert norm[0].score == pytest.approx(math.log(0.45) + 2 * math.log(0.95), abs=1e-6)
    assert norm[0].norm_score == pytest.approx(norm[0].score / 3, abs=1e-6)


def test_length_normalized_search_does_not_stop_too_early():
    # </s> at once: log 0.6 = -0.51 per token. 4 then confident 5 5 5 </s>: -1.24 / 5 = -0.25.
    # After one step the live beam (-1.20) looks worse than -0.51 when divided by the next length
    # 2; only the bound with the longest length (max_len) keeps it.
    rules = {
        (0, BOS): {EOS: 0.6, 4: 0.3},
        (1, 4): {5: 0.99},
        (2, 5): {5: 0.99},
        (3, 5): {5: 0.99},
        (4, 5): {EOS: 0.99},
    }
    model = TableToy(table_from_probs(rules, n_pos=5))
    memory = model.encode(torch.tensor([[[4]]]), torch.tensor([[[True]]]))
    (best,) = beam_search(model, memory, beam=2, max_len=6, length_norm=1.0)[0]
    assert best.tokens == [4, 5, 5, 5] and best.eos
    assert best.norm_score == pytest.approx((math.log(0.3) + 4 * math.log(0.99)) / 5, abs=1e-6)


def test_hand_made_scores_and_stop_at_max_len():
    # 4 is always likely, </s> never: every hypothesis is cut at max_len
    table = table_from_probs({(t, w): {4: 0.6, 5: 0.3, EOS: 1e-6} for t in range(4) for w in (BOS, 4, 5)})
    model = TableToy(table)
    memory = model.encode(torch.tensor([[[4, 0]]]), torch.tensor([[[True, False]]]))
    (hyps,) = beam_search(model, memory, beam=2, max_len=3, n_best=2)
    # the second best is a three-way tie (0.3 * 0.6 * 0.6 in any order): topk may return any of them
    assert hyps[0].tokens == [4, 4, 4] and hyps[1].tokens in ([5, 4, 4], [4, 5, 4], [4, 4, 5])
    assert not hyps[0].eos and len(hyps[0]) == 3
    assert hyps[0].score == pytest.approx(3 * math.log(0.6), abs=1e-5)
    assert hyps[1].score == pytest.approx(math.log(0.3) + 2 * math.log(0.6), abs=1e-5)
    assert hyps[0].attn.shape == (3, 1, 2)


@pytest.mark.parametrize("min_len", [0, 1, 4])
def test_min_len_is_respected(min_len):
    trans = torch.zeros(6, 10)
    trans[:, EOS] = 8.0  # the toy wants to stop at once
    model = ToyRNN(seed=2, trans=trans).eval()
    _, _, memory = random_batch(model, seed=2)
    out = beam_search(model, memory, beam=3, max_len=10, min_len=min_len, n_best=3)
    for hyps in out:
        assert all(len(h.tokens) >= min_len and h.eos for h in hyps)
        assert min(len(h.tokens) for h in hyps) == min_len


def test_pad_and_bos_are_never_produced():
    trans = torch.zeros(6, 10)
    trans[:, [PAD, BOS]] = 20.0
    model = ToyRNN(seed=4, trans=trans).eval()
    _, _, memory = random_batch(model, seed=4)
    for hyps in beam_search(model, memory, beam=3, max_len=6, n_best=3):
        for h in hyps:
            assert PAD not in h.tokens and BOS not in h.tokens
            assert math.isfinite(h.score)


def cyclic_toy(**kwargs) -> ToyRNN:
    """A toy that loves the cycle 4 -> 5 -> 6 -> 4 and dislikes </s>."""
    trans = torch.zeros(8, 12)
    for a, b in [(BOS, 4), (4, 5), (5, 6), (6, 4)]:
        trans[a, b] = 12.0
    trans[:, EOS] = -6.0
    return ToyRNN(vocab_size=8, trans=trans, **kwargs).eval()


def test_trigram_blocking_removes_the_repeats_of_a_cyclic_toy():
    model = cyclic_toy(seed=0)
    _, _, memory = random_batch(model, seed=0)
    plain = beam_search(model, memory, beam=3, max_len=15)
    blocked = beam_search(model, memory, beam=3, max_len=15, block_trigrams=True)
    assert all(has_repeated_trigram(hs[0].tokens) for hs in plain)
    assert not any(has_repeated_trigram(hs[0].tokens) for hs in blocked)
    assert all(len(hs[0].tokens) >= 5 for hs in blocked)


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    beam=st.integers(1, 4),
    min_len=st.integers(0, 12),
    cyclic=st.booleans(),
    scale=st.floats(0.5, 8.0),
)
def test_trigram_blocking_never_repeats_a_trigram(seed, beam, min_len, cyclic, scale):
    model = cyclic_toy(seed=seed, scale=scale) if cyclic else ToyRNN(seed=seed, vocab_size=7, scale=scale)
    _, _, memory = random_batch(model, seed=seed, n_ext=1)
    for hyps in beam_search(model, memory, beam=beam, max_len=15, min_len=min_len, block_trigrams=True, n_best=beam):
        for h in hyps:
            assert not has_repeated_trigram(h.tokens + [EOS] * h.eos)
            assert math.isfinite(h.score)


def test_attention_shapes():
    model = ToyRNN(seed=1, vocab_size=8, coarse=True).eval()
    _, mask, memory = random_batch(model, seed=1, batch=2, chunks=3, chunk_len=4)
    for b, hyps in enumerate(beam_search(model, memory, beam=3, max_len=7, n_best=2)):
        for h in hyps:
            assert h.attn.shape == (len(h.tokens) + h.eos, 3, 4) == (len(h), 3, 4)
            assert h.attn.dtype == torch.float32 and h.attn.device.type == "cpu"
            assert h.coarse.shape == (len(h), 3)
            torch.testing.assert_close(h.attn.sum((1, 2)), torch.ones(len(h)))
            assert (h.attn[:, ~mask[b]] == 0).all()
    plain = ToyRNN(seed=1, vocab_size=8).eval()
    assert beam_search(plain, memory, beam=2, max_len=3)[0][0].coarse is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"beam": 0}, "beam must be >= 1, got 0"),
        ({"beam": 2, "n_best": 3}, "n_best must be between 1 and beam=2, got 3"),
        ({"max_len": 0}, "max_len must be >= 1, got 0"),
        ({"min_len": -1}, "min_len must be >= 0, got -1"),
    ],
)
def test_bad_arguments_are_named(kwargs, message):
    model = ToyRNN()
    _, _, memory = random_batch(model)
    with pytest.raises(ValueError, match=message):
        beam_search(model, memory, **{"beam": 2, "max_len": 5, **kwargs})


def back_to_back(tokens: list[int]) -> int:
    """Words right after themselves plus word pairs right after themselves (``a a``, ``a b a b``)."""
    words = sum(a == b for a, b in zip(tokens, tokens[1:], strict=False))
    pairs = sum(tokens[i : i + 2] == tokens[i + 2 : i + 4] for i in range(len(tokens) - 3))
    return words + pairs


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    beam=st.integers(1, 4),
    min_len=st.integers(0, 12),
    trigrams=st.booleans(),
    scale=st.floats(0.5, 8.0),
)
def test_repeat_blocking_never_writes_a_word_or_pair_twice_in_a_row(seed, beam, min_len, trigrams, scale):
    model = ToyRNN(seed=seed, vocab_size=7, scale=scale)
    _, _, memory = random_batch(model, seed=seed, n_ext=1)
    kw = dict(beam=beam, max_len=15, min_len=min_len, block_trigrams=trigrams, block_repeats=True, n_best=beam)
    for hyps in beam_search(model, memory, **kw):
        for h in hyps:
            assert back_to_back(h.tokens) == 0, h.tokens
            if trigrams:
                assert not has_repeated_trigram(h.tokens + [EOS] * h.eos)


def test_repeat_blocking_changes_what_a_stuttering_toy_writes():
    """A toy whose best next word is the word itself: plain search stutters (``a a a``), blocked
    search does not, and the blocked summary is no shorter than a forbidden word would make it."""
    trans = torch.full((8, 12), -4.0)  # (V, V + MAX_EXT)
    trans[BOS, 4] = 12.0
    for w in range(4, 8):
        trans[w, w] = 12.0  # stutter
        trans[w, 4 + (w - 3) % 4] = 6.0  # then the next word
    trans[:, EOS] = -6.0
    model = ToyRNN(vocab_size=8, trans=trans).eval()
    _, _, memory = random_batch(model, seed=0)
    plain = beam_search(model, memory, beam=3, max_len=10)
    blocked = beam_search(model, memory, beam=3, max_len=10, block_repeats=True)
    assert all(back_to_back(hs[0].tokens) > 0 for hs in plain)
    assert all(back_to_back(hs[0].tokens) == 0 and len(hs[0].tokens) == 10 for hs in blocked)


def test_ids_never_produced_are_skipped_by_greedy_and_beam_search():
    """The model's favourite word 4 (p = 0.6 at every step) is in ``never``: both searches write
    the next best (5, p = 0.3) instead, with its own log-probability as the score."""
    table = table_from_probs({(t, w): {4: 0.6, 5: 0.3, EOS: 1e-6} for t in range(4) for w in (BOS, 4, 5)})
    model = TableToy(table)
    memory = model.encode(torch.tensor([[[4, 0]]]), torch.tensor([[[True, False]]]))
    (free,) = beam_search(model, memory, beam=2, max_len=3)
    assert free[0].tokens == [4, 4, 4]
    (kept,) = beam_search(model, memory, beam=2, max_len=3, never=[4])
    assert kept[0].tokens == [5, 5, 5]
    assert kept[0].score == pytest.approx(3 * math.log(0.3), abs=1e-5)
    (greedy,) = greedy_decode(model, memory, max_len=3, never=[4])
    assert greedy.tokens == [5, 5, 5]


def test_markup_tokens_are_found_and_names_with_a_domain_are_not():
    from c2fsum.decoding.hypothesis import markup_ids

    itos = ["<pad>", "http", "https", "//dx.doi.org/", "issue-copyright-statement\u00a9", "\u00a9", "www", "cnn.com"]
    itos += ["httpd", "n't", "e-mail", "a/b", "and/or"]
    assert [itos[i] for i in markup_ids(itos)] == itos[1:7]
