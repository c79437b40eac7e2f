"""c2fsum's Treebank word tokenizer (``data/treebank.py``) gives NLTK's tokens, token for token.

NLTK is the reference: ``NLTKWordTokenizer`` with c2fsum's one change (``''`` after a space is a
closing quote), as ``data/tokenize.py`` used it before issue 36 moved the rules out of NLTK (its
import was most of ``c2fsum extract``'s start-up). Checked on raw and normalized real text
(paragraphs, words in mid-text and at a text's end) and on generated text.
"""

from __future__ import annotations

import gzip
import itertools
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from c2fsum.data.tokenize import normalize_text
from c2fsum.data.treebank import TreebankWordTokenizer
from shared_data import CNNDM, DATA, need_real

nltk_tokenize = pytest.importorskip("nltk.tokenize")


class _NLTKReference(nltk_tokenize.NLTKWordTokenizer):
    STARTING_QUOTES = [
        (re.compile(r"([«“‘„]|[`]+)", re.UNICODE), r" \1 "),
        (re.compile(r'^"'), r"``"),
        (re.compile(r"(``)"), r" \1 "),
        (re.compile(r'([ \(\[{<])"'), r"\1 `` "),
        (re.compile(r"(?i)(?<!\w)(')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)", re.UNICODE), r"\1 "),
    ]


OURS, NLTK = TreebankWordTokenizer(), _NLTKReference()


def _agree(text: str) -> None:
    assert OURS.tokenize(text) == NLTK.tokenize(text), text


def _articles(path, n: int) -> list[str]:
    with gzip.open(need_real(path), "rt", encoding="utf-8") as f:
        return [json.loads(line)["article"] for line in itertools.islice(f, n)]


@pytest.mark.real_data(DATA / "pubmed", CNNDM)
def test_real_text_word_by_word_and_whole():
    texts = _articles(DATA / "pubmed" / "val.jsonl.gz", 60) + _articles(CNNDM / "val.jsonl.gz", 60)
    words: set[str] = set()
    for text in texts:
        for paragraph in text.split("\n")[:40]:
            _agree(paragraph)  # raw text: capitals, curly quotes, dashes, brackets as written
            _agree(normalize_text(paragraph))  # what c2fsum tokenizes
        words.update(text.split())
        words.update(normalize_text(text).split())
    assert len(words) > 20_000
    for w in sorted(words):
        _agree(w)  # a whole text: the end-of-text rules
        _agree(f"Z {w} Z")  # mid-text, as data/tokenize.py batches words
        _agree(f"z {w}")  # the end of a text after other words


_PIECES = (
    "the U.S. Mr. don't It's (CNN) \" \"\" ' `` '' -LRB- $1,500 12.5% a.m. No. said . , ! ? ... ; : -- "
    "\u2014 \u2013 \u2012 \u201c \u201d \u2018 \u2019 \u00ab \u00bb \u201e # e-mail St. John's boys' boys'cannot "
    "can't cannot gonna wanna gimme lemme gotta d'ye more'n 'tis 'twas [sic] {x} & @ * 3:30 1. 'em .\" .' ). ') "
    "<a> > < i.e. e.g. x, y: 'll 're 've n't 'S 'M 'D 'LL"
).split()


@settings(max_examples=500, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from([" ", "", "  ", "\n"])), max_size=20))
def test_generated_text(pieces):
    _agree("".join(a + b for a, b in pieces))
