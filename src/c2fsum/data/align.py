"""Aligning a summary's sentences to the document's: the labels of sentence-level coarse-to-fine.

Each summary (abstract) sentence is matched with the document sentence of highest ROUGE-L
recall: the length of their longest common subsequence over the summary sentence's length,
as in Chen & Bansal (2018), *Fast Abstractive Summarization with Reinforce-Selected Sentence
Rewriting*. The matched document sentences, in the summary's order, are what a selector learns
to pick; the (document sentence, summary sentence) pairs are what a rewriter learns to rewrite.

Tokens are compared as given (the prepared data is lowercase already); punctuation tokens and
sentence marks are left out of both sides, so a comma never makes a match. With
``distinct=True`` (the default, as Chen & Bansal) a document sentence is matched at most once:
later summary sentences take the best sentence not yet taken.

The longest common subsequence is computed bit-parallel (Hyyrö 2004): the summary sentence's
positions of each word as bits of a Python integer, one addition and three bit operations per
word of the document sentence. Document sentences are scored in the order of an upper bound on
their LCS (the summary sentence's words found in them, counted with multiplicity: a common
subsequence uses each occurrence once) and the search stops when the bound falls below the best
LCS found, so the answer is exact and most sentences are never scored.
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

PUNCTUATION = frozenset(string.punctuation) | {"</s>", "<s>", "``", "''", "--", "-lrb-", "-rrb-", "..."}
"""Tokens that never count towards a match: punctuation, sentence marks, PTB brackets."""


def content(tokens: Sequence[str]) -> list[str]:
    """``tokens`` without punctuation and sentence marks (:data:`PUNCTUATION`)."""
    return [t for t in tokens if t not in PUNCTUATION and not all(c in string.punctuation for c in t)]


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of ``a`` and ``b`` (bit-parallel, Hyyrö 2004).

    Bit ``i`` of ``masks[w]`` is set where ``a[i] == w``; ``v`` holds a 0 bit for every row of the
    dynamic-programming table where the LCS grew, so the answer is the number of 0 bits among the
    low ``len(a)`` bits of ``v`` after all of ``b``.
    """
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for i, w in enumerate(a):
        masks[w] = masks.get(w, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for w in b:
        u = v & masks.get(w, 0)
        v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


def rouge_l_recall(reference: Sequence[str], candidate: Sequence[str]) -> float:
    """LCS(reference, candidate) / len(reference), 0 for an empty reference."""
    return lcs_length(reference, candidate) / len(reference) if reference else 0.0


@dataclass(frozen=True)
class Alignment:
    """One summary sentence's match: ``source`` is the document sentence's index (``-1``: none
    shares a word with it), ``recall`` its ROUGE-L recall of the summary sentence."""

    target: int
    source: int
    recall: float


def align(
    document: Sequence[Sequence[str]],
    summary: Sequence[Sequence[str]],
    *,
    distinct: bool = True,
) -> list[Alignment]:
    """Match every sentence of ``summary`` with the sentence of ``document`` of highest ROUGE-L recall.

    Args:
        document: the document's sentences, each a list of tokens.
        summary: the summary's sentences, each a list of tokens.
        distinct: a document sentence is matched at most once (summary order decides).

    Returns:
        One :class:`Alignment` per summary sentence, in order; ``source`` is ``-1`` when no
        document sentence (not yet taken) shares a word with it. Ties go to the earlier document
        sentence.
    """
    docs = [content(s) for s in document]
    doc_counts = [Counter(s) for s in docs]
    taken: set[int] = set()
    out: list[Alignment] = []
    for t, sentence in enumerate(summary):
        ref = content(sentence)
        ref_counts = Counter(ref)
        bounds = []
        for i, counts in enumerate(doc_counts):
            if distinct and i in taken:
                continue
            bound = sum(min(n, counts[w]) for w, n in ref_counts.items() if w in counts)
            if bound:
                bounds.append((-bound, i))
        bounds.sort()
        best, best_lcs = -1, 0
        for neg_bound, i in bounds:
            if -neg_bound < best_lcs:
                break  # no sentence from here on can reach the best (ties: earlier index first)
            lcs = lcs_length(ref, docs[i])
            if lcs > best_lcs or (lcs == best_lcs and lcs > 0 and i < best):
                best, best_lcs = i, lcs
        if best >= 0 and distinct:
            taken.add(best)
        out.append(Alignment(t, best, best_lcs / len(ref) if ref else 0.0))
    return out


@dataclass(frozen=True)
class Episode:
    """One extractive summary a selector can learn to pick: document sentence indices in pick order
    and its ROUGE-1 + ROUGE-2 recall of the summary (0-2)."""

    picks: tuple[int, ...]
    score: float


def _gram_counts(words: Sequence[str]) -> Counter:
    """Unigrams (as 1-tuples) and bigrams of ``words``."""
    return Counter([(w,) for w in words] + list(zip(words, words[1:], strict=False)))


def oracle_episodes(
    document: Sequence[Sequence[str]],
    summary: Sequence[Sequence[str]],
    *,
    budget: int,
    beam: int = 4,
    lengths: Sequence[int] | None = None,
) -> list[Episode]:
    """The ``beam`` highest-ROUGE selections of ``document`` sentences within ``budget`` words, by
    beam search (MemSum's high-ROUGE episodes, Gu et al. 2022): the score of a selection is its
    clipped unigram recall plus its clipped bigram recall of the summary (punctuation left out,
    bigrams within a sentence); each step extends every kept selection by each sentence that fits
    and raises its score, and a selection that nothing raises is finished. Selections holding the
    same sentences are one episode (the first order found). Best first; ``[]`` when no sentence
    shares a word with the summary.

    ``lengths``: each sentence's words as the budget counts them (default: its tokens).

    By hand, summary "a b c d" (4 unigrams, 3 bigrams), budget 6: sentence 2 (4 tokens) scores
    3/4 + 2/3 and nothing else fits beside it; sentences 0 and 1 (3 tokens each) score 2/4 + 1/3
    each, 5/3 together (the order 1, 0 is the same episode):

    >>> doc = [["a", "b", "."], ["c", "d", "."], ["a", "b", "c", "."]]
    >>> [(e.picks, round(e.score, 3)) for e in oracle_episodes(doc, [["a", "b", "c", "d"]], budget=6)]
    [((0, 1), 1.667), ((2,), 1.417)]
    """
    ref = _gram_counts(content([t for s in summary for t in s]))
    n1 = sum(n for g, n in ref.items() if len(g) == 1)
    n2 = sum(n for g, n in ref.items() if len(g) == 2)
    if not n1:
        return []
    weight = {1: 1.0 / n1, 2: 1.0 / n2 if n2 else 0.0}
    hits = []  # per sentence: its grams found in the summary, with counts
    for s in document:
        c = _gram_counts(content(s))
        hits.append({g: n for g, n in c.items() if g in ref})
    size = list(lengths) if lengths is not None else [len(s) for s in document]

    def gain(have: Counter, j: int) -> float:
        return sum(weight[len(g)] * (min(ref[g], have[g] + n) - min(ref[g], have[g])) for g, n in hits[j].items())

    live: list[tuple[float, tuple[int, ...], Counter, int]] = [(0.0, (), Counter(), 0)]
    done: dict[frozenset, Episode] = {}
    while live:
        grown: list[tuple[float, tuple[int, ...], Counter, int]] = []
        for score, picks, have, used in live:
            extended = False
            for j, h in enumerate(hits):
                if not h or j in picks or used + size[j] > budget:
                    continue
                g = gain(have, j)
                if g > 1e-12:
                    grown.append((score + g, (*picks, j), have, used + size[j]))
                    extended = True
            if not extended and picks:
                done.setdefault(frozenset(picks), Episode(picks, score))
        grown.sort(key=lambda x: -x[0])
        live, seen = [], set()
        for score, picks, have, used in grown:
            key = frozenset(picks)
            if key in seen:
                continue
            seen.add(key)
            new = have.copy()
            new.update(hits[picks[-1]])
            live.append((score, picks, new, used))
            if len(live) == beam:
                break
    return sorted(done.values(), key=lambda e: -e.score)[:beam]
