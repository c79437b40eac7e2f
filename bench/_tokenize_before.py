"""PTB-style tokenization and sentence splitting, as in the thesis's preprocessing (section 5.1).

Raw text in, the tokens a model sees out::

    "(CNN) Sales rose 12% in 2015. \"It's great,\" he said."
    -> [["-lrb-", "cnn", "-rrb-", "sales", "rose", "##", "%", "in", "####", ".", "</s>"],
        ["``", "it", "'s", "great", ",", "''", "he", "said", ".", "</s>"]]

Steps: Unicode clean-up; PTB bracket tokens (``-LRB-``...) and typographic quotes back to
characters; lowercasing; digits to a placeholder; NLTK's Treebank-style word tokenizer
(``NLTKWordTokenizer``, no punkt model needed) over the whole text; sentence boundaries from
``pysbd``; brackets written as CoreNLP tokens (``-lrb- -rrb- -lsb- -rsb- -lcb- -rcb-``) and
every digit as ``#``.

**Idempotence.** Part of CNN/DM circulates already PTB-tokenized and/or lowercased, so
preprocessing must give the same tokens whatever form its input was in:
``preprocess_article(" ".join(tokens_of(x))) == preprocess_article(x)`` and
``preprocess_article(x.lower()) == preprocess_article(x)``. This holds by construction:

* lowercasing happens first, so casing never reaches a decision;
* ``#`` and every digit become ``0`` before tokenizing, so ``$1,500`` and ``$#,###`` tokenize
  alike; ``-lrb-``/``-LRB-`` become ``(`` again; ``''`` is always a closing quote;
* pysbd never sees the raw text. It sees a *view* rendered from the word tokens, with
  punctuation glued back to its word and quote marks left out, so the view of a text and the
  view of its own tokenization are the same string (a sentence-final period split off as
  ``word .`` is rendered ``word.`` just like the unsplit ``word.``), and so are pysbd's cuts;
* word tokens are re-tokenized until they stop changing (a fixed point of the tokenizer);
* quote marks around a cut are assigned by a rule on the tokens alone.

Checked on all 2,753 documents of the project's CNN/DM sample (tests: 20 of them, plus
generated text). Speed: about 45 ms per 650-word article on one core, 30 of them in pysbd.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from nltk.tokenize import NLTKWordTokenizer

from c2fsum.data.vocab import EOS

log = logging.getLogger(__name__)

PTB_BRACKETS = {"(": "-lrb-", ")": "-rrb-", "[": "-lsb-", "]": "-rsb-", "{": "-lcb-", "}": "-rcb-"}
"""Bracket characters and the CoreNLP tokens they are written as."""

_BRACKET_TOKEN = re.compile(r"-(lrb|rrb|lsb|rsb|lcb|rcb)-", re.IGNORECASE)
_BRACKET_CHAR = {token[1:4]: char for char, token in PTB_BRACKETS.items()}
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u2060\ufeff]")  # soft hyphen, zero-width marks, BOM
_CHAR_MAP = str.maketrans(
    {
        "\u201c": " `` ",  # left double quotation mark
        "\u201e": " `` ",  # double low-9 quotation mark
        "\u201f": " `` ",
        "\u00ab": " `` ",  # guillemets
        "\u201d": " '' ",
        "\u00bb": " '' ",
        "\u2018": "'",  # single quotation marks are often apostrophes: let the tokenizer decide
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2013": " -- ",  # en dash, em dash, horizontal bar: PTB writes dashes as --
        "\u2014": " -- ",
        "\u2015": " -- ",
        "#": "0",  # an already preprocessed digit; see the module docstring
    }
)
_DIGIT = re.compile(r"\d")
_DOTS = re.compile(r"\.{2,}")  # "..", "...", "...." all become one ellipsis token
_QUOTE_BEFORE_PUNCT = re.compile(r"(?<!')'(?=[.,;:!?)\]}\"])")  # 'word'. -> 'word ' .
_WHITESPACE = re.compile(r"\s+")
_EOS_MARK = re.compile(re.escape(EOS))

_QUOTE_TOKENS = frozenset({"``", "''", "'", "`", '"'})
_GLUE_LEFT = frozenset(
    {".", ",", ";", ":", "?", "!", ")", "]", "}", "%", "...", "n't", "'s", "'m", "'d", "'ll", "'re", "'ve"}
)
_GLUE_RIGHT = frozenset({"(", "[", "{", "$"})
_CLOSERS = frozenset({"''", ")", "]", "}"})


class _PTBWordTokenizer(NLTKWordTokenizer):
    """NLTK's improved Treebank tokenizer, except that ``''`` is always a closing quote.

    NLTK turns ``''`` after a space into an opening quote; in PTB-tokenized text every ``''``
    follows a space, so without this change ``'' he said`` would not survive a second pass.
    """

    STARTING_QUOTES = [
        (re.compile(r"([«“‘„]|[`]+)", re.UNICODE), r" \1 "),
        (re.compile(r'^"'), r"``"),
        (re.compile(r"(``)"), r" \1 "),
        (re.compile(r'([ \(\[{<])"'), r"\1 `` "),
        (re.compile(r"(?i)(?<!\w)(')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)", re.UNICODE), r"\1 "),
    ]


_WORD_TOKENIZER = _PTBWordTokenizer()


@lru_cache(maxsize=1)
def _segmenter():
    """The pysbd segmenter, built once per process (building it compiles many regexes).

    pysbd builds regexes from its abbreviation list on every call; with the standard library's
    cache of 512 compiled patterns they are evicted and recompiled for each article. A larger
    cache (a few MB) makes segmentation about 30% faster.
    """
    import pysbd

    re._MAXCACHE = max(getattr(re, "_MAXCACHE", 0), 4096)  # private, but stable since Python 3.0
    return pysbd.Segmenter(language="en", clean=False)


def normalize_text(text: str) -> str:
    """Canonical lowercase form of ``text`` that the word tokenizer reads.

    NFKC Unicode normalization, invisible characters removed, PTB bracket tokens (any case)
    turned back into brackets, typographic quotes and dashes into PTB ASCII forms, lowercase,
    every digit and every ``#`` into ``0``, runs of dots into `` ... ``, whitespace collapsed.
    """
    if not isinstance(text, str):
        raise TypeError(f"text: expected str, got {type(text).__name__}")
    text = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))
    text = _BRACKET_TOKEN.sub(lambda m: f" {_BRACKET_CHAR[m.group(1).lower()]} ", text)
    text = text.translate(_CHAR_MAP).lower()
    text = _DIGIT.sub("0", text)
    text = _DOTS.sub(" ... ", text)
    text = _QUOTE_BEFORE_PUNCT.sub(" ' ", text)
    return _WHITESPACE.sub(" ", text).strip()


def _word_tokens(normalized: str) -> list[str]:
    """Treebank word tokens of normalized text, re-tokenized until they no longer change.

    A few NLTK rules interact (``boys'cannot`` -> ``boys' can not``, whose ``boys'`` only
    splits on a second pass); iterating makes the tokens a fixed point, so that tokenizing
    the joined tokens again changes nothing. One extra pass is the common case.
    """
    tokens = _WORD_TOKENIZER.tokenize(normalized)
    for _ in range(4):
        again = _WORD_TOKENIZER.tokenize(normalize_text(" ".join(tokens)))
        if again == tokens:
            break
        tokens = again
    return tokens


def _render(tokens: Sequence[str]) -> tuple[str, list[int | None]]:
    """The string pysbd reads, and the end offset of each token in it (None: not rendered).

    Punctuation is glued to its neighbour as in ordinary prose and quote marks are left out,
    so ``word .`` and ``word.`` render alike and quotes cannot hide sentence ends from pysbd.
    """
    parts: list[str] = []
    ends: list[int | None] = []
    length = 0
    glue_next = True
    for tok in tokens:
        if tok in _QUOTE_TOKENS:
            ends.append(None)
            glue_next = False
            continue
        if parts and not (glue_next or tok in _GLUE_LEFT):
            parts.append(" ")
            length += 1
        parts.append(tok)
        length += len(tok)
        ends.append(length)
        glue_next = tok in _GLUE_RIGHT
    return "".join(parts), ends


def _cut_offsets(view: str) -> list[int]:
    """Character offsets in ``view`` where pysbd starts a new sentence.

    ``Segmenter.segment`` would also locate each sentence in the text with a regex compiled for
    that sentence (slow on long articles); its processor returns the same sentences, which are
    located here in order with ``str.find``.
    """
    segmenter = _segmenter()
    if hasattr(segmenter, "processor"):
        sentences = segmenter.processor(view).process()
    else:  # pragma: no cover - other pysbd versions
        sentences = segmenter.segment(view)
    cuts: list[int] = []
    pos = 0
    first = True
    for sentence in sentences:
        sentence = sentence.strip()
        if not sentence:
            continue
        found = view.find(sentence, pos)
        if found < 0:
            log.debug("pysbd sentence not found in its input, boundary ignored: %r", sentence[:60])
            continue
        if not first:
            cuts.append(found)
        first = False
        pos = found + len(sentence)
    return cuts


def _break_after(tokens: Sequence[str]) -> set[int]:
    """Indices ``k`` such that a sentence ends after ``tokens[k]`` according to pysbd.

    A cut inside a rendered word is ignored; a cut between words ends the sentence after the
    last rendered token before it (quote marks after it are placed by :func:`_assemble`).
    """
    view, ends = _render(tokens)
    breaks: set[int] = set()
    cuts = [c for c in _cut_offsets(view) if 0 < c < len(view) and (view[c - 1] == " " or view[c] == " ")]
    if not cuts:
        return breaks
    ci = 0
    last = -1
    for k, end in enumerate(ends):
        if end is None:
            continue
        while ci < len(cuts) and cuts[ci] < end:
            if last >= 0:
                breaks.add(last)
            ci += 1
        last = k
    return breaks


def _split_final_period(sentence: list[str]) -> None:
    """Split the period off the last word of ``sentence`` (in place), as the Treebank tokenizer
    does at the end of a sentence: ``u.s.`` -> ``u.s .``, ``don't.`` -> ``do n't .``.
    Closing quotes and brackets after the word stay after the period."""
    j = len(sentence) - 1
    while j > 0 and (sentence[j] in _CLOSERS or sentence[j] == "'"):
        j -= 1
    word = sentence[j]
    if len(word) > 1 and word.endswith(".") and word[-2] != ".":
        sentence[j : j + 1] = _word_tokens(word)


def _assemble(tokens: Sequence[str], breaks: set[int]) -> list[list[str]]:
    """Cut ``tokens`` into sentences after the indices in ``breaks``.

    Closing quotes and brackets right after a break stay with the sentence they close. A
    single ``'`` is ambiguous (it opens DailyMail quotes and closes them); it closes the
    sentence when an odd number of single quotes has been seen so far, else it opens the next.
    """
    sentences: list[list[str]] = []
    current: list[str] = []
    single_open = False
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i]
        current.append(tok)
        if tok == "'":
            single_open = not single_open
        elif tok == "`":
            single_open = True
        i += 1
        if i - 1 in breaks:
            while i < n and (tokens[i] in _CLOSERS or (tokens[i] == "'" and single_open)):
                if tokens[i] == "'":
                    single_open = False
                current.append(tokens[i])
                i += 1
            _split_final_period(current)
            sentences.append(current)
            current = []
    if current:
        sentences.append(current)
    return sentences


def _final_form(token: str) -> str:
    """Internal token -> output token: CoreNLP bracket names, ``#`` for every digit."""
    return PTB_BRACKETS.get(token) or token.replace("0", "#")


def tokenize_words(text: str) -> list[str]:
    """PTB word tokens of ``text`` in their final form, without sentence splitting.

    Only the period at the very end is split off; use :func:`split_sentences` for prose.
    """
    return [_final_form(t) for t in _word_tokens(normalize_text(text))]


def split_sentences(text: str) -> list[list[str]]:
    """Sentences of final-form tokens (no ``</s>``); empty list for a text with no tokens.

    A literal ``</s>`` in ``text`` always ends a sentence (so prepared text can be fed back).
    """
    tokens: list[str] = []
    forced: set[int] = set()
    for block in _EOS_MARK.split(normalize_text(text)):
        tokens.extend(_word_tokens(block))
        if tokens:
            forced.add(len(tokens) - 1)
    if not tokens:
        return []
    # pysbd reads the whole text even across </s>, so that its cuts match those of a first pass
    breaks = _break_after(tokens) | forced
    return [[_final_form(t) for t in sentence] for sentence in _assemble(tokens, breaks)]


def preprocess_article(text: str) -> list[list[str]]:
    """An article as a list of sentences, each a list of tokens ending with ``</s>``."""
    return [sentence + [EOS] for sentence in split_sentences(text)]


def preprocess_summary(text: str) -> list[str]:
    """A summary (one highlight, or several joined) as one flat token list, no ``</s>``."""
    return [tok for sentence in split_sentences(text) for tok in sentence]


def preprocess_highlights(highlights: Sequence[str]) -> list[list[str]]:
    """Each highlight's tokens (:func:`preprocess_summary`); highlights without tokens dropped."""
    out = [preprocess_summary(h) for h in highlights]
    return [h for h in out if h]
