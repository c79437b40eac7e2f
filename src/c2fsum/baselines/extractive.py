"""The extractive summarizers of thesis Table 6.1 and of later work: from a tokenized article
(sentences of tokens) to a summary, one sentence per line. Scored like the models by
:func:`c2fsum.evaluation.baselines.run_baseline`.

* ``first``: the article's first sentence (the thesis's FIRST);
* ``lead3``: its first three sentences (LEAD-3, the standard baseline of later work);
* ``lead``: its first ``budget`` words (the last sentence cut), for targets longer than a
  sentence or three (PubMed abstracts: the budget = the mean training target length);
* ``oracle``: the extractive ceiling, sentences chosen greedily to raise ROUGE-1 F + ROUGE-2 F
  against the reference within the word budget (:func:`oracle_summary`);
* ``ilp``: concept-coverage ILP under a word budget (:mod:`c2fsum.baselines.ilp`), the
  extractive stand-in for the thesis's BERKELEY system;
* ``berkeley``: the thesis's BERKELEY (Durrett et al. 2016), a compressive ILP over sentence heads
  and their deletable parts with anaphoricity constraints and learned unit scores
  (:mod:`c2fsum.baselines.berkeley`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from c2fsum.baselines.ilp import ilp_summary
from c2fsum.errors import InputError
from c2fsum.metrics.output_stats import SENTENCE_MARKS
from c2fsum.metrics.rouge import Rouge155Tokenizer, ngram_counts

BASELINES = ("first", "lead3", "lead", "ilp", "oracle", "berkeley")
DISPLAY = {
    "first": "FIRST",
    "lead3": "LEAD-3",
    "lead": "LEAD",
    "ilp": "ILP",
    "oracle": "ORACLE",
    "berkeley": "BERKELEY",
}
BUDGETED = ("lead", "ilp", "oracle", "berkeley")
"""The baselines that take a word budget (``--budget``)."""
ILP_BUDGET = 25
"""Default ILP length budget in words (about a first sentence; the gold highlights average 14)."""


def lead_sentences(src_sentences: Sequence[Sequence[str]], budget: int) -> list[int]:
    """LEAD's whole sentences: the indices of the article's first non-empty sentences (``<s>``/``</s>``
    not counted) while their words fit ``budget``; it stops at the first sentence that does not fit."""
    if budget < 1:
        raise InputError(f"budget: expected at least 1 word, got {budget}")
    chosen, left = [], budget
    for j, sentence in enumerate(src_sentences):
        n = len(sentence_words(sentence))
        if n > left:
            break
        if n:
            chosen.append(j)
            left -= n
    return chosen


def lead_words(src_sentences: Sequence[Sequence[str]], budget: int) -> str:
    """LEAD with a word budget: the article's first ``budget`` words (``<s>``/``</s>`` not counted),
    one sentence per line: :func:`lead_sentences`, then the next sentence cut where the budget runs out."""
    chosen = lead_sentences(src_sentences, budget)
    lines = [sentence_words(src_sentences[j]) for j in chosen]
    left = budget - sum(map(len, lines))
    after = chosen[-1] + 1 if chosen else 0
    rest = next((w for w in map(sentence_words, src_sentences[after:]) if w), [])
    if left and rest:
        lines.append(rest[:left])
    return "\n".join(" ".join(w) for w in lines)


def _f1(overlap: int, cand_total: int, ref_total: int) -> float:
    if overlap == 0:
        return 0.0
    p, r = overlap / cand_total, overlap / ref_total
    return 2 * p * r / (p + r)


def oracle_summary(src_sentences: Sequence[Sequence[str]], reference: str, budget: int) -> str:
    """The greedy extractive oracle: starting from nothing, add the sentence that fits the word
    budget and raises ROUGE-1 F + ROUGE-2 F against ``reference`` the most; stop when none raises
    it. Chosen sentences in article order, one per line; ties go to the earlier sentence.

    N-grams are those of the scorer (:class:`~c2fsum.metrics.rouge.Rouge155Tokenizer`: lower-cased,
    Porter-stemmed, punctuation dropped). The greedy criterion counts the candidate's bigrams within
    its sentences (the scorer's ROUGE-2 also counts the one bigram across each sentence boundary:
    the reported scores are the scorer's). Budget in article words, as LEAD's.
    """
    tok = Rouge155Tokenizer()
    ref_tokens = tok.tokenize(reference)
    ref = {n: ngram_counts(ref_tokens, n) for n in (1, 2)}
    ref_total = {n: max(sum(ref[n].values()), 1) for n in (1, 2)}
    texts = [sentence_words(s) for s in src_sentences]
    grams = [{n: ngram_counts(tok.tokenize(" ".join(t)), n) for n in (1, 2)} for t in texts]
    chosen: list[int] = []
    have: dict[int, Counter] = {1: Counter(), 2: Counter()}
    best_score, used = 0.0, 0

    def score_with(j: int) -> float:
        total = 0.0
        for n in (1, 2):
            cand = have[n] + grams[j][n]
            overlap = sum(min(c, ref[n][g]) for g, c in cand.items() if g in ref[n])
            total += _f1(overlap, sum(cand.values()), ref_total[n])
        return total

    while True:
        best_j = -1
        for j, t in enumerate(texts):
            if j in chosen or not t or used + len(t) > budget:
                continue
            s = score_with(j)
            if s > best_score:
                best_j, best_score = j, s
        if best_j < 0:
            break
        chosen.append(best_j)
        used += len(texts[best_j])
        for n in (1, 2):
            have[n] += grams[best_j][n]
    return "\n".join(" ".join(texts[j]) for j in sorted(chosen))


def baseline_summary(
    name: str,
    src_sentences: list[list[str]],
    *,
    ilp_budget: int = ILP_BUDGET,
    reference: str = "",
) -> str:
    """The summary of a tokenized article by baseline ``name`` (sentences one per line).

    ``ilp_budget``: the word budget of ``lead``, ``ilp`` and ``oracle``; ``reference``: what the
    oracle aims at (its sentences one per line; other baselines ignore it).
    """
    if name == "first":
        return first_sentence_baseline(src_sentences)
    if name == "lead3":
        return lead_k(src_sentences, 3)
    if name == "lead":
        return lead_words(src_sentences, ilp_budget)
    if name == "ilp":
        return ilp_summary(src_sentences, ilp_budget)
    if name == "oracle":
        return oracle_summary(src_sentences, reference, ilp_budget)
    if name == "berkeley":  # with the shipped weights; run_baseline takes others
        from c2fsum.baselines.berkeley import berkeley_summary, load_weights

        return berkeley_summary(src_sentences, ilp_budget, load_weights()[0])
    raise InputError(f"unknown baseline {name!r}, expected one of {', '.join(BASELINES)}")


def sentence_words(sentence: Sequence[str]) -> list[str]:
    """Tokens of one source sentence, ``<s>``/``</s>`` removed."""
    return [tok for tok in sentence if tok not in SENTENCE_MARKS]


def _sentence_text(sentence: Sequence[str]) -> str:
    """Tokens of one source sentence joined by spaces, ``<s>``/``</s>`` removed."""
    return " ".join(sentence_words(sentence))


def lead_k(src_sentences: Sequence[Sequence[str]], k: int = 3) -> str:
    """LEAD-k: the first ``k`` non-empty sentences of a tokenized article, one per line.

    ``src_sentences`` is the article as a list of sentences, each a list of tokens (possibly ending
    in ``</s>``, which is removed).
    """
    if k < 1:
        raise InputError(f"k: expected at least 1 sentence, got {k}")
    texts = [t for t in map(_sentence_text, src_sentences) if t]
    return "\n".join(texts[:k])


def first_sentence_baseline(src_sentences: Sequence[Sequence[str]]) -> str:
    """FIRST (Ling & Rush 2017, Table 2): the article's first sentence, ``</s>`` removed.

    The first sentence that is non-empty once the marks are removed; ``""`` for an empty article.
    """
    return lead_k(src_sentences, 1)
