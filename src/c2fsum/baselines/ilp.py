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
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from c2fsum.errors import InputError
from c2fsum.metrics.output_stats import SENTENCE_MARKS, STOPWORDS

__all__ = ["IlpProblem", "build_problem", "ilp_summary", "objective", "solve"]

TIE_BREAK = 1e-3
"""``eps``: below any concept weight (>= 1), so it only ever decides between equal coverage."""


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
        occurs: ``(K, J)`` bool, concept ``i`` occurs in sentence ``j``.
        budget: the length budget L in words.
        concepts: the K bigrams, in the order of ``weights``.
    """

    lengths: np.ndarray
    weights: np.ndarray
    occurs: np.ndarray
    budget: int
    concepts: list[tuple[str, str]]


def build_problem(sentences: Sequence[Sequence[str]], budget: int, *, min_count: int = 2) -> IlpProblem:
    """Concepts and weights of a tokenized article (see the module docstring)."""
    if budget < 1:
        raise InputError(f"budget: expected at least 1 word, got {budget}")
    per_sent = [sentence_concepts(s) for s in sentences]
    counts = Counter(c for cs in per_sent for c in cs)
    if not any(n >= min_count for n in counts.values()):
        min_count = 1
    concepts = sorted(c for c, n in counts.items() if n >= min_count)
    index = {c: i for i, c in enumerate(concepts)}
    occurs = np.zeros((len(concepts), len(sentences)), dtype=bool)
    for j, cs in enumerate(per_sent):
        for c in cs:
            if c in index:
                occurs[index[c], j] = True
    lengths = np.array([sum(1 for t in s if t not in SENTENCE_MARKS) for s in sentences], dtype=np.int64)
    weights = np.array([counts[c] for c in concepts], dtype=np.float64)
    return IlpProblem(lengths=lengths, weights=weights, occurs=occurs, budget=int(budget), concepts=concepts)


def objective(problem: IlpProblem, selected: Sequence[int]) -> float:
    """The ILP's objective for a set of sentence indices (concepts covered by them count once)."""
    sel = sorted(set(selected))
    J = len(problem.lengths)
    covered = problem.occurs[:, sel].any(axis=1) if sel else np.zeros(len(problem.weights), dtype=bool)
    return float(problem.weights[covered].sum()) - TIE_BREAK * sum((j + 1) / max(J, 1) for j in sel)


def solve(problem: IlpProblem) -> list[int]:
    """The optimal sentence indices (ascending) under the budget, by HiGHS (``scipy.optimize.milp``)."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix, vstack

    K, J = problem.occurs.shape
    if J == 0:
        return []
    fits = problem.lengths <= problem.budget
    if not fits.any():
        return []
    # variables: [c_1 .. c_K, s_1 .. s_J]; milp minimizes, so the objective is negated
    cost = np.concatenate([-problem.weights, TIE_BREAK * np.arange(1, J + 1) / J])
    rows = [coo_matrix(np.concatenate([np.zeros(K), problem.lengths]).reshape(1, -1))]
    lo, hi = [-np.inf], [float(problem.budget)]
    ki, kj = np.nonzero(problem.occurs)  # s_j - c_i <= 0 per occurrence
    if len(ki):
        n = len(ki)
        r = np.concatenate([np.arange(n), np.arange(n)])
        c = np.concatenate([K + kj, ki])
        v = np.concatenate([np.ones(n), -np.ones(n)])
        rows.append(coo_matrix((v, (r, c)), shape=(n, K + J)))
        lo += [-np.inf] * n
        hi += [0.0] * n
    if K:  # sum_{j in occ(i)} s_j - c_i >= 0
        cover = np.hstack([-np.eye(K), problem.occurs.astype(np.float64)])
        rows.append(coo_matrix(cover))
        lo += [0.0] * K
        hi += [np.inf] * K
    A = vstack(rows).tocsr()
    upper = np.concatenate([np.ones(K), fits.astype(np.float64)])
    res = milp(
        cost,
        constraints=LinearConstraint(A, np.array(lo), np.array(hi)),
        integrality=np.ones(K + J),
        bounds=Bounds(np.zeros(K + J), upper),
    )
    if res.x is None:
        raise RuntimeError(f"ILP solver failed: {res.message}")
    return [j for j in range(J) if res.x[K + j] > 0.5]


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
