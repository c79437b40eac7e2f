"""Greedy decoding on hand-made tables and toy RNNs."""

from __future__ import annotations

import math

import pytest
import torch
from toy_models import BOS, EOS, PAD, TableToy, ToyRNN, has_repeated_trigram, random_batch, table_from_probs

from c2fsum.decoding.greedy import greedy_decode


def test_greedy_follows_the_most_probable_word():
    # after <s>: 4 (0.5) beats </s> (0.4); after 4: </s> (0.7). Beam search would agree here.
    table = table_from_probs({(0, BOS): {4: 0.5, EOS: 0.4}, (1, 4): {EOS: 0.7}})
    model = TableToy(table)
    memory = model.encode(torch.tensor([[[4, 5], [5, 0]]]), torch.tensor([[[True, True], [True, False]]]))
    (h,) = greedy_decode(model, memory, max_len=5)
    assert h.tokens == [4] and h.eos and len(h) == 2
    assert h.score == pytest.approx(math.log(0.5) + math.log(0.7), abs=1e-6)
    assert h.norm_score == h.score
    torch.testing.assert_close(h.attn, torch.tensor([[[1 / 3, 1 / 3], [1 / 3, 0.0]]]).expand(2, 2, 2))
    assert h.coarse is None


def test_greedy_is_cut_at_max_len():
    table = table_from_probs({(t, w): {5: 0.9} for t in range(4) for w in (BOS, 5)})
    model = TableToy(table)
    memory = model.encode(torch.tensor([[[4]]]), torch.tensor([[[True]]]))
    (h,) = greedy_decode(model, memory, max_len=3)
    assert h.tokens == [5, 5, 5] and not h.eos and len(h) == 3
    assert h.score == pytest.approx(3 * math.log(0.9), abs=1e-5)


def test_batched_greedy_equals_one_document_at_a_time():
    model = ToyRNN(seed=7, vocab_size=9, scale=4.0, coarse=True).eval()
    _, _, memory = random_batch(model, seed=7, batch=3, n_ext=2)
    batched = greedy_decode(model, memory, max_len=12)
    assert len({tuple(h.tokens) for h in batched}) > 1
    for b, h in enumerate(batched):
        (alone,) = greedy_decode(model, memory.select(torch.tensor([b])), max_len=12)
        assert h.tokens == alone.tokens and h.eos == alone.eos
        assert h.score == pytest.approx(alone.score, abs=1e-5)
        torch.testing.assert_close(h.attn, alone.attn)
        torch.testing.assert_close(h.coarse, alone.coarse)


@pytest.mark.parametrize("min_len", [0, 3])
def test_greedy_min_len(min_len):
    trans = torch.zeros(6, 10)
    trans[:, EOS] = 8.0
    model = ToyRNN(seed=2, trans=trans).eval()
    _, _, memory = random_batch(model, seed=2)
    assert [len(h.tokens) for h in greedy_decode(model, memory, max_len=10, min_len=min_len)] == [min_len] * 3


def test_greedy_never_produces_pad_or_bos():
    trans = torch.zeros(6, 10)
    trans[:, [PAD, BOS]] = 20.0
    model = ToyRNN(seed=4, trans=trans).eval()
    _, _, memory = random_batch(model, seed=4)
    for h in greedy_decode(model, memory, max_len=8):
        assert PAD not in h.tokens and BOS not in h.tokens


def test_greedy_trigram_blocking():
    trans = torch.zeros(8, 12)
    for a, b in [(BOS, 4), (4, 5), (5, 6), (6, 4)]:
        trans[a, b] = 12.0
    trans[:, EOS] = -6.0
    model = ToyRNN(seed=0, vocab_size=8, trans=trans).eval()
    _, _, memory = random_batch(model, seed=0)
    plain = greedy_decode(model, memory, max_len=15)
    blocked = greedy_decode(model, memory, max_len=15, block_trigrams=True)
    assert all(h.tokens[:6] == [4, 5, 6, 4, 5, 6] and has_repeated_trigram(h.tokens) for h in plain)
    assert not any(has_repeated_trigram(h.tokens) for h in blocked)


def test_blocking_prefers_ending_over_repeating():
    """With one word and min_len, blocking forbids everything: the row ends with </s>."""
    table = table_from_probs({(t, w): {4: 0.97} for t in range(4) for w in (BOS, 4)})
    table[:, :, 1] = float("-inf")  # no <unk> either, so 4 is the only word
    table[:, :, 5] = float("-inf")
    model = TableToy(table)
    memory = model.encode(torch.tensor([[[4]]]), torch.tensor([[[True]]]))
    (h,) = greedy_decode(model, memory, max_len=10, min_len=6, block_trigrams=True)
    assert h.tokens == [4, 4, 4] and h.eos


def test_greedy_rejects_bad_lengths():
    model = ToyRNN()
    _, _, memory = random_batch(model)
    with pytest.raises(ValueError, match="max_len must be >= 1, got 0"):
        greedy_decode(model, memory, max_len=0)
