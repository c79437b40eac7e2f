"""Token-for-token the same output as the tokenizer of issue 36, on the shared corpora.

``tests/data/tokenize_golden.json.gz`` holds, for every document of CNN/DM (2,753 + 20 raw
stories), the 300 long ACL papers and the 500 PubMed test papers, a hash of what the tokenizer
made of its article, highlights and (PubMed) abstract. ``scripts/make_tokenize_golden.py`` wrote
it and defines the document set. Up to issue 36 the hashes were those of the tokenizer before
issue 17 (NLTK over the whole text + pysbd; read from git by ``bench/tokenize_before.py``), which
issue 17's rewrite matched on every document; issue 36 changed the sentences on purpose
(species binomials, initials, headings, non-running text: docs/preprocessing.md) and wrote
them again. Every document still gives the same tokens as then. Reading the extracts of validation
papers 300-499 (issue 36, second pass), 37 documents changed on purpose again: no sentence cut
after ``sp.``/``spp.`` before a preposition, after a letter or abbreviation before a verb
(``national u. would``, ``eq. is``), or inside ``i. e.`` / ``e. g.``; then 7 PubMed papers lost a
table's title (or table rows) from their sentences (``data/layout.py``, :func:`_title_lines_at_end`).
Then (issue 36, the back matter) 153 PubMed papers and 160 ACL papers lost their acknowledgement, funding,
publication, competing-interests and authors'-contributions statements from their sentences
(``layout.statement_kind``, ``layout.heading_kind``); every other sentence and every token as before.

The time of the new tokenizer is linear in the length of the text; that is measured, not
tested, in ``bench/preprocess.py`` (words/s on 12,500 to 200,000 words of one line). What is
tested here is the structure that makes it so: the word tokenizer is called once per batch of
new words, never once per occurrence or on the whole text.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import c2fsum.data.tokenize as tok
from shared_data import DATA, need_real

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "tokenize_golden.json.gz"


def _golden_script():
    spec = importlib.util.spec_from_file_location("make_tokenize_golden", ROOT / "scripts" / "make_tokenize_golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def golden():
    script = _golden_script()
    need_real(DATA / "pubmed" / "test.jsonl.gz")
    return script, json.loads(gzip.decompress(GOLDEN.read_bytes()))


def _check(golden, every: int) -> int:
    script, want = golden
    checked = 0
    for n, (key, record) in enumerate(script.golden_documents(DATA)):
        if n % every:
            continue
        got = {field: script.digest(value) for field, value in script.outputs(tok, record).items()}
        assert got == want[key], key
        checked += 1
    return checked


@pytest.mark.real_data(DATA / "cnndm", DATA / "longdocs", DATA / "pubmed")
def test_golden_every_25th_document(golden):
    assert _check(golden, 25) == 143


@pytest.mark.slow
@pytest.mark.real_data(DATA / "cnndm", DATA / "longdocs", DATA / "pubmed")
def test_golden_every_document(golden):
    """All 3,573 documents (about 5.4 million article words; a minute on one core)."""
    assert _check(golden, 1) == 3573 == len(golden[1])


# --------------------------------------------------------------- word by word = whole text
_PIECES = (
    "the U.S. Mr. don't It's (CNN) \" \"\" ' `` '' -LRB- -rrb- $1,500 2015 12.5% a.m. No. Hello said . , ! ? "
    "... ; : -- \u2014 \u201c \u201d \u2019 # e-mail St. John's boys' boys'cannot can't cannot gonna wanna "
    "[sic] {x} & #tag 3:30 1. 'em 'tis o'clock U.K.'s .\" .' ). ') <a> * @ wan na d'ye more'n"
).split()


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from([" ", "", " "])), max_size=25))
def test_word_by_word_tokens_equal_whole_text_tokens(pieces):
    """The two paths: cached per-word tokenization vs NLTK's passes over the whole text."""
    normalized = tok.normalize_text("".join(a + b for a, b in pieces))
    assert tok._word_tokens(normalized) == list(tok._text_tokens_uncached(normalized, True))


@pytest.mark.real_data(DATA / "pubmed", DATA / "cnndm")
def test_plain_paragraph_ends_without_the_tokenizer_agree_with_it():
    """The fast path for a paragraph's last word (``cells.``, ``and``, ``said."``: :func:`tok._text_tokens`)
    against NLTK's passes (:func:`tok._text_tokens_uncached`), on every word of 40 real papers and 100
    news articles with each of the marks and closing quotes an end may have, as a whole text and after
    other words."""
    with gzip.open(need_real(DATA / "pubmed" / "val.jsonl.gz"), "rt") as f:
        papers = [json.loads(next(f))["article"] for _ in range(40)]
    words = {w for p in papers for w in tok.normalize_text(p).split()}
    ends = sorted({e for w in words for e in (w, w + ".", w.rstrip(".") + ".")} | set(tok._CONTRACTED))
    # every last word of 300 news articles, and 1,000 of their words with each mark and closing quote
    with gzip.open(need_real(DATA / "cnndm" / "train.jsonl.gz"), "rt") as f:
        news = [tok.normalize_text(json.loads(next(f))["article"]).split() for _ in range(300)]
    marks = ("", ".", "?", "!", '"', "'", '."', ".'", '?"', "!'", "?'", '!"', ",")
    stems = sorted({w.rstrip(".?!\"'") for a in news for w in a} - {""})[::7][:1_000]
    ends += [a[-1] for a in news if a] + [s + m for s in [*stems, *tok._CONTRACTED] for m in marks]
    ends += ["gon-na.", "x-cannot?", "re-test.'", 'u-s"', "a--b.", "x-.", "-x.", "it's.", "o'neill.'"]
    plain = [e for e in ends if tok._PLAIN_END.fullmatch(e)]
    assert len(plain) > 5_000  # most paragraph ends are plain words
    for end in ends:
        for start in (True, False):
            assert tok._text_tokens(end, start) == tok._text_tokens_uncached(end, start), (end, start)


@pytest.mark.real_data(DATA / "pubmed", DATA / "cnndm")
def test_simple_words_without_the_tokenizer_agree_with_it():
    """The fast path for a plain word with a comma, semicolon, colon, period or 's after it
    (:data:`tok._SIMPLE_WORD`, in :meth:`tok._MidTextCache.fill_once`) against one NLTK pass in mid-text, on
    every such word of 40 papers and 300 news articles, and on look-alikes that must go to NLTK."""
    with gzip.open(need_real(DATA / "pubmed" / "val.jsonl.gz"), "rt") as f:
        texts = [json.loads(next(f))["article"] for _ in range(40)]
    with gzip.open(need_real(DATA / "cnndm" / "train.jsonl.gz"), "rt") as f:
        texts += [json.loads(next(f))["article"] for _ in range(300)]
    words = {w for t in texts for w in tok.normalize_text(t).split()}
    words |= {"gonna,", "x-cannot.", "wanna's", "can-not;", "u.s.", "it's", "a--b,", "0.5,", "don't.", "cells,,"}
    simple = sorted(w for w in words if tok._SIMPLE_WORD.fullmatch(w) and not w.isalnum())
    assert len(simple) > 3_000  # most words the tokenizer would read
    for w in ("gonna,", "x-cannot.", "wanna's", "u.s.", "it's", "a--b,", "0.5,", "cells,,"):
        tok._MID_TEXT.once.pop(w, None)
    tok._MID_TEXT.fill_once(sorted(words))
    for w in sorted(words):
        assert tok._MID_TEXT.once[w] == tuple(tok._tokenize_pass(w, start=False, end=False)), w


@pytest.mark.real_data(DATA / "pubmed")
def test_one_tokenizer_call_per_document_gives_the_same_sentences(monkeypatch):
    """split_blocks fills the word cache once for all of a document's paragraphs; with the
    cache emptied before each paragraph (the straightforward path: each paragraph's words
    tokenized on their own) 20 real papers give the same sentences."""
    with gzip.open(need_real(DATA / "pubmed" / "val.jsonl.gz"), "rt") as f:
        papers = [json.loads(next(f))["article"] for _ in range(20)]
    fast = [tok.preprocess_article(p) for p in papers]
    real = tok._word_tokens

    def cold(normalized: str) -> list[str]:
        tok._MID_TEXT.fixed.clear()
        tok._MID_TEXT.once.clear()
        tok._MID_TEXT.normal_parts.clear()
        return real(normalized)

    monkeypatch.setattr(tok, "_word_tokens", cold)
    assert [tok.preprocess_article(p) for p in papers] == fast


def test_word_tokenizer_calls_per_batch_of_new_words(monkeypatch):
    """20,000 distinct words that need the tokenizer: a handful of calls, none per occurrence."""
    calls: list[int] = []
    real = tok._WORD_TOKENIZER.tokenize

    def counting(text: str, *args, **kwargs):
        calls.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(tok._WORD_TOKENIZER, "tokenize", counting)
    # distinct words (their digits written as letters: every digit is 0 to the tokenizer) in brackets (a plain
    # word with a comma needs no tokenizer)
    words = ["(w" + f"{i:05d}".translate(str.maketrans("0123456789", "abcdefghij")) + "x-y)," for i in range(20_000)]
    text = " ".join(words * 3) + " end."
    sentences = tok.preprocess_article(text)
    assert sum(len(s) - 1 for s in sentences) == 3 * 20_000 * 4 + 2  # "-lrb-" "wabcdex-y" "-rrb-" "," ... "end" "."
    batches = math.ceil(20_000 / tok._BATCH)
    # new words in batches (one pass, one more to check the fixed point), the first word, the text's end
    assert batches <= len(calls) <= 2 * batches + 4, len(calls)
    assert max(calls) < 20 * tok._BATCH
