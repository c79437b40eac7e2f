"""What a reader meets (issue 31, item 5): each measure against values worked out by hand."""

from __future__ import annotations

import json

import pytest

from c2fsum.metrics.output_stats import (
    ReaderMeasures,
    back_to_back_repeats,
    document_frequencies,
    ends_sentence,
    is_content_word,
    opening,
    summary_tokens,
)


def test_content_words_are_words_not_stopwords_numbers_punctuation_or_placeholders():
    for word in ("cells", "coli", "p<#.##", "5'-utr"):
        assert is_content_word(word), word
    for token in ("the", "we", "n't", ",", ".", "##", "#.#", "<unk>", "<dig>", "<cit>", "-lrb-", "(", "--"):
        assert not is_content_word(token), token


def test_summary_tokens_lowercase_without_sentence_marks():
    assert summary_tokens("In this <s> study\nWe </s>") == ["in", "this", "study", "we"]
    assert summary_tokens(["A", "</s>"]) == ["a"]


def test_back_to_back_repeats():
    tokens = "lichens lichens lichens and wheat wheat . . ## ##".split()
    assert back_to_back_repeats(tokens) == 2 + 1 + 1  # the dots are not words, ## (a number) is
    assert back_to_back_repeats(["wheat", "and", "wheat"]) == 0
    assert back_to_back_repeats([]) == 0


@pytest.mark.parametrize(
    "text,ended",
    [
        ("it grows .", True),
        ("does it grow ?", True),
        ("it grows !", True),
        ("he said `` it grows . ''", True),
        ("it grows ( fast . )", True),
        ("it grows . `", False),  # PTB's opening single quote: no closer
        ("see fig. ", True),
        ("it grows", False),
        ("it grows ,", False),
        ("it grows ( fast )", False),
        ("", False),
        ("it grows . </s>", True),
        ("it grows </s>", False),
    ],
)
def test_ends_sentence(text, ended):
    assert ends_sentence(summary_tokens(text)) is ended


def test_opening_is_the_first_four_tokens():
    assert opening("in this study , we found".split()) == "in this study ,"
    assert opening(["mice", "grow"]) == "mice grow"


DOCS = {
    "d1": "the cell of wheat grows fast .".split(),
    "d2": "wheat and lichens grow in cages .".split(),
    "d3": "mice grow in cages .".split(),
}
SUMMARIES = {
    # content: study found coli cells cages wheat wheat grow (8); d1 uses cell, wheat, grow (stems):
    # novel study found coli cages (4); cage is in 2 of 3 documents, the others in none: 3 specific
    "d1": "In this study , we found coli cells in cages wheat wheat grow",
    # content: study lichens grow (3); novel: study (specific)
    "d2": "in this study , lichens grow .",
    # content: mice grow (2); nothing novel
    "d3": "Mice grow .",
}


def test_reader_measures_golden():
    df, n = document_frequencies(DOCS.values())
    assert n == 3 and df["wheat"] == 2 and df["cage"] == 2 and df["grow"] == 3 and df["cell"] == 1
    assert "the" not in df and "." not in df
    meter = ReaderMeasures(df, n, specific_share=0.5)  # specific: in fewer than 1.5 documents
    first = meter.add(SUMMARIES["d1"], DOCS["d1"])
    assert first == {
        "content_words": 8,
        "novel_words": 4,
        "novel_specific_words": 3,
        "back_to_back": 1,
        "unfinished": 1,
        "opening": "in this study ,",
    }
    assert meter.add(SUMMARIES["d2"], DOCS["d2"])["novel_specific_words"] == 1
    assert meter.add(SUMMARIES["d3"], DOCS["d3"])["novel_words"] == 0
    assert meter.summary() == {
        "novel_words": pytest.approx(100 * 5 / 13),
        "novel_specific_words": pytest.approx(100 * 4 / 13),
        "summaries_with_novel_specific": pytest.approx(100 * 2 / 3),
        "top_opening": "in this study ,",
        "top_opening_share": pytest.approx(100 * 2 / 3),
        "back_to_back_repeats": 1,
        "summaries_with_back_to_back": pytest.approx(100 / 3),
        "unfinished": pytest.approx(100 / 3),
        "top_novel_specific": "study 2, found 1, coli 1",
        "specific_df_docs": 3,
    }


def test_default_specific_share_is_ten_percent():
    df, n = document_frequencies([["wheat"]] * 10 + [["coli"]] * 1 + [["mice"]] * 9)  # 20 documents (stems)
    meter = ReaderMeasures(df, n)
    assert meter.is_specific("coli") and meter.is_specific("never")  # 1 of 20 < 2, 0 of 20
    assert not meter.is_specific("wheat") and not meter.is_specific("mice")  # 10 and 9 of 20
    df2, n2 = document_frequencies([["x"]] * 2 + [["y"]] * 18)
    assert not ReaderMeasures(df2, n2).is_specific("x")  # 2 of 20 is 10%: not fewer


def test_empty_collection_and_share_are_refused():
    with pytest.raises(ValueError, match="n_docs: expected at least 1 document"):
        ReaderMeasures({}, 0)
    with pytest.raises(ValueError, match="specific_share: expected a share in"):
        ReaderMeasures({}, 3, specific_share=0)


def _write_split(path, docs):
    path.mkdir(parents=True, exist_ok=True)
    with open(path / "test.jsonl", "w", encoding="utf-8") as f:
        for doc_id, words in docs.items():
            f.write(json.dumps({"id": doc_id, "src": [[*words, "</s>"]], "tgt": ["x"], "refs": [["x"]]}) + "\n")


def test_split_glue_and_unknown_ids(tmp_path):
    from c2fsum.evaluation.reader import reader_measures

    docs = {**DOCS, **{f"pad{i}": ["grow"] for i in range(7)}}  # 10 documents: specific = in none of them
    _write_split(tmp_path / "data", docs)
    rows = [{"id": k, "candidate": v} for k, v in SUMMARIES.items()]
    figures, counts = reader_measures(rows, tmp_path / "data", "test")
    assert figures["specific_df_docs"] == 10 and figures["specific_df_from"] == "test split"
    # cell, cage, lichen, mice, wheat are in 1-2 of 10 documents: not specific; study found coli in none
    assert figures["novel_specific_words"] == pytest.approx(100 * 4 / 13)
    assert [c["novel_words"] for c in counts] == [4, 1, 0]
    assert set(counts[0]) == {"content_words", "novel_words", "novel_specific_words", "back_to_back", "unfinished"}
    with pytest.raises(ValueError, match=r"mine\.jsonl: id 'd9' is not a document of .*test\.jsonl"):
        reader_measures([{"id": "d9", "candidate": "a"}], tmp_path / "data", "test", where="mine.jsonl")
