"""Sentence alignment by ROUGE-L recall: hand-worked pairs, and the bit-parallel LCS against the table."""

import random

from c2fsum.data.align import align, content, lcs_length, rouge_l_recall


def lcs_table(a, b):
    """The textbook dynamic-programming LCS, the reference for the bit-parallel one."""
    row = [0] * (len(b) + 1)
    for x in a:
        prev_diag, row[0] = 0, 0
        for j, y in enumerate(b, 1):
            keep = row[j]
            row[j] = prev_diag + 1 if x == y else max(row[j], row[j - 1])
            prev_diag = keep
    return row[-1]


def test_lcs_hand_worked():
    # "a b c d" vs "a c b d": the LCS is "a b d" or "a c d", length 3
    assert lcs_length("a b c d".split(), "a c b d".split()) == 3
    assert lcs_length([], ["a"]) == 0
    assert lcs_length(["a", "a"], ["a"]) == 1
    assert lcs_length("x y z".split(), "p q".split()) == 0


def test_lcs_agrees_with_the_table_on_random_strings():
    rng = random.Random(0)
    for _ in range(500):
        a = [rng.choice("abcde") for _ in range(rng.randint(0, 70))]
        b = [rng.choice("abcde") for _ in range(rng.randint(0, 70))]
        assert lcs_length(a, b) == lcs_table(a, b)


def test_punctuation_never_matches():
    assert content("the cells , grew . </s>".split()) == ["the", "cells", "grew"]
    # only "the" and "grew" are shared in order: 2 of the reference's 3 content words
    assert rouge_l_recall(content("the cells grew .".split()), content("the mice grew , .".split())) == 2 / 3


def test_each_summary_sentence_gets_its_best_source():
    doc = [
        "background : the gene is expressed in the liver .".split(),
        "we knocked out the gene in mice .".split(),
        "knockout mice lived longer than controls .".split(),
        "the funding came from a grant .".split(),
    ]
    summary = [
        "knockout mice lived longer .".split(),  # sentence 2: 4 of 4 words in order
        "we knocked the gene out .".split(),  # sentence 1: "we knocked the gene" 4 of 5
    ]
    got = align(doc, summary)
    assert [(a.target, a.source) for a in got] == [(0, 2), (1, 1)]
    assert got[0].recall == 1.0
    assert got[1].recall == 4 / 5


def test_distinct_moves_a_second_match_to_the_next_best():
    doc = ["the mice lived longer .".split(), "mice lived .".split()]
    summary = ["the mice lived longer .".split(), "the mice lived longer .".split()]
    assert [a.source for a in align(doc, summary)] == [0, 1]
    assert [a.source for a in align(doc, summary, distinct=False)] == [0, 0]


def test_no_shared_word_is_no_match_and_ties_go_first():
    doc = ["alpha beta .".split(), "alpha beta .".split()]
    got = align(doc, ["gamma .".split(), "alpha beta .".split()])
    assert (got[0].source, got[0].recall) == (-1, 0.0)
    assert got[1].source == 0


def test_bounded_search_is_the_exhaustive_argmax():
    rng = random.Random(1)
    words = [f"w{i}" for i in range(30)]
    for _ in range(50):
        doc = [[rng.choice(words) for _ in range(rng.randint(3, 25))] for _ in range(40)]
        summary = [[rng.choice(words) for _ in range(rng.randint(3, 15))] for _ in range(5)]
        taken: set[int] = set()
        for a, ref in zip(align(doc, summary), summary, strict=True):
            scores = [(-1.0 if i in taken else rouge_l_recall(ref, s), -i) for i, s in enumerate(doc)]
            best_score, neg_i = max(scores)
            assert (a.source, a.recall) == (-neg_i, best_score)
            taken.add(a.source)


def _recall_score(doc, summary, picks):
    """Clipped unigram + bigram recall of the summary by the picked sentences, from scratch."""
    from collections import Counter

    def grams(words):
        return Counter([(w,) for w in words] + list(zip(words, words[1:], strict=False)))

    ref = grams(content([t for s in summary for t in s]))
    have: Counter = Counter()
    for j in picks:
        have.update(grams(content(doc[j])))
    n1 = sum(n for g, n in ref.items() if len(g) == 1)
    n2 = sum(n for g, n in ref.items() if len(g) == 2)
    m1 = sum(min(n, have[g]) for g, n in ref.items() if len(g) == 1)
    m2 = sum(min(n, have[g]) for g, n in ref.items() if len(g) == 2)
    return m1 / n1 + (m2 / n2 if n2 else 0.0)


def test_episodes_score_what_they_hold_fit_the_budget_and_a_wide_beam_finds_the_best_set():
    """On random documents of 8 sentences: each episode's score is its selection's recall computed
    from scratch, its words fit, the sets are distinct and best first; with a beam as wide as all
    subsets the first episode is the exhaustive best selection that fits (gains are all positive
    along the search, so the best set is reached through sets each raising the score)."""
    from itertools import combinations

    from c2fsum.data.align import oracle_episodes

    rng = random.Random(2)
    words = [f"w{i}" for i in range(12)]
    for _ in range(30):
        doc = [[rng.choice(words) for _ in range(rng.randint(2, 7))] for _ in range(8)]
        summary = [[rng.choice(words) for _ in range(rng.randint(3, 8))] for _ in range(2)]
        budget = rng.randint(6, 16)
        eps = oracle_episodes(doc, summary, budget=budget, beam=4)
        assert [e.score for e in eps] == sorted((e.score for e in eps), reverse=True)
        assert len({frozenset(e.picks) for e in eps}) == len(eps) <= 4
        for e in eps:
            assert sum(len(doc[j]) for j in e.picks) <= budget
            assert abs(e.score - _recall_score(doc, summary, e.picks)) < 1e-9
        wide = oracle_episodes(doc, summary, budget=budget, beam=300)
        fits = [c for k in range(1, 9) for c in combinations(range(8), k) if sum(len(doc[j]) for j in c) <= budget]
        best = max(_recall_score(doc, summary, c) for c in fits)
        assert abs(wide[0].score - best) < 1e-9


def test_no_shared_word_is_no_episode():
    from c2fsum.data.align import oracle_episodes

    assert oracle_episodes([["a", "b"]], [["c", "d"]], budget=10) == []
    assert oracle_episodes([["a", "b", "c"]], [["a"]], budget=2) == []  # the one sharing sentence does not fit
