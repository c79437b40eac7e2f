"""``c2fsum.pipeline.extract`` and ``c2fsum extract``: a raw text's own sentences, spelled as the
text spells them, chosen exactly as ``c2fsum baseline ilp`` / LEAD choose them on prepared data."""

from __future__ import annotations

import gzip
import json

import pytest

from c2fsum.baselines.ilp import SENTENCE_MARKS, build_problem, ilp_summary, solve
from c2fsum.cli.main import main
from c2fsum.data.tokenize import preprocess_article
from c2fsum.errors import InputError
from c2fsum.pipeline import extract
from shared_data import DATA, need_real

TEXT = (
    "The Tol2 transposon was used in 30 cell lines. "
    "Tol2 transposon vectors gave stable expression in 30 cell lines over 12 days. "
    "We thank the reviewers. "
    "Stable expression of the Tol2 transposon vectors was measured by flow cytometry."
)


def test_lead_takes_the_first_sentences_that_fit_spelled_as_the_text():
    (e,) = extract(TEXT, method="lead", words=25)  # 10 + 14 tokens fit (punctuation counts, as in ILP), + 5 do not
    assert e.sentences == [0, 1]
    assert e.text == (
        "The Tol2 transposon was used in 30 cell lines.\n"
        "Tol2 transposon vectors gave stable expression in 30 cell lines over 12 days."
    )
    assert e.tokens[:3] == ["the", "tol#", "transposon"] and len(e.tokens) == 10 + 14


def test_ilp_chooses_what_the_solver_chooses_on_the_same_tokens():
    sents = preprocess_article(TEXT)
    (e,) = extract(TEXT, method="ilp", words=30)
    assert e.sentences == solve(build_problem(sents, 30))
    assert 2 not in e.sentences  # "we thank the reviewers" shares no word pair with the rest
    assert sum(1 for j in e.sentences for t in sents[j] if t not in SENTENCE_MARKS) <= 30
    assert e.text.split("\n")[0] == "The Tol2 transposon was used in 30 cell lines."


def test_a_first_sentence_longer_than_the_budget_is_given_whole():
    (e,) = extract(TEXT, method="lead", words=3)
    assert e.sentences == [0] and e.text == "The Tol2 transposon was used in 30 cell lines."


def test_bad_requests_are_named():
    with pytest.raises(InputError, match="method: got 'textrank'"):
        extract(TEXT, method="textrank")
    with pytest.raises(InputError, match="words: expected a budget of at least 1 word, got 0"):
        extract(TEXT, words=0)
    with pytest.raises(InputError, match="text 1: empty article"):
        extract([TEXT, "  "])


@pytest.mark.real_data
def test_the_same_summary_as_the_ilp_baseline_on_real_papers():
    """Two paths: raw text through ``extract`` and the prepared document through ``ilp_summary``
    (``c2fsum baseline ilp``) give the same words for SumPubMed validation papers."""
    path = need_real(DATA / "pubmed" / "val.jsonl.gz")
    with gzip.open(path, "rt") as f:
        papers = [json.loads(next(f))["article"] for _ in range(3)]
    for text, e in zip(papers, extract(papers, words=250), strict=True):
        expected = ilp_summary(preprocess_article(text), 250)
        assert " ".join(e.tokens) == expected.replace("\n", " ")
        assert e.text.count("\n") == expected.count("\n")  # one line per chosen sentence


def test_the_command_line(tmp_path, capsys):
    f = tmp_path / "in.txt"
    f.write_text(TEXT + "\n\n" + TEXT + "\n")
    assert main(["-q", "extract", "--method", "lead", "--words", "25", "--lines", str(f)]) == 0
    out = capsys.readouterr().out.split("\n")
    assert (
        out[1] == "" and out[0] == out[2] and out[0].startswith("The Tol2 transposon was used in 30 cell lines. Tol2")
    )
    assert main(["-q", "extract", "--json", "--words", "30", str(f)]) == 0
    row = json.loads(capsys.readouterr().out)
    assert set(row) == {"text", "tokens", "sentences"}
