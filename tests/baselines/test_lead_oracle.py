"""LEAD with a word budget and the greedy extractive ORACLE: golden summaries worked out by hand,
and both run through ``c2fsum baseline`` on real prepared articles, scored like every system."""

from __future__ import annotations

import json

import pytest

from c2fsum.baselines.extractive import lead_sentences, lead_words, oracle_summary
from c2fsum.cli.main import main
from c2fsum.data.prepare import read_prepared
from c2fsum.metrics.rouge import score_pair


def toks(text: str) -> list[str]:
    return text.split() + ["</s>"]


ARTICLE = [toks("the cat sat"), toks("dogs bark loudly"), toks("the cat sat on the mat")]
REFERENCE = "the cat sat on the mat"


@pytest.mark.parametrize(
    "budget,expected",
    [
        (1, "the"),
        (3, "the cat sat"),
        (4, "the cat sat\ndogs"),
        (8, "the cat sat\ndogs bark loudly\nthe cat"),
        (100, "the cat sat\ndogs bark loudly\nthe cat sat on the mat"),
    ],
)
def test_lead_takes_the_first_budget_words(budget, expected):
    """Sentence marks are not words; the last sentence is cut where the budget runs out."""
    assert lead_words([["<s>", *s] for s in ARTICLE], budget) == expected


def test_lead_rejects_a_zero_budget():
    with pytest.raises(ValueError, match="budget"):
        lead_words(ARTICLE, 0)


def test_oracle_golden_by_hand():
    """Budget 6: sentence 2 alone scores R1 F + R2 F = 1 + 1 = 2, sentence 0 only
    2/3 + 4/7 (unigram P 3/3, R 3/6; bigram P 2/2, R 2/5), sentence 1 nothing: sentence 2.
    Budget 5: sentence 2 no longer fits, sentence 0 is best; then sentence 1 (3 words) would pass
    the budget (3 + 3 > 5) and would add nothing anyway. Budget 100: sentence 2 first; adding
    sentence 0 lowers the score (unigram P 6/9, F 0.8), so the oracle stops."""
    assert oracle_summary(ARTICLE, REFERENCE, 6) == "the cat sat on the mat"
    assert oracle_summary(ARTICLE, REFERENCE, 5) == "the cat sat"
    assert oracle_summary(ARTICLE, REFERENCE, 100) == "the cat sat on the mat"
    assert oracle_summary(ARTICLE, REFERENCE, 2) == ""  # nothing fits


def test_oracle_combines_sentences_in_article_order():
    """Each part of the reference is one sentence: the oracle picks the longer, later one first
    (R1 F 10/14 + R2 F 2/3 against 8/13 + 6/11 for the earlier one), then adds the earlier one,
    and writes them in article order; the scorer then finds the reference itself."""
    article = [toks("storms hit the coast"), toks("nothing here"), toks("officials closed all the schools")]
    reference = "storms hit the coast\nofficials closed all the schools"
    assert oracle_summary(article, reference, 5) == "officials closed all the schools"
    assert oracle_summary(article, reference, 4) == "storms hit the coast"
    summary = oracle_summary(article, reference, 9)
    assert summary == reference
    assert score_pair(summary, reference) == pytest.approx({"rouge1": 1.0, "rouge2": 1.0, "rougeL": 1.0})


@pytest.mark.parametrize("name,label", [("lead", "LEAD"), ("oracle", "ORACLE")])
def test_budgeted_baselines_through_the_cli(prepared_small, tmp_path, capsys, name, label):
    """On real prepared articles: within the budget; LEAD = the first words; the ORACLE beats LEAD."""
    out = tmp_path / name
    common = ["--data", str(prepared_small), "--split", "test", "--budget", "30"]
    assert main(["-q", "baseline", name, *common, "--out", str(out)]) == 0
    assert label in capsys.readouterr().out
    metrics = json.loads((out / "metrics.json").read_text())
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    docs = list(read_prepared(prepared_small / "test.jsonl"))
    assert metrics["model"] == label and metrics["budget"] == 30 and metrics["n_docs"] == len(rows) == len(docs)
    for row, doc in zip(rows, docs, strict=True):
        words = row["candidate"].split()
        assert len(words) <= 30
        if name == "lead":
            article = [t for s in doc["src"] for t in s if t not in ("<s>", "</s>")]
            assert words == article[:30]
    if name == "oracle":
        assert main(["-q", "baseline", "lead", *common, "--out", str(tmp_path / "lead")]) == 0
        lead = json.loads((tmp_path / "lead" / "metrics.json").read_text())
        assert metrics["rouge2"] > lead["rouge2"]


def test_the_cli_lists_every_baseline():
    from c2fsum.baselines.extractive import BASELINES
    from c2fsum.cli.baseline import BASELINES as CLI_BASELINES

    assert CLI_BASELINES == BASELINES


def test_lead_sentences_are_the_whole_sentences_of_lead_words():
    """The one LEAD: ``lead_sentences`` (what ``c2fsum extract --method lead`` takes) are the whole
    lines of ``lead_words``, which then cuts the next sentence; together always the first
    ``budget`` words of the article (empty sentences skipped)."""
    article = [["<s>", "</s>"], *ARTICLE, ["</s>"], toks("birds sing")]
    words = [w for s in article for w in s if w not in ("<s>", "</s>")]
    for budget in range(1, len(words) + 3):
        chosen = lead_sentences(article, budget)
        lines = lead_words(article, budget).split("\n")
        assert lines[: len(chosen)] == [" ".join(w for w in article[j] if w != "</s>") for j in chosen]
        assert len(lines) - len(chosen) <= 1 and all(j > 0 for j in chosen)
        assert " ".join(lines).split() == words[:budget]
    assert lead_sentences(article, 5) == [1] and lead_sentences(article, 2) == []
