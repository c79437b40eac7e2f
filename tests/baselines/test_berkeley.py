"""BERKELEY: deletable units stay grammatical, the pronoun rule, the ILP is exact, the CLI end to end."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from c2fsum.baselines.berkeley import analyze, load_weights, render, solve
from c2fsum.baselines.berkeley.coref import resolve
from c2fsum.baselines.berkeley.learn import fit_ridge, unit_targets
from c2fsum.baselines.berkeley.model import (
    FEATURES,
    Selection,
    dangling,
    feasible,
    objective,
    pronoun_units,
    summarize,
)
from c2fsum.baselines.berkeley.units import realize, sentence_units
from c2fsum.cli.main import main
from c2fsum.data.prepare import prepare, read_prepared
from shared_data import read_raw


def spans(text: str) -> list[tuple[str, str]]:
    u = sentence_units(text.split())
    return [(sp.kind, " ".join(u.tagged.words[sp.start : sp.end])) for sp in u.spans]


def drop(text: str, *kinds: str) -> str:
    """The sentence with every part of the given kinds deleted."""
    u = sentence_units(text.split())
    return " ".join(realize(u, [sp.kind not in kinds for sp in u.spans]))


# one hand-made sentence per deletion kind: (sentence, kind, the part, the sentence without it)
CASES = [
    (
        "the mayor said he would resign -lrb- effective immediately -rrb- .",
        "paren",
        "-lrb- effective immediately -rrb-",
        "the mayor said he would resign .",
    ),
    (
        "the team -- which had lost five games in a row -- finally won .",
        "paren",
        "-- which had lost five games in a row --",
        "the team finally won .",
    ),
    (
        "barack obama , the president of the united states , visited london .",
        "appos",
        "the president of the united states",
        "barack obama visited london .",
    ),
    (
        "police arrested john smith , a ##-year-old teacher .",
        "appos",
        "a ##-year-old teacher",
        "police arrested john smith .",
    ),
    (
        "the mayor , who was elected in the spring , said the plan would fail .",
        "relcl",
        "who was elected in the spring",
        "the mayor said the plan would fail .",
    ),
    (
        "however , the club said the player would stay .",
        "intro",
        "however",
        "the club said the player would stay .",
    ),
    (
        "in a statement released on its website , the club said the player would stay .",
        "intro",
        "in a statement released on its website",
        "the club said the player would stay .",
    ),
    (
        "she said , however , that the deal was off .",
        "adjunct",
        "however",
        "she said that the deal was off .",
    ),
    (
        "the company sold its stake to google , according to police .",
        "adjunct",
        "according to police",
        "the company sold its stake to google .",
    ),
    (
        "the bank said on tuesday that profits had fallen .",
        "time",
        "on tuesday",
        "the bank said that profits had fallen .",
    ),
    (
        "the minister resigned last week after the vote .",
        "time",
        "last week",
        "the minister resigned after the vote .",
    ),
]


@pytest.mark.parametrize("sentence,kind,part,without", CASES)
def test_each_deletion_kind_on_a_hand_made_sentence(sentence, kind, part, without):
    assert (kind, part) in spans(sentence)
    assert drop(sentence, kind) == without
    assert drop(sentence) == sentence  # nothing dropped: the sentence as it was


def test_what_is_not_deletable():
    # a list is not an appositive; a restrictive relative clause (no comma) is not deletable;
    # a temporal phrase that modifies a noun after it is not deletable
    assert spans("apples , oranges , and pears were sold at the market .") == []
    assert spans("crosby , stills & nash played on stage .") == []
    assert not [s for s in spans("the man who sold the car was arrested .") if s[0] == "relcl"]
    assert not [s for s in spans("he played in this year 's tournament .") if s[0] == "time"]
    # the head keeps at least 3 words: the appositive of a 4-word sentence stays
    assert spans("john , the mayor , resigned .") == []
    # lists of numbers, a modal "may", a range dash are none of the kinds
    assert spans("noise was added at # % , ## % , and ## % of the level .") == []
    assert spans("this may change the result .") == []
    assert spans("the enzyme was active between ph # - # in our assay .") == []
    assert not [s for s in spans("now go look in a mirror , and tell us what you see .") if s[0] == "intro"]
    assert not [s for s in spans("she met him in vegas three years ago .") if s[0] == "time"]
    assert not [s for s in spans("sahra left her home at ## years old .") if s[0] == "time"]
    assert spans("rabbis mendel epstein , ## ; jay goldstein , ## ; were found guilty .") == []
    # a date's comma is not a clause comma: the whole date goes as one part
    assert spans("on april ## , #### , the camp was liberated .") == [("intro", "on april ## , ####")]
    assert drop("the camp was liberated on april ## , #### .", "time") == "the camp was liberated ."


def test_comma_before_a_relative_clause_stays():
    s = "both starrs and tamplin , ## , who made £###,### from the con , admitted the fraud ."
    u = sentence_units(s.split())
    assert [(sp.kind, sp.start) for sp in u.spans] == [("appos", 5), ("relcl", 7)]
    assert " ".join(realize(u, [False, True])) == (
        "both starrs and tamplin , who made £###,### from the con , admitted the fraud ."
    )
    assert " ".join(realize(u, [False, False])) == "both starrs and tamplin admitted the fraud ."


def test_commas_around_neighbouring_parts():
    s = "on monday , after the match , the coach said the team had played well ."
    u = sentence_units(s.split())
    assert [sp.kind for sp in u.spans] == ["intro", "adjunct"]
    out = {keep: " ".join(realize(u, list(keep))) for keep in itertools.product([False, True], repeat=2)}
    assert out[(True, True)] == s
    assert out[(False, True)] == "after the match , the coach said the team had played well ."
    assert out[(True, False)] == "on monday , the coach said the team had played well ."
    assert out[(False, False)] == "the coach said the team had played well ."
    # a nested part goes with its parent; kept alone it keeps the parent's commas
    s = "the mayor , who was elected in #### , said the plan would fail ."
    u = sentence_units(s.split())
    assert [(sp.kind, sp.parent) for sp in u.spans] == [("relcl", -1), ("time", 0)]
    assert " ".join(realize(u, [True, False])) == "the mayor , who was elected , said the plan would fail ."
    assert " ".join(realize(u, [False, True])) == "the mayor said the plan would fail ."


OBAMA = [
    "mr obama visited london on friday .".split() + ["</s>"],
    "he said the trip was a success .".split() + ["</s>"],
    "the weather was fine .".split() + ["</s>"],
]


def test_pronoun_resolution_rules():
    doc = analyze(OBAMA)
    assert [(p.sent, p.word, p.replacement) for p in doc.pronouns] == [(1, "he", ["mr", "obama"])]
    # possessive: the mention and 's; inside its own sentence: no constraint; "it" skips people
    doc = analyze(["the company hired mr obama .".split(), "his salary was not disclosed , it said .".split()])
    assert [(p.word, p.replacement) for p in doc.pronouns] == [
        ("his", ["mr", "obama", "'s"]),
        ("it", ["the", "company"]),
    ]
    doc = analyze(["the man said he was tired .".split()])
    assert resolve(doc.sentences) == []
    doc = analyze(["the woman left .".split(), "he stayed at home .".split()])
    assert doc.pronouns == []  # "he" never takes "woman"
    # the first compatible mention of the nearest sentence holding one (its subject), not the
    # last; never a time word nor a dateline in brackets
    doc = analyze(
        [
            "-lrb- cnn -rrb- the mayor met mr smith on friday .".split(),
            "he said the talks went well .".split(),
        ]
    )
    assert [(p.word, p.replacement) for p in doc.pronouns] == [("he", ["the", "mayor"])]
    # a proper noun is a person only where the document says so (here an age): not "harvard";
    # no antecedent without such a mark; a pleonastic "it" is left alone
    doc = analyze(["harvard rejected smith , ## , in may .".split(), "he was upset .".split()])
    assert [(p.word, p.replacement) for p in doc.pronouns] == [("he", ["smith"])]
    assert analyze(["harvard rejected the plan .".split(), "he was upset .".split()]).pronouns == []
    assert analyze(["the report was published .".split(), "it emerged that sales fell .".split()]).pronouns == []
    # inside a quotation a pronoun is left alone
    quote = ["mr smith met the coach .".split(), "`` he wants to stay , '' the coach said .".split()]
    assert analyze(quote).pronouns == []
    assert [p.word for p in analyze([quote[0], "he wants to stay .".split()]).pronouns] == ["he"]


def _scores(doc, per_sentence: dict[int, float]) -> np.ndarray:
    """Scores that keep every part of a sentence with its head, by sentence."""
    return np.array([per_sentence.get(u.sent, -1.0) * max(u.length, 1) for u in doc.units])


def test_pronoun_rule_in_the_ilp():
    doc = analyze(OBAMA)
    (ps,) = doc.pronouns
    s1 = {1: 1.0, 0: 0.01, 2: -1.0}  # sentence 1 is wanted, sentence 0 barely
    # room for both sentences (7 + 8 tokens): sentence 0 comes in, the pronoun stays
    sel = solve(doc, _scores(doc, s1), 15)
    assert render(doc, sel) == [OBAMA[0][:-1], OBAMA[1][:-1]] and sel.rewritten == []
    # room for sentence 1 and one word more: "he" becomes "mr obama" (1 more word)
    sel = solve(doc, _scores(doc, s1), 9)
    assert sel.rewritten == [0]
    assert render(doc, sel) == ["mr obama said the trip was a success .".split()]
    # sentence 1 alone (8 tokens) is not allowed: its pronoun would dangle
    sel = solve(doc, _scores(doc, s1), 8)
    assert doc.units[doc.index[(1, -1)]].length == 8
    assert doc.index[(1, -1)] not in sel.units
    assert feasible(doc, sel, 8)
    assert not feasible(doc, Selection([doc.index[(1, -1)]], []), 8)
    assert ps.antecedent.sent == 0
    # 3 words: only "he won ." fits, and neither its antecedent's sentence nor the rewrite does:
    # no head can be kept, the never-empty constraint goes, the summary is the first sentence cut
    article = [OBAMA[0], "he won .".split()]
    short = analyze(article)
    assert len(short.pronouns) == 1
    sel = solve(short, _scores(short, {0: 1.0, 1: 1.0}), 3)
    assert sel.units == [] and sel.rewritten == []
    text, stats = summarize(article, 3, load_weights()[0])
    assert text == "mr obama visited" and stats["fallback"]
    # ablation: without the constraints sentence 1 comes alone, its "he" dangling
    sel = solve(doc, _scores(doc, s1), 8, anaphora=False)
    assert render(doc, sel) == [OBAMA[1][:-1]] and sel.rewritten == [] and dangling(doc, sel) == 1


def test_no_compression_ablation_keeps_whole_sentences():
    article = [
        "barack obama , the president of the united states , visited london on friday .".split(),
        "the mayor , who was elected last year , met him at the airport .".split(),
    ]
    doc = analyze(article)
    scores = np.array([(1.0 if u.kind == "head" else -0.2) * u.length for u in doc.units])
    compressed = render(doc, solve(doc, scores, 40))
    assert compressed == ["barack obama visited london .".split(), "the mayor met him at the airport .".split()]
    whole = render(doc, solve(doc, scores, 40, compress=False))
    assert whole == article


def brute_force(doc, scores, budget) -> float:
    U, P = len(doc.units), len(doc.pronouns)
    best = -np.inf
    for bits in itertools.product([0, 1], repeat=U + P):
        sel = Selection([u for u in range(U) if bits[u]], [p for p in range(P) if bits[U + p]])
        if feasible(doc, sel, budget):
            best = max(best, objective(doc, scores, sel))
    return best


def test_exact_by_brute_force():
    article = [
        "mr obama , the president of the united states , visited london on friday .".split(),
        "he said , however , that the trip was a success .".split(),
        "the mayor , who was elected last year , met him at the airport .".split(),
        "it rained .".split(),
    ]
    doc = analyze(article)
    U, P = len(doc.units), len(doc.pronouns)
    assert U + P <= 14 and P >= 2 and len({p for p, _ in pronoun_units(doc)}) >= 2
    rng = np.random.default_rng(0)
    for trial in range(6):
        scores = rng.normal(0.5, 1.0, size=U) * np.array([u.length for u in doc.units])
        for budget in (6, 12, 20, 35):
            sel = solve(doc, scores, budget)
            assert feasible(doc, sel, budget)
            assert objective(doc, scores, sel) == pytest.approx(brute_force(doc, scores, budget), abs=1e-6)
            words = sum(len(ws) for ws in render(doc, sel))
            assert words <= budget, (trial, budget)


def test_unit_targets_by_hand_and_ridge_two_ways():
    doc = analyze(["john smith , the mayor , resigned on friday .".split()])
    kinds = [u.kind for u in doc.units]
    assert kinds == ["head", "appos", "time"]
    # reference "the mayor resigned": 3 unigrams, 2 bigrams (stemmed: the, mayor, resign)
    t = unit_targets(doc, "the mayor resigned")
    # head "john smith , , resigned ." -> unigram resign (1), no bigram; appos "the mayor": 2 + 1
    assert t.tolist() == pytest.approx([50 * (1 / 3), 50 * (2 / 3 + 1 / 2), 0.0])
    rng = np.random.default_rng(1)
    X = np.hstack([np.ones((40, 1)), rng.normal(size=(40, 3))])
    y, n = rng.normal(size=40), rng.integers(1, 9, size=40).astype(float)
    w = fit_ridge(X, y, n, 0.0)  # no penalty: weighted least squares
    ref = np.linalg.lstsq(X * np.sqrt(n)[:, None], y * np.sqrt(n), rcond=None)[0]
    assert w == pytest.approx(ref)
    assert np.linalg.norm(fit_ridge(X, y, n, 1e6)[1:]) < 1e-3  # the penalty shrinks all but the bias


def test_shipped_weights_and_budget():
    w, record = load_weights()
    assert w.shape == (len(FEATURES),) and record["budget"] in (25, 50, 75, 100)
    text, stats = summarize(OBAMA, 9, w)
    assert len(text.split()) <= 9 and not stats["fallback"] and stats["dangling"] == 0
    wp, record = load_weights("pubmed")
    assert record["budget"] == 100 and not np.array_equal(w, wp)
    with pytest.raises(ValueError, match="not a BERKELEY weights file"):
        load_weights(__file__)


@pytest.mark.real_data
def test_cli_end_to_end_on_real_documents(tmp_path, capsys):
    raw = tmp_path / "raw"
    raw.mkdir()
    for split, n in (("train", 25), ("val", 4), ("test", 5)):
        with open(raw / f"{split}.jsonl", "w") as f:
            for d in read_raw(split, n, real=True):
                f.write(json.dumps(d) + "\n")
    data = tmp_path / "data"
    prepare(raw, data, vocab_size=50000, workers=1, progress=False)
    out = tmp_path / "berkeley"
    args = ["-q", "baseline", "berkeley", "--data", str(data), "--split", "test", "--out", str(out)]
    assert main([*args, "--fit-docs", "0", "--val-docs", "4", "--fit-budgets", "20,40"]) == 0
    printed = capsys.readouterr().out
    assert "BERKELEY" in printed and "compression" in printed
    record = json.loads((out / "weights.json").read_text())
    metrics = json.loads((out / "metrics.json").read_text())
    assert record["n_train_docs"] == 25 and record["budget"] in (20, 40)
    assert metrics["model"] == "BERKELEY" and metrics["n_docs"] == 5 and metrics["budget"] == record["budget"]
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    docs = list(read_prepared(data / "test.jsonl"))
    for row, doc in zip(rows, docs, strict=True):
        assert 0 < len(row["candidate"].split()) <= record["budget"]
        source = {w for s in doc["src"] for w in s}
        assert set(row["candidate"].split()) <= source | {"'s"}  # compressive: only the article's words
    assert 0 <= metrics["compression"] < 1 and metrics["avg_words"] > 0
    # the shipped weights, a given budget
    assert main([*args[:-1], str(tmp_path / "shipped"), "--budget", "30"]) == 0
    metrics = json.loads((tmp_path / "shipped" / "metrics.json").read_text())
    assert metrics["budget"] == 30 and metrics["weights"].startswith("shipped")
    # the ablation is labelled
    assert main([*args[:-1], str(tmp_path / "whole"), "--budget", "30", "--no-compression"]) == 0
    metrics = json.loads((tmp_path / "whole" / "metrics.json").read_text())
    assert metrics["model"] == "BERKELEY (no compression)" and metrics["compression"] == 0
    assert main(["-q", "baseline", "ilp", "--data", str(data), "--out", str(tmp_path / "x"), "--fit-docs", "3"]) == 2
    assert "for berkeley only" in capsys.readouterr().err
    assert main([*args[:-1], str(tmp_path / "y"), "--weights", str(tmp_path / "none.json")]) == 2
    assert "not a BERKELEY weights file" in capsys.readouterr().err
