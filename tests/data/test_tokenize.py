"""Tokenization: hand-worked golden outputs, and the same tokens whatever form the input had."""

from __future__ import annotations

import gzip
import itertools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from c2fsum.data.tokenize import (
    normalize_text,
    preprocess_article,
    preprocess_highlights,
    preprocess_summary,
    split_sentences,
    tokenize_words,
)
from c2fsum.data.vocab import EOS
from shared_data import CNNDM

needs_cnndm = pytest.mark.real_data(CNNDM / "train.jsonl.gz", CNNDM / "manifest.jsonl.gz")


def flat(sentences: list[list[str]], *, keep_eos: bool = False) -> str:
    """Tokens joined with spaces, as a PTB-tokenized corpus would hold them."""
    return " ".join(t for s in sentences for t in s if keep_eos or t != EOS)


# ----------------------------------------------------------------------------------- golden
def test_digits_become_hashes():
    assert preprocess_summary("It cost $1,500 in 2015.") == ["it", "cost", "$", "#,###", "in", "####", "."]
    assert preprocess_summary("She earned 12.5% at 3:30pm") == ["she", "earned", "##.#", "%", "at", "#:##pm"]


def test_already_hashed_digits_give_the_same_tokens():
    assert preprocess_summary("It cost $#,### in ####.") == preprocess_summary("It cost $1,500 in 2015.")


def test_eos_after_each_sentence():
    assert preprocess_article("The cat sat. The dog ran!") == [
        ["the", "cat", "sat", ".", EOS],
        ["the", "dog", "ran", "!", EOS],
    ]


def test_abbreviations_do_not_end_sentences():
    assert preprocess_article("Mr. Smith went to Washington. He arrived at 3 p.m. on Monday.") == [
        ["mr.", "smith", "went", "to", "washington", ".", EOS],
        ["he", "arrived", "at", "#", "p.m.", "on", "monday", ".", EOS],
    ]


def test_lowercasing():
    assert preprocess_summary("NASA Launched A Rocket") == ["nasa", "launched", "a", "rocket"]


def test_double_quotes_straight_and_curly():
    expected = [["he", "said", "``", "go", "home", ".", "''", EOS], ["then", "left", ".", EOS]]
    assert preprocess_article('He said "go home." Then left.') == expected
    assert preprocess_article("He said \u201cgo home.\u201d Then left.") == expected
    assert preprocess_article("he said `` go home . '' then left .") == expected


def test_single_quote_closes_the_sentence_it_opened_in():
    assert preprocess_article("He said: 'I am fine.' Then he left.") == [
        ["he", "said", ":", "'", "i", "am", "fine", ".", "'", EOS],
        ["then", "he", "left", ".", EOS],
    ]


def test_contractions():
    # split on spaces: the expected tokens, written the way a PTB-tokenized corpus holds them
    expected = "do n't worry , it 's john 's car and i ca n't wait .".split()
    assert preprocess_summary("Don't worry, it's John's car and I can't wait.") == expected
    assert preprocess_summary("I cannot. Gonna go.") == ["i", "can", "not", ".", "gon", "na", "go", "."]
    assert preprocess_summary("It\u2019s fine") == ["it", "'s", "fine"]


def test_brackets_become_corenlp_tokens():
    expected = "-lrb- cnn -rrb- -- officials -lsb- said -rsb- -lcb- today -rcb- .".split()
    assert preprocess_summary("(CNN) -- Officials [said] {today}.") == expected


@pytest.mark.parametrize(
    "variant",
    [
        '(CNN) -- Officials don\'t say "hi".',
        "-LRB- CNN -RRB- -- Officials do n't say `` hi '' .",
        "-lrb- cnn -rrb- -- officials do n't say `` hi '' .",
        "( cnn ) -- officials do n't say `` hi '' .",
        "(cnn) \u2014 officials don\u2019t say \u201chi\u201d.",
    ],
)
def test_tokenized_and_raw_forms_agree(variant):
    assert preprocess_summary(variant) == "-lrb- cnn -rrb- -- officials do n't say `` hi '' .".split()


def test_dashes_and_ellipses():
    assert preprocess_summary("It\u2019s \u2014 well \u2013 fine") == ["it", "'s", "--", "well", "--", "fine"]
    assert preprocess_summary("Wait... what?") == ["wait", "...", "what", "?"]
    assert preprocess_summary("Wait.... what?") == ["wait", "...", "what", "?"]


def test_empty_text():
    assert preprocess_article("") == []
    assert preprocess_article(" \n\t \u200b") == []
    assert preprocess_summary("") == []
    assert preprocess_highlights(["", "  ", "One ."]) == [["one", "."]]


def test_literal_eos_in_input_is_a_sentence_end():
    assert preprocess_article("first part </s> second part") == [
        ["first", "part", EOS],
        ["second", "part", EOS],
    ]


def test_tokenize_words_and_normalize_text():
    assert tokenize_words("Hello, World (2015).") == ["hello", ",", "world", "-lrb-", "####", "-rrb-", "."]
    assert normalize_text("A  -LRB- B -rrb-\u00a0#1") == "a ( b ) 00"
    with pytest.raises(TypeError, match="expected str"):
        normalize_text(None)  # type: ignore[arg-type]


def test_split_sentences_has_no_eos():
    assert split_sentences("One. Two.") == [["one", "."], ["two", "."]]


# ------------------------------------------------------------------ idempotence, properties
_PIECES = (
    "the U.S. Mr. don't It's (CNN) \" ' `` '' -LRB- -rrb- $1,500 2015 12.5% a.m. No. Hello world said "
    ". , ! ? ... ; : -- \u2014 \u201c \u201d \u2019 # e-mail St. John's boys' can't cannot gonna [sic] "
    "{x} & #tag 3:30 1. 'em o'clock U.K.'s HELLO .\" .' )."
).split() + ["\n"]


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from([" ", "", " "])), max_size=30))
def test_preprocessing_is_idempotent_on_generated_text(pieces):
    text = "".join(a + b for a, b in pieces)
    first = preprocess_article(text)
    assert preprocess_article(flat(first)) == first
    assert preprocess_article(flat(first, keep_eos=True)) == first
    assert preprocess_article(text.lower()) == first


def _untokenized_train_articles(n: int) -> list[dict]:
    with gzip.open(CNNDM / "train.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in itertools.islice(f, n)]


@needs_cnndm
def test_real_articles_give_the_same_tokens_after_tokenization_and_lowercasing():
    """20 untokenized CNN/DM train articles: preprocessing our own PTB tokenization of them
    (joined with spaces, no sentence marks) or their lowercased text gives identical tokens."""
    for doc in _untokenized_train_articles(20):
        first = preprocess_article(doc["article"])
        assert first, doc["id"]
        assert preprocess_article(flat(first)) == first, doc["id"]
        assert preprocess_article(doc["article"].lower()) == first, doc["id"]
        for highlight in doc["highlights"].split("\n"):
            tokens = preprocess_summary(highlight)
            assert preprocess_summary(" ".join(tokens)) == tokens, doc["id"]


@needs_cnndm
def test_ptb_tokenized_test_documents_are_a_fixed_point():
    """Test-split articles that circulate PTB-tokenized (and often lowercased) keep their tokens."""
    with gzip.open(CNNDM / "manifest.jsonl.gz", "rt", encoding="utf-8") as f:
        tokenized = {m["id"] for m in map(json.loads, f) if m["tokenized"]}
    with gzip.open(CNNDM / "test.jsonl.gz", "rt", encoding="utf-8") as f:
        docs = [d for d in map(json.loads, f) if d["id"] in tokenized][:8]
    assert len(docs) == 8
    for doc in docs:
        first = preprocess_article(doc["article"])
        assert preprocess_article(flat(first)) == first, doc["id"]
        assert all(s[-1] == EOS and EOS not in s[:-1] for s in first)
        assert not any(t in ("(", ")", "[", "]") for s in first for t in s)


# ------------------------------------------------------------ the fast paths against the plain ones (issue 36)
def _real_texts(news: int, papers: int) -> list[str]:
    from shared_data import DATA, need_real

    with gzip.open(need_real(CNNDM / "train.jsonl.gz"), "rt", encoding="utf-8") as f:
        texts = [json.loads(line)["article"] for line in itertools.islice(f, news)]
    with gzip.open(need_real(DATA / "pubmed" / "val.jsonl.gz"), "rt", encoding="utf-8") as f:
        return texts + [json.loads(line)["article"] for line in itertools.islice(f, papers)]


@needs_cnndm
@pytest.mark.real_data(CNNDM.parent / "pubmed" / "val.jsonl.gz")
def test_rules_compiled_by_re_tokenize_as_nltks_own():
    """The tokenizer's NLTK rules compiled by Python's ``re`` (``tokenize._stdlib``) against NLTK's own
    compiled rules: the words of 300 news articles and 40 papers in batches, as the tokenizer reads them,
    and whole raw articles (their capitals, line breaks and text ends)."""
    import re

    from nltk.tokenize import NLTKWordTokenizer

    import c2fsum.data.tokenize as tok

    class Own(NLTKWordTokenizer):  # NLTK's rules as NLTK compiles them; its ''-rule as ours, as first written
        STARTING_QUOTES = [
            (re.compile(r"([«“‘„]|[`]+)"), r" \1 "),
            (re.compile(r'^"'), r"``"),
            (re.compile(r"(``)"), r" \1 "),
            (re.compile(r'([ \(\[{<])"'), r"\1 `` "),
            (re.compile(r"(?i)(?<!\w)(')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)"), r"\1 "),
        ]

    own = Own()
    assert not isinstance(own.PUNCTUATION[0][0], type(tok._WORD_TOKENIZER.PUNCTUATION[0][0]))  # two engines
    texts = _real_texts(300, 40)
    words = sorted({w for t in texts for w in normalize_text(t).split()})
    batches = [" ".join(words[k : k + 500]) for k in range(0, len(words), 500)]
    tricky = [
        "'tis cannot wanna ''x'' \"a\" (b) [c] u.s.a. 12.5% a--b ... it's. x:",
        " don't can't CANNOT d'ye wan na IT'S 'S x'' a' b's ''s x'll y'LL N'T boys' 'hello' (\"y\" [\"z\" <\"w ",
        " ''s x'sx 'd'd a's'm x'  'm  I'M sCanNot wAnNa gimme GONNA got ta lemme more'n 'twas x'' 's ",
    ]
    for text in batches + texts[::10] + tricky:
        assert tok._WORD_TOKENIZER.tokenize(text) == own.tokenize(text), text


def test_citation_test_agrees_with_its_regex():
    """``_cites`` (``<cit>`` first, ASCII lowercased) against the pattern it stands for."""
    import re

    from c2fsum.data.tokenize import _cites

    pattern = re.compile(r"\bet\.?\s*al\b|<cit>", re.IGNORECASE)
    texts = [
        "Smith et al. found", "SMITH ET AL found", "smith et.al", "smith etal.", "et  al", "<CIT> a", "x <cit>",
        "beet al", "et alia", "meet all", "et al_", "café et al.", "ÉT AL", "caféet al", "Smith Et\tAl.", "", "et",
    ]  # fmt: skip
    for text in texts + _real_texts(300, 20):
        assert _cites(text) == bool(pattern.search(text)), text


_UNICODE = (
    "Σ ΟΔΟΣ ΣΑ e\u0301 a\u0308 \u00a0 µ ﬁ ½ ² ١٢٣ ＜/s＞ </s> ' '' .. ... -LRB- -rrb- “ ” ‘ ’ — \u200b \u00ad İ "
    "x y 1.5 #3 (a) it's don't said. K ǅ \u0345 \u1e9b\u0323"
).split(" ")


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(_UNICODE), st.sampled_from([" ", "", " ", "\n", "  "])), max_size=60))
def test_long_text_normalized_in_pieces_as_whole(pieces):
    """A long non-ASCII text is normalized in pieces cut after spaces (``_normalized_blocks``): the same
    words as normalizing it whole, with pieces cut at every place of generated text."""
    import c2fsum.data.tokenize as tok

    unit = "".join(a + b for a, b in pieces)
    text = "w " * tok._PIECE + "é" + unit * (3 * tok._PIECE // max(1, len(unit)) + 1)
    want = [block.split() for block in normalize_text(text).split(EOS)]
    for shift in range(0, 40, 7):  # (the cuts fall elsewhere in the generated text)
        assert tok._normalized_blocks(" " * shift + text) == want
