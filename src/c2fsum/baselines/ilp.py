"""ILP extractive summarizer: concept (bigram) coverage under a length budget.

In the manner of Gillick & Favre (2009), "A Scalable Global Model for Summarization", as the
stand-in for the thesis's BERKELEY baseline (Durrett et al. 2016, itself an ILP over sentences
and concepts). For one article with sentences ``j`` of ``l_j`` words and concepts ``i`` (bigrams)
of weight ``w_i``::

    maximize    sum_i w_i c_i  -  eps * sum_j ((j + 1) / J) s_j
    subject to  sum_j l_j s_j <= L                       (length budget in words)
                s_j <= c_i          for each concept i occurring in sentence j
                sum_{j in occ(i)} s_j >= c_i   for each concept i
                c_i, s_j in {0, 1}

A concept is a bigram of lowercased tokens inside one sentence, not made only of stopwords and
containing no punctuation; its weight is its count in the article. Concepts seen once are dropped
when some concept is seen twice or more (``min_count``). The tiny ``eps`` term breaks ties
towards earlier sentences and away from sentences that add nothing, so the solution is unique.
The solver is HiGHS through ``scipy.optimize.milp``.

**Candidates** (:func:`candidates`). The solver chooses among some of the sentences only, so that
a 100,000-word text (4,000 sentences) costs about what a paper does. Three kinds of sentence are
left out because no optimum can hold them (exact):

* a sentence longer than the budget (it does not fit);
* a sentence covering no concept: taking it out of a solution keeps it feasible, covers the same
  concepts and lowers the tie-break cost, so a solution holding it is never the optimum;
* a sentence whose concepts are exactly those of an earlier sentence no longer than it: swapping
  it for that one (or dropping it, when both are in) keeps the length within the budget, covers
  the same concepts and lowers the tie-break cost.

Of the rest, the solver sees the sentences of the highest gain per word (the summed weight of a
sentence's concepts over its length: what it adds to an empty summary, per word of budget) until
they hold ``PRUNE_WORDS`` times the budget in words. This step is a heuristic, measured on
validation papers (``bench/ilp_pruning.py``; docs/results.md, "Extraction at any length"). It
keeps the answer whenever the optimum's sentences are among the candidates, because the restricted
problem is the full one with the other sentences fixed at 0, tie-break included (positions ``j``
and ``J`` stay the article's). HiGHS stops within its default relative gap (1e-4): that decides
the covered weight exactly (weights are whole numbers, objectives below 10,000), but between two
choices of equal coverage it may return either, pruned or not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from c2fsum.errors import InputError
from c2fsum.metrics.output_stats import SENTENCE_MARKS, STOPWORDS

__all__ = ["IlpProblem", "build_problem", "candidates", "ilp_summary", "objective", "solve", "words_in"]

TIE_BREAK = 1e-3
"""``eps``: below any concept weight (>= 1), so it only ever decides between equal coverage."""
PRUNE_WORDS = 12
"""The candidates the solver sees hold this many times the budget in words (:func:`candidates`).
On 60 SumPubMed validation papers at 250 words (173 candidates each unpruned): 108 candidates,
the same choice for 56 papers, 0.9994 of the exact objective on average (0.968 at worst), concat
ROUGE-1/2/L 49.31 / 17.76 / 45.47 against 49.34 / 17.80 / 45.51 exact; 8 x the budget: 37 the
same, 0.994 (``bench/ilp_pruning.py``)."""


@lru_cache(maxsize=1 << 16)
def _is_word(tok: str) -> bool:
    return any(ch.isalnum() for ch in tok)


def sentence_concepts(tokens: Sequence[str]) -> list[tuple[str, str]]:
    """The bigram concepts of one tokenized sentence (in order, with repeats)."""
    toks = [t.lower() for t in tokens if t not in SENTENCE_MARKS]
    out = []
    for a, b in zip(toks, toks[1:], strict=False):
        if _is_word(a) and _is_word(b) and not (a in STOPWORDS and b in STOPWORDS):
            out.append((a, b))
    return out


@dataclass
class IlpProblem:
    """One article as an ILP: J sentences, K concepts.

    Attributes:
        lengths: ``(J,)`` words per sentence (sentence marks excluded).
        weights: ``(K,)`` concept weights.
        occurs: ``(K, J)`` sparse bool (``scipy.sparse.csc_matrix``), concept ``i`` occurs in
            sentence ``j``.
        budget: the length budget L in words.
        concepts: the K bigrams, in the order of ``weights``.
    """

    lengths: np.ndarray
    weights: np.ndarray
    occurs: Any
    budget: int
    concepts: list[tuple[str, str]]


NOT_WORDS = frozenset({"-lrb-", "-rrb-", "-lsb-", "-rsb-", "-lcb-", "-rcb-", "cit"})
"""Tokens with letters that a reader does not see as words: PTB brackets and the ``<cit>`` marker."""


MIN_SENTENCE_WORDS = 4
"""The fewest words (:func:`words_in`) of a sentence a summary may hold: what is left of a fragment
after splitting (``I) lignin content.``, ``Were.``) is not a sentence a reader can use (issue 36).
``extract``'s ILP never picks one, and the select-rewrite summaries leave one out."""


def words_in(sentence: Sequence[str]) -> int:
    """The words of a tokenized sentence: tokens holding a letter or a digit, without sentence marks,
    brackets and citation markers (:data:`NOT_WORDS`)."""
    return sum(map(_counts_as_word, sentence))


@lru_cache(maxsize=1 << 16)
def _counts_as_word(tok: str) -> bool:
    """:func:`words_in`'s test of one token (cached: a 100,000-word text has about 10,000 kinds)."""
    return tok not in SENTENCE_MARKS and tok not in NOT_WORDS and _is_word(tok)


def build_problem(
    sentences: Sequence[Sequence[str]], budget: int, *, min_count: int = 2, min_words: int = 0
) -> IlpProblem:
    """Concepts and weights of a tokenized article (see the module docstring).

    ``min_words``: a sentence of fewer words (:func:`words_in`) covers no concept, so the ILP never
    picks it (a fragment such as ``D) and.``); its pairs still count towards the weights.
    """
    from scipy.sparse import csc_matrix

    if budget < 1:
        raise InputError(f"budget: expected at least 1 word, got {budget}")
    per_sent = [sentence_concepts(s) for s in sentences]
    counts = Counter(c for cs in per_sent for c in cs)
    if not any(n >= min_count for n in counts.values()):
        min_count = 1
    concepts = sorted(c for c, n in counts.items() if n >= min_count)
    index = {c: i for i, c in enumerate(concepts)}
    rows: list[int] = []
    cols: list[int] = []
    for j, cs in enumerate(per_sent):
        if min_words and words_in(sentences[j]) < min_words:
            continue
        ids = {index[c] for c in cs if c in index}
        rows.extend(ids)
        cols.extend([j] * len(ids))
    occurs = csc_matrix(
        (np.ones(len(rows), dtype=np.bool_), (np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64))),
        shape=(len(concepts), len(sentences)),
    )
    occurs.sort_indices()
    marks = SENTENCE_MARKS.__contains__
    lengths = np.array([len(s) - sum(map(marks, s)) for s in sentences], dtype=np.int64)
    weights = np.array([counts[c] for c in concepts], dtype=np.float64)
    return IlpProblem(lengths=lengths, weights=weights, occurs=occurs, budget=int(budget), concepts=concepts)


def _covered(problem: IlpProblem, selected: Sequence[int]) -> np.ndarray:
    """``(K,)`` bool: the concepts that occur in one of the ``selected`` sentences."""
    if not len(selected):
        return np.zeros(len(problem.weights), dtype=bool)
    return np.asarray(problem.occurs[:, list(selected)].sum(axis=1)).ravel() > 0


def objective(problem: IlpProblem, selected: Sequence[int]) -> float:
    """The ILP's objective for a set of sentence indices (concepts covered by them count once)."""
    sel = sorted(set(selected))
    J = len(problem.lengths)
    return float(problem.weights[_covered(problem, sel)].sum()) - TIE_BREAK * sum((j + 1) / max(J, 1) for j in sel)


def gains(problem: IlpProblem) -> np.ndarray:
    """``(J,)``: each sentence's summed concept weight, what it adds to an empty summary."""
    if not len(problem.weights):
        return np.zeros(len(problem.lengths))
    return np.asarray(problem.occurs.T @ problem.weights).ravel()


def candidates(problem: IlpProblem, *, prune_words: float | None = PRUNE_WORDS) -> np.ndarray:
    """The sentences (ascending indices) the solver chooses among (see the module docstring):
    those that fit, cover a concept and repeat no earlier sentence's concepts; of them, when
    ``prune_words`` is given, the highest gain per word up to ``prune_words`` times the budget
    in words (None: all of them, the exact problem)."""
    gain = gains(problem)
    ok = (problem.lengths <= problem.budget) & (gain > 0)
    occ, seen = problem.occurs, dict[bytes, int]()
    for j in np.flatnonzero(ok).tolist():  # the same concepts as an earlier sentence no longer than it
        key = occ.indices[occ.indptr[j] : occ.indptr[j + 1]].tobytes()
        k = seen.get(key)
        if k is not None and problem.lengths[k] <= problem.lengths[j]:
            ok[j] = False
        elif k is None or problem.lengths[j] < problem.lengths[k]:
            seen[key] = j
    keep = np.flatnonzero(ok)
    if prune_words is None or problem.lengths[keep].sum() <= prune_words * problem.budget:
        return keep
    density = gain[keep] / np.maximum(problem.lengths[keep], 1)
    order = keep[np.lexsort((keep, -density))]  # best first, earlier first among equals
    total = np.cumsum(problem.lengths[order])
    n = int(np.searchsorted(total, prune_words * problem.budget, side="left")) + 1
    return np.sort(order[:n])


def solve(problem: IlpProblem, *, prune_words: float | None = PRUNE_WORDS) -> list[int]:
    """The optimal sentence indices (ascending) under the budget among the :func:`candidates`,
    by HiGHS (``scipy.optimize.milp``); ``prune_words=None``: among all sentences (exact)."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix, hstack, identity, vstack

    J = len(problem.lengths)
    keep = candidates(problem, prune_words=prune_words)
    if not len(keep):
        return []
    occ = problem.occurs[:, keep].tocsr()  # (K, C)
    used = np.flatnonzero(np.diff(occ.indptr) > 0)  # concepts no candidate holds stay 0: left out
    occ = occ[used].astype(np.float64)  # (K', C)
    K, C = occ.shape
    # variables: [c_1 .. c_K', s_1 .. s_C]; milp minimizes, so the objective is negated; the
    # tie-break keeps the article's positions, so the restricted problem is the full one's
    cost = np.concatenate([-problem.weights[used], TIE_BREAK * (keep + 1) / J])
    length = coo_matrix(np.concatenate([np.zeros(K), problem.lengths[keep]]).reshape(1, -1))
    ki, kj = occ.nonzero()  # s_j - c_i <= 0 per occurrence
    n = len(ki)
    each = coo_matrix(
        (
            np.concatenate([np.ones(n), -np.ones(n)]),
            (np.concatenate([np.arange(n), np.arange(n)]), np.concatenate([K + kj, ki])),
        ),
        shape=(n, K + C),
    )
    cover = hstack([-identity(K), occ])  # sum_{j in occ(i)} s_j - c_i >= 0
    A = vstack([length, each, cover]).tocsr()
    lo = np.concatenate([[-np.inf], np.full(n, -np.inf), np.zeros(K)])
    hi = np.concatenate([[float(problem.budget)], np.zeros(n), np.full(K, np.inf)])
    res = milp(
        cost,
        constraints=LinearConstraint(A, lo, hi),
        integrality=np.ones(K + C),
        bounds=Bounds(np.zeros(K + C), np.ones(K + C)),
    )
    if res.x is None:
        raise RuntimeError(f"ILP solver failed: {res.message}")
    return [int(keep[c]) for c in range(C) if res.x[K + c] > 0.5]


def ilp_summary(sentences: Sequence[Sequence[str]], budget: int = 25, *, min_count: int = 2) -> str:
    """The ILP summary of a tokenized article, chosen sentences in article order, one per line.

    When no sentence fits the budget, the first sentence cut to ``budget`` words.
    """
    problem = build_problem(sentences, budget, min_count=min_count)
    chosen = solve(problem)
    texts = [[t for t in s if t not in SENTENCE_MARKS] for s in sentences]
    if not chosen:
        first = next((t for t in texts if t), [])
        return " ".join(first[:budget])
    return "\n".join(" ".join(texts[j]) for j in chosen)
