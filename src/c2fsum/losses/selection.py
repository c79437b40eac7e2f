"""The rewards and the REINFORCE loss of a sentence selector (:mod:`c2fsum.models.select_rewrite`).

Each pick earns its gain in ROUGE-1 recall of the reference and the stop the selection's ROUGE-1
F1 (:func:`rouge1_gains`, after Chen & Bansal 2018); R_t = sum_{s>=t} gamma^(s-t) r_s; the
baseline of step t is the greedy selection's R_t (0 past its end), which does not depend on the
drawn picks, so the gradient stays unbiased (:func:`self_critical_selection_loss`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import torch
from torch import Tensor

from c2fsum.data.align import content
from c2fsum.data.batching import Example
from c2fsum.data.sentences import document_sentences
from c2fsum.losses.reinforce import discounted_returns, reinforce_loss


def rouge1_gains(sentences: Sequence[Sequence[str]], picks: Sequence[int], reference: Sequence[str]) -> list[float]:
    """The reward of each pick and of the stop, for REINFORCE.

    Pick t earns the gain in ROUGE-1 recall of the reference (content words, clipped counts) from
    adding sentence ``picks[t]`` to those picked before; the stop earns the ROUGE-1 F1 of the whole
    selection against the reference (Chen & Bansal's stop reward), so a selection that piles up
    sentences for recall pays for it in precision at the end. Returns ``len(picks) + 1`` floats.

    >>> [round(r, 3) for r in rouge1_gains([["a", "b"], ["c"], ["a"]], [0, 2], ["a", "b", "c", "d"])]
    [0.5, 0.0, 0.571]
    """
    ref = Counter(content(reference))
    total = sum(ref.values())
    have: Counter[str] = Counter()
    matched, words, out = 0, 0, []
    for j in picks:
        sent = content(sentences[j])
        words += len(sent)
        before = matched
        have.update(sent)
        matched = sum(min(n, have[w]) for w, n in ref.items())
        out.append((matched - before) / total if total else 0.0)
    recall = matched / total if total else 0.0
    precision = matched / words if words else 0.0
    out.append(2 * recall * precision / (recall + precision) if recall + precision > 0 else 0.0)
    return out


def _f1(matched: int, candidate: int, reference: int) -> float:
    if not matched:
        return 0.0
    recall, precision = matched / reference, matched / candidate
    return 2 * recall * precision / (recall + precision)


def summary_rouge(sentences: Sequence[Sequence[str]], picks: Sequence[int], reference: Sequence[str]) -> float:
    """The mean of ROUGE-1 and ROUGE-2 F1 (content words, clipped counts, bigrams over each side's
    words run together, as the summaries are scored) of the picked sentences, in the paper's order,
    against ``reference``: what a whole selection is worth (``model.selector_reward=summary``).

    By hand: picks "a b" and "c" against "a b d </s> c": unigrams 3 of 3 picked and of 4 reference
    words (F1 6/7); bigrams (a, b) of (a, b), (b, c) and of (a, b), (b, d), (d, c) (F1 2/5):
    (6/7 + 2/5) / 2 = 22/35.

    >>> round(summary_rouge([["a", "b", "."], ["c", "."], ["e"]], [1, 0], "a b d </s> c".split()), 4)
    0.6286
    """
    ref = content(reference)
    mine = [w for j in sorted(picks) for w in content(sentences[j])]
    scores = []
    for n in (1, 2):
        want = Counter(zip(*(ref[i:] for i in range(n)), strict=False))
        have = Counter(zip(*(mine[i:] for i in range(n)), strict=False))
        matched = sum(min(c, want[g]) for g, c in have.items())
        scores.append(_f1(matched, sum(have.values()), sum(want.values())))
    return sum(scores) / 2


REWARDS = ("gains", "summary")
"""``model.selector_reward``'s values (:func:`step_rewards`)."""


def step_rewards(
    examples: Sequence[Example], picks: Sequence[Sequence[int]], mask: Tensor, kind: str = "gains"
) -> Tensor:
    """``(B, T)`` as the selection's step ``mask``: the reward of each step of a selection, 0 past
    its end. ``gains``: :func:`rouge1_gains` (its ``picks``, then its last step, the stop, chosen or
    forced by the budget); ``summary``: :func:`summary_rouge` at its last step, 0 before."""
    out = torch.zeros(mask.shape)
    for b, ex in enumerate(examples):
        if kind == "summary":
            steps = int(mask[b].sum())
            if steps:
                out[b, steps - 1] = summary_rouge(document_sentences(ex), picks[b], ex.tgt_words)
            continue
        r = rouge1_gains(document_sentences(ex), picks[b], ex.tgt_words)
        out[b, : len(r)] = torch.tensor(r)
    return out


def pad_steps(x: Tensor, T: int) -> Tensor:
    """``(B, T')`` -> ``(B, T)``: cut, or padded with zeros."""
    if x.size(1) >= T:
        return x[:, :T]
    return torch.cat([x, x.new_zeros(x.size(0), T - x.size(1))], 1)


def self_critical_selection_loss(
    logprob: Tensor,
    mask: Tensor,
    rewards: Tensor,
    greedy_rewards: Tensor,
    greedy_mask: Tensor,
    *,
    gamma: float,
    baseline: bool = True,
) -> tuple[Tensor, Tensor, Tensor]:
    """REINFORCE over a drawn selection's steps (``logprob``, ``mask``, ``rewards`` ``(B, T)``),
    summed over the batch, with the greedy selection's returns as baseline (``baseline=False``:
    none, plain REINFORCE); and the mean return of the drawn and of the greedy selections."""
    T = logprob.size(1)
    ret = discounted_returns(rewards, mask, gamma)  # (B, T)
    base = discounted_returns(greedy_rewards, greedy_mask, gamma)
    base = pad_steps(base, T) if baseline else torch.zeros_like(ret)  # the greedy selection's R_t, 0 past its end
    zero = torch.zeros(ret.size(1), device=ret.device)
    loss = reinforce_loss(logprob, ret - base, zero, mask, 1.0)
    return loss, ret[:, 0].mean(), base[:, 0].mean()
