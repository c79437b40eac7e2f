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


def test_no_sentence_within_the_budget_is_a_refusal_not_a_longer_summary():
    """Issue 49: a summary never holds more than ``words`` words; with no sentence that fits, the
    extract is empty and says why (it was the first sentence whole, 10 words for a budget of 3)."""
    for method in ("lead", "ilp"):
        (e,) = extract(TEXT, method=method, words=3)
        assert (e.text, e.sentences, e.tokens) == ("", [], []), method
        assert "more than 3" in e.refusal or "no sentence fits in 3 words" in e.refusal, e.refusal


LONG_LINE = " ".join(["cells", "protein", "patients", "gene", "expression"] * 10_000)
"""50,000 words on one line, no punctuation (issue 49: extract gave it back whole, whatever --words)."""


@pytest.mark.parametrize("method", ["ilp", "lead"])
@pytest.mark.parametrize(
    ("text", "said"),
    [
        (LONG_LINE, "its 50,000 words hold no sentence end"),
        ("tuberculosis\n", "its 1 word holds no sentence end"),
        ("INTRODUCTION\n\nMETHODS\n\nRESULTS\n\nDISCUSSION\n", "its 4 words hold no sentence end"),
    ],
)
def test_a_text_without_sentences_is_refused_not_given_back(method, text, said):
    """Issue 49: headings only, one word, a line without punctuation: no sentence to extract, so no
    summary and the reason, never the text with a period added ("Tuberculosis.") or lines joined."""
    (e,) = extract(text, method=method, words=100)
    assert e.text == "" and e.refusal.startswith(said), e.refusal


def test_the_command_refuses_naming_the_file_and_within_the_budget(tmp_path, capsys, caplog):
    f = tmp_path / "line.txt"
    f.write_text(LONG_LINE + "\n")
    assert main(["-q", "extract", "--words", "100", str(f)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"c2fsum extract: error: {f}: no summary from ILP: its 50,000 words hold no")
    g = tmp_path / "lines.txt"
    g.write_text(TEXT + "\ntuberculosis\n")
    assert main(["-q", "extract", "--words", "30", "--lines", str(g)]) == 0
    captured = capsys.readouterr()
    out = captured.out.split("\n")
    assert out[0].startswith("The Tol2 transposon") and out[1] == "" and len(out) == 3
    assert f"{g}:2: no summary from ILP: its 1 word holds no sentence end" in caplog.text


def test_sentences_are_given_as_the_text_writes_them():
    """Issue 49: an extracted sentence is the text's own ('10–20 mg' became '10 — 20 mg'); control
    characters and terminal escapes never reach the output."""
    text = (
        "Patients received 10–20 mg of the drug daily for ten weeks in the trial. "
        'He said "it works" (mostly) at 10:30 a.m. on the third day of the trial. '
        "The \x1b[31mred\x1b[0m bell\x07 rang, NUL\x00 and back\x08space in this sentence of the study."
    )
    (e,) = extract(text, method="lead", words=200)
    assert e.text.split("\n") == [
        "Patients received 10–20 mg of the drug daily for ten weeks in the trial.",
        'He said "it works" (mostly) at 10:30 a.m. on the third day of the trial.',
        "The red bell rang, NUL and backspace in this sentence of the study.",
    ]


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
