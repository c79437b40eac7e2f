"""Coarse attention entropy (thesis Table 6.2): hand-computed goldens and the split meter."""

from __future__ import annotations

import math

import pytest
import torch

from c2fsum.metrics.entropy import EntropyMeter, attention_entropy, chunk_distribution, uniform_reference


def test_entropy_goldens():
    dist = torch.tensor(
        [
            [0.25, 0.25, 0.25, 0.25],  # uniform over 4 chunks: ln 4
            [0.0, 1.0, 0.0, 0.0],  # one-hot: 0
            [0.5, 0.5, 0.0, 0.0],  # two chunks: ln 2 (0 log 0 = 0)
            [0.5, 0.25, 0.25, 0.0],
        ]
    )  # 0.5 ln 2 + 2 * 0.25 ln 4 = 1.5 ln 2
    got = attention_entropy(dist)
    want = torch.tensor([math.log(4), 0.0, math.log(2), 1.5 * math.log(2)])
    assert got.shape == (4,)
    assert torch.allclose(got, want, atol=1e-6)
    assert not torch.isnan(got).any()


def test_entropy_rejects_negative_weights():
    with pytest.raises(ValueError, match=">= 0"):
        attention_entropy(torch.tensor([[1.5, -0.5]]))


def test_uniform_reference_is_ln_m():
    assert uniform_reference(4) == pytest.approx(math.log(4))
    assert uniform_reference(1) == 0.0
    with pytest.raises(ValueError, match="n_chunks must be >= 1, got 0"):
        uniform_reference(0)


def test_word_attention_summed_per_chunk():
    # T=2, M=3, N=2: step 0 puts 0.1+0.3 on chunk 0, 0.6 on chunk 2; step 1 all on chunk 1
    attn = torch.tensor([[[0.1, 0.3], [0.0, 0.0], [0.2, 0.4]], [[0.0, 0.0], [0.5, 0.5], [0.0, 0.0]]])
    dist = chunk_distribution(attn)
    assert torch.allclose(dist, torch.tensor([[0.4, 0.0, 0.6], [0.0, 1.0, 0.0]]))
    ent = attention_entropy(dist)
    assert ent[0].item() == pytest.approx(-(0.4 * math.log(0.4) + 0.6 * math.log(0.6)), abs=1e-6)
    assert ent[1].item() == pytest.approx(0.0, abs=1e-7)


def test_coarse_attention_wins_over_word_attention():
    attn = torch.full((2, 4, 3), 1 / 12)  # word attention: uniform
    coarse = torch.tensor([[1.0, 0, 0, 0], [0.5, 0.5, 0, 0]])
    dist = chunk_distribution(attn, coarse)
    assert torch.equal(dist, coarse)
    assert torch.allclose(attention_entropy(dist), torch.tensor([0.0, math.log(2)]), atol=1e-6)
    with pytest.raises(ValueError, match=r"coarse: expected shape \(2, 4\)"):
        chunk_distribution(attn, coarse[:, :3])


def test_meter_averages_over_every_word():
    meter = EntropyMeter()
    # hypothesis 1 (MODEL 2): 2 words, entropies ln 4 and 0
    attn1 = torch.full((2, 4, 5), 1 / 20)
    coarse1 = torch.tensor([[0.25] * 4, [1.0, 0, 0, 0]])
    got = meter.add(attn1, coarse1)
    assert torch.allclose(got, torch.tensor([math.log(4), 0.0]), atol=1e-6)
    # hypothesis 2 (MODEL 0): 1 word spread over 2 chunks out of 4 -> ln 2
    attn2 = torch.zeros(1, 4, 5)
    attn2[0, 0, :] = 0.1
    attn2[0, 3, :] = 0.1
    meter.add(attn2, None)
    assert meter.count == 3
    assert meter.mean == pytest.approx((math.log(4) + 0 + math.log(2)) / 3, abs=1e-6)
    assert meter.uniform_mean == pytest.approx(math.log(4))


def test_meter_drops_padding_chunks():
    meter = EntropyMeter()
    coarse = torch.tensor([[0.5, 0.5, 0.0, 0.0]])  # 2 real chunks padded to M=4
    meter.add(torch.zeros(1, 4, 3), coarse, n_chunks=2)
    assert meter.mean == pytest.approx(math.log(2))
    assert meter.uniform_mean == pytest.approx(math.log(2))  # uniform over the document's chunks
    with pytest.raises(ValueError, match="mass 0.5 on chunks past n_chunks=1"):
        meter.add(torch.zeros(1, 4, 3), coarse, n_chunks=1)
    with pytest.raises(ValueError, match="n_chunks must be between 1 and M=4, got 5"):
        meter.add(torch.zeros(1, 4, 3), coarse, n_chunks=5)


def test_empty_meter_has_no_mean():
    meter = EntropyMeter()
    with pytest.raises(ValueError, match="no words added"):
        _ = meter.mean
    meter.add(torch.full((1, 2, 1), 0.5))
    meter.reset()
    assert meter.count == 0
