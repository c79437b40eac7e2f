"""ILP baseline: optimal (checked by brute force), within its budget, evaluated like every system; LEAD-3."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from c2fsum.baselines.ilp import (
    TIE_BREAK,
    build_problem,
    candidates,
    ilp_summary,
    objective,
    sentence_concepts,
    solve,
    words_in,
)
from c2fsum.cli.main import main
from c2fsum.data.prepare import read_prepared
from c2fsum.evaluation.baselines import run_baseline


def toks(text: str) -> list[str]:
    return text.split() + ["</s>"]


def brute_force(problem) -> tuple[float, list[int]]:
    """The best objective over every subset of sentences within the budget."""
    J = len(problem.lengths)
    best, best_sel = objective(problem, []), []
    for r in range(1, J + 1):
        for sel in itertools.combinations(range(J), r):
            if problem.lengths[list(sel)].sum() <= problem.budget:
                v = objective(problem, sel)
                if v > best + 1e-12:
                    best, best_sel = v, list(sel)
    return best, best_sel


ARTICLE = [
    toks("the red car hit the blue truck ."),  # red car, blue truck (+ car hit, hit the...)
    toks("police said the red car was stolen ."),
    toks("the blue truck driver was unhurt ."),
    toks("a red car and a blue truck collided near the bridge on monday ."),
    toks("weather was fine ."),
]


def test_concepts_are_content_bigrams():
    assert sentence_concepts(toks("the red car , of the city")) == [("the", "red"), ("red", "car"), ("the", "city")]


def test_hand_worked_case():
    # concepts seen at least twice: (the, red) x2, (red, car) x3, (the, blue) x2, (blue, truck) x3
    p = build_problem(ARTICLE, budget=8)
    assert dict(zip(p.concepts, p.weights.tolist(), strict=True)) == {
        ("blue", "truck"): 3,
        ("red", "car"): 3,
        ("the", "blue"): 2,
        ("the", "red"): 2,
    }
    # with 8 words only sentence 0 (7 words) covers all four concepts: 3 + 3 + 2 + 2 = 10
    assert solve(p) == [0]
    assert objective(p, [0]) == pytest.approx(10.0 - 1e-3 * 1 / 5)  # eps * (j + 1) / J
    # 20 words: sentence 0 plus the cheapest sentence adding nothing is worse (tie-break), so still [0]
    assert solve(build_problem(ARTICLE, budget=20)) == [0]
    # 4 words: only "weather was fine ." fits and covers nothing -> nothing chosen; the summary falls
    # back to the first sentence cut to the budget
    assert solve(build_problem(ARTICLE, budget=4)) == []
    assert ilp_summary(ARTICLE, 4) == "the red car hit"


@pytest.mark.parametrize("budget", [5, 8, 12, 20, 30])
def test_optimal_by_brute_force_on_the_hand_case(budget):
    p = build_problem(ARTICLE, budget=budget)
    chosen = solve(p)
    best, _ = brute_force(p)
    assert p.lengths[chosen].sum() <= budget
    assert objective(p, chosen) == pytest.approx(best, abs=1e-9)


def test_optimal_by_brute_force_on_corpus_articles(prepared_small):
    docs = list(read_prepared(prepared_small / "test.jsonl"))[:4]
    for doc in docs:
        sents = doc["src"][:11]  # 2^11 subsets
        for budget in (15, 25, 40):
            p = build_problem(sents, budget=budget)
            chosen = solve(p)
            best, best_sel = brute_force(p)
            assert p.lengths[chosen].sum() <= budget
            assert objective(p, chosen) == pytest.approx(best, abs=1e-9), (doc["id"], budget, chosen, best_sel)
            assert chosen == best_sel  # ties broken the same way


def test_budget_respected_and_first_sentence_fallback(prepared_small):
    for doc in read_prepared(prepared_small / "test.jsonl"):
        for budget in (3, 10, 25):
            summary = ilp_summary(doc["src"], budget)
            assert 0 < len(summary.split()) <= budget, (doc["id"], budget, summary)
    # no sentence fits: the first sentence cut to the budget
    assert ilp_summary([toks("one two three four five"), toks("six seven eight nine ten")], 3) == "one two three"


def test_empty_concepts_and_bad_budget():
    p = build_problem([toks("the of ."), toks("a in .")], budget=10)
    assert p.weights.size == 0 and solve(p) == []  # nothing to cover: no sentence is worth it
    assert ilp_summary([toks("the of ."), toks("a in .")], 2) == "the of"
    assert np.array_equal(p.lengths, [3, 3])
    with pytest.raises(ValueError, match="budget: expected at least 1 word, got 0"):
        build_problem(ARTICLE, budget=0)


@pytest.mark.parametrize("name,label", [("ilp", "ILP"), ("lead3", "LEAD-3")])
def test_baseline_cli_writes_predictions_and_metrics(prepared_small, tmp_path, capsys, name, label):
    out = tmp_path / name
    assert (
        main(
            [
                "-q",
                "baseline",
                name,
                "--data",
                str(prepared_small),
                "--split",
                "test",
                "--out",
                str(out),
                "--budget",
                "20",
            ]
        )
        == 0
    )
    assert label in capsys.readouterr().out
    metrics = json.loads((out / "metrics.json").read_text())
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    docs = list(read_prepared(prepared_small / "test.jsonl"))
    assert metrics["model"] == label and metrics["n_docs"] == len(rows) == len(docs) == 10
    assert 0 < metrics["rouge1"] < 100
    for row, doc in zip(rows, docs, strict=True):
        if name == "ilp":
            assert len(row["candidate"].split()) <= 20
        else:
            expected = [" ".join(t for t in s if t != "</s>") for s in doc["src"][:3]]
            assert row["candidate"].split("\n") == expected


def test_ilp_scores_like_any_system(prepared_small, tmp_path):
    a = run_baseline("ilp", prepared_small, "test", tmp_path / "a", ilp_budget=25)
    b = run_baseline("ilp", prepared_small, "test", tmp_path / "b", ilp_budget=25)
    assert a == b and a["ilp_budget"] == 25
    assert (
        main(
            [
                "-q",
                "rouge",
                "--candidates",
                str(tmp_path / "a" / "predictions.jsonl"),
                "--references",
                str(tmp_path / "a" / "predictions.jsonl"),
            ]
        )
        == 0
    )


# --------------------------------------------------------------------------- candidates (pruning)


def test_sentences_no_optimum_holds_are_never_candidates():
    """Too long, covering no concept, or repeating the concepts of an earlier sentence no longer
    than it (module docstring): left out even with no pruning, and the answer is the brute force's."""
    article = [
        toks("the red car hit the blue truck ."),  # 0
        toks("weather was fine ."),  # 1: no concept
        toks("the red car hit the blue truck ."),  # 2: the same concepts as 0, as long
        toks("police said the red car was stolen ."),  # 3
        toks("the blue truck driver was unhurt and the red car driver was unhurt too , police said ."),  # 4: 18 words
        toks("a red car and a blue truck collided ."),  # 5
    ]
    p = build_problem(article, budget=16)
    assert candidates(p, prune_words=None).tolist() == [0, 3, 5]
    best, best_sel = brute_force(p)
    assert solve(p, prune_words=None) == solve(p) == best_sel
    assert objective(p, best_sel) == pytest.approx(best)


def test_a_duplicate_shorter_than_the_earlier_sentence_stays():
    """The swap argument needs the earlier sentence to be no longer: a later, shorter sentence
    with the same concepts may be the only one that fits, so it stays a candidate."""
    article = [toks("the red car hit the blue truck at noon ."), toks("red car hit the blue truck"), toks("red car")]
    p = build_problem(article, budget=6)
    assert 1 in candidates(p, prune_words=None).tolist()
    assert solve(p) == brute_force(p)[1] == [1]


def _filler(k: int) -> list[str]:
    return toks(f"note{k} about{k} , , , .")  # one concept in 6 words


def test_pruning_keeps_the_answer_when_the_optimum_is_among_the_densest():
    """A long article: three dense sentences (gain 12 in 6 words, repeated at the end) and 200
    sentences of one concept each (gain 2 in 6 words, each said twice). The optimum is the three
    dense sentences (coverage 24; two of them and a filler: 22), the densest of all, so pruning
    to 2 x the budget keeps them and the answer."""
    dense = [
        toks("gene alpha binds protein beta ."),
        toks("protein beta activates kinase gamma ."),
        toks("kinase gamma phosphorylates gene alpha ."),
    ]
    article = [*dense, *[_filler(k % 100) for k in range(200)], *dense]
    p = build_problem(article, budget=20)
    kept = candidates(p, prune_words=2)
    assert len(kept) < 10 and {0, 1, 2} <= set(kept.tolist())
    assert solve(p, prune_words=2) == solve(p, prune_words=None) == [0, 1, 2]


@pytest.mark.parametrize("seed", range(30))
def test_the_restricted_problem_is_the_full_one_when_it_holds_the_optimum(seed):
    """Random articles over a small vocabulary: whenever the exact optimum is among the pruned
    candidates, the pruned answer covers the same concept weight (positions and J stay the
    article's; HiGHS's default relative gap, 1e-4, decides coverage exactly, not always the
    tie-break between equal coverages); it is never better than the exact one, always within
    the budget."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(12)]
    article = [toks(" ".join(rng.choice(vocab, size=rng.integers(2, 7)))) for _ in range(10)]
    p = build_problem(article, budget=int(rng.integers(6, 16)))
    exact = solve(p, prune_words=None)
    assert objective(p, exact) == pytest.approx(brute_force(p)[0], abs=TIE_BREAK)
    held = 0
    for prune in (0.5, 1, 1.5, 2, 10):
        kept, pruned = candidates(p, prune_words=prune).tolist(), solve(p, prune_words=prune)
        assert set(pruned) <= set(kept) and p.lengths[pruned].sum() <= p.budget
        assert objective(p, pruned) <= brute_force(p)[0] + 1e-9
        if set(exact) <= set(kept):
            held += 1
            assert objective(p, pruned) == pytest.approx(objective(p, exact), abs=TIE_BREAK), (prune, kept)
    assert held >= 1  # prune_words=10 keeps at least 60 words: the whole article (10 x at most 6)


def test_a_fragment_below_min_words_is_never_picked_but_its_pairs_still_weigh():
    article = [
        toks("red car ."),  # 2 words: the cheapest cover of (red, car)
        toks("the blue truck stopped ."),
        toks("a red car hit a blue truck ."),
        toks("the blue truck and the red car ."),
    ]
    # weights (seen twice or more, the fragment counted): (red, car) 3, (blue, truck) 3, (the, blue) 2
    free = build_problem(article, budget=8)
    assert solve(free) == [0, 1]  # 3 + 5 tokens cover all three: 8
    floor = build_problem(article, budget=8, min_words=4)
    assert floor.concepts == free.concepts and floor.weights.tolist() == free.weights.tolist()
    assert solve(floor) == [3]  # 8 tokens, all three again, without the fragment
    assert words_in(toks("i ) lignin content .")) == 3
    assert words_in(toks("-lrb- c -rrb- ##-hydroxycholesterol and < cit > .")) == 3  # what a reader sees
