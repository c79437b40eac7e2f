"""PTB-style tokenization and sentence splitting, as in the thesis's preprocessing (section 5.1).

Raw text in, the tokens a model sees out::

    "(CNN) Sales rose 12% in 2015. \"It's great,\" he said."
    -> [["-lrb-", "cnn", "-rrb-", "sales", "rose", "##", "%", "in", "####", ".", "</s>"],
        ["``", "it", "'s", "great", ",", "''", "he", "said", ".", "</s>"]]

Steps: Unicode clean-up; PTB bracket tokens (``-LRB-``...) and typographic quotes back to
characters; lowercasing; digits to a placeholder; NLTK's Treebank-style word tokenizer
(``NLTKWordTokenizer``, no punkt model needed), word by word with a cache (see
:func:`_word_tokens`: the same tokens as over the whole text); sentence boundaries by pysbd's
rules (:mod:`c2fsum.data.sbd`, the same cuts as ``pysbd`` 0.3.4 in linear time); brackets
written as CoreNLP tokens (``-lrb- -rrb- -lsb- -rsb- -lcb- -rcb-``) and every digit as ``#``.

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
generated text).

**Speed (issue 17).** Until issue 17 the word tokenizer ran over the whole text and pysbd
split it, at 5,000-30,000 words/s and worse than linearly on long texts (pysbd re-scans the
text once per abbreviation occurrence and list item). Now each distinct word is tokenized once
per process (new words of a document in one NLTK call) and the sentence rules run once over
the text: 250,000-360,000 words/s on one core, in time linear in the text
(``bench/preprocess.py``). The output is token for token the same as before on every
document of the shared CNN/DM, long-document and PubMed test sets
(``tests/data/test_tokenize_golden.py``; the old code is read from git by ``bench/tokenize_before.py``).

**Speed (issue 36).** Still NLTK's tokenizer through the cache, with less Python per word and
token around it: the cached tokens of a block's words are joined by ``map``/``chain`` (no loop
per word), the splitter's view is built from memoized pieces, new words go to the tokenizer in
one call without marks between them, a word whose tokens are each their own fixed point needs no
second pass (each new token judged once), and the splitter's patterns start at their rare
character (:mod:`c2fsum.data.sbd`). The same tokens (the golden test); about 1.5x (CNN/DM) to 2.2x
(a 100,000-word line) the words/s of before, measured in ``docs/speed.md``. Then (issue 36, fourth
pass; each the same tokens, and each fast path tested against the plain one): NLTK's rules compiled by
Python's ``re`` instead of the third-party engine NLTK 3.9+ wraps them in (:func:`_stdlib`; those that
start with a word boundary or a common character written to start with their rare character), a
text's first word and the usual paragraph ends (``said."``) answered from the cache or without NLTK,
a long non-ASCII text normalized in 1 KB pieces (:func:`_normalized_blocks`), the final token forms
mapped once per document (:func:`_assemble`): about 1.3x on news and on the long line in one process
(runs alternating from empty caches; in fresh processes on a busy machine not settled: ``docs/speed.md``).
"""

from __future__ import annotations

import bisect
import itertools
import logging
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from c2fsum.data.layout import blocks, heading_kind, sentence_kinds, statement_kind
from c2fsum.data.sbd import sentence_starts
from c2fsum.data.vocab import EOS

log = logging.getLogger(__name__)


def _import_nltk_word_tokenizer() -> type:
    """NLTK's word tokenizer class, imported without ``scipy.stats``.

    ``import nltk`` (which any ``nltk`` submodule runs first) loads its collocation measures, and with
    them ``scipy.stats`` for one function, ``fisher_exact``: 0.8 s of its 1.0 s, at the start of every
    ``c2fsum extract``, ``summarize`` and ``prepare``. While NLTK is imported ``scipy.stats`` reads as
    missing (NLTK then defines a stub), and the stub is replaced by a function that imports SciPy's on
    its first call, so NLTK's measure works as before. A process that has imported either already is
    left as it is.
    """
    if "nltk" in sys.modules or "scipy.stats" in sys.modules:
        from nltk.tokenize import NLTKWordTokenizer

        return NLTKWordTokenizer
    sys.modules["scipy.stats"] = None  # type: ignore[assignment]  # "from scipy.stats import x" raises ImportError
    try:
        from nltk.tokenize import NLTKWordTokenizer
    finally:
        del sys.modules["scipy.stats"]
    association = sys.modules.get("nltk.metrics.association")
    if association is not None:

        def fisher_exact(*args, **kwargs):  # SciPy's, imported when NLTK first asks for it
            from scipy.stats import fisher_exact as scipy_fisher_exact

            return scipy_fisher_exact(*args, **kwargs)

        association.fisher_exact = fisher_exact  # type: ignore[attr-defined]
    return NLTKWordTokenizer


if TYPE_CHECKING:
    from nltk.tokenize import NLTKWordTokenizer
else:
    NLTKWordTokenizer = _import_nltk_word_tokenizer()

PTB_BRACKETS = {"(": "-lrb-", ")": "-rrb-", "[": "-lsb-", "]": "-rsb-", "{": "-lcb-", "}": "-rcb-"}
"""Bracket characters and the CoreNLP tokens they are written as."""

_BRACKET_TOKEN = re.compile(r"-(lrb|rrb|lsb|rsb|lcb|rcb)-", re.IGNORECASE)
_BRACKET_CHAR = {token[1:4]: char for char, token in PTB_BRACKETS.items()}
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u2060\ufeff]")  # soft hyphen, zero-width marks, BOM
_CHAR_MAP = tuple(
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
    }.items()
)  # str.replace for each (10x faster than str.translate with a dict; no output holds a key)
_DIGIT = re.compile(r"\d")
_ASCII_DIGITS = str.maketrans("123456789", "000000000")  # = _DIGIT on ASCII text (str.translate's fast path)
_DOTS = re.compile(r"\.{2,}")  # "..", "...", "...." all become one ellipsis token
# 'word'. -> 'word ' . : a quote not after a quote, before punctuation: (?<!')'(?=...), written to start
# with the quote (the regex engine jumps from quote to quote)
_QUOTE_BEFORE_PUNCT = re.compile(r"'(?<!'')(?=[.,;:!?)\]}\"])")
_EOS_MARK = re.compile(re.escape(EOS))

_QUOTE_TOKENS = frozenset({"``", "''", "'", "`", '"'})
_GLUE_LEFT = frozenset(
    {".", ",", ";", ":", "?", "!", ")", "]", "}", "%", "...", "n't", "'s", "'m", "'d", "'ll", "'re", "'ve"}
)
_GLUE_RIGHT = frozenset({"(", "[", "{", "$"})
_CLOSERS = frozenset({"''", ")", "]", "}"})


def _stdlib(rules: Sequence[tuple]) -> list[tuple[re.Pattern, str]]:
    """NLTK's ``(pattern, replacement)`` rules with each pattern compiled by Python's ``re`` (its ``pattern``
    string: an ``re`` pattern's, or that of NLTK's wrapper around a ``regex`` one), those of
    :data:`_FASTER` written to start with a rare character, and a contraction's ``(?i)\\b(can)...`` as
    ``(?i)(can)(?<=\\bcan)...`` (the same matches; the regex engine jumps to the next ``c`` instead of
    trying the word boundary at every position)."""
    out = []
    for rule, repl in rules:
        pattern, repl = _FASTER.get((rule.pattern, repl), (rule.pattern, repl))
        pattern = _LEADING_WORD.sub(lambda m: f"(?i)({m[1]})(?<=\\b{m[1]})", pattern)
        out.append((re.compile(pattern), repl))
    return out


_LEADING_WORD = re.compile(r"^\(\?i\)\\b\(([a-z]+)\)")  # a contraction's (?i)\b(can), (?i)\b(d)...
_FASTER = {
    # "x's " -> "x 's ": the quote (and s, m or d) after a character that is no quote or space, matched from the
    # quote (that character, never a space, is never the end of the match before)
    (r"([^' ])('[sS]|'[mM]|'[dD]|') ", r"\1 \2 "): (r"('(?<=[^' ]')[sSmMdD]?) ", r" \1 "),
}
"""NLTK 3.10's rules that are written here to start with their rare character: ``(pattern, replacement)``
-> the same for a pattern with the same matches but where the character before the match was."""


class _PTBWordTokenizer(NLTKWordTokenizer):
    """NLTK's improved Treebank tokenizer, except that ``''`` is always a closing quote.

    NLTK turns ``''`` after a space into an opening quote; in PTB-tokenized text every ``''``
    follows a space, so without this change ``'' he said`` would not survive a second pass.
    """

    STARTING_QUOTES = [
        (re.compile(r"([«“‘„]|[`]+)", re.UNICODE), r" \1 "),
        (re.compile(r'^"'), r"``"),
        (re.compile(r"(``)"), r" \1 "),
        # ([ \(\[{<])" -> \1 `` and (?i)(?<!\w)(')(?!...)(?=\w) -> \1 , written to start with the quote (the
        # regex engine jumps from quote to quote; the same text out)
        (re.compile(r'"(?<=[ \(\[{<]")'), r" `` "),
        (re.compile(r"(?i)(')(?<!\w')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)", re.UNICODE), r"\1 "),
    ]
    # NLTK's own rules, compiled by Python's re (NLTK 3.9+ runs them on the third-party regex engine under a
    # time limit: 1.8x the time for the same tokens on normalized words, whose patterns here are linear and
    # whose calls are bounded, _BATCH words; tests/data/test_tokenize.py checks the two agree)
    ENDING_QUOTES = _stdlib(NLTKWordTokenizer.ENDING_QUOTES)
    PUNCTUATION = _stdlib(NLTKWordTokenizer.PUNCTUATION)
    PARENS_BRACKETS = _stdlib([NLTKWordTokenizer.PARENS_BRACKETS])[0]
    DOUBLE_DASHES = _stdlib([NLTKWordTokenizer.DOUBLE_DASHES])[0]
    CONTRACTIONS2 = [rule for rule, _ in _stdlib([(r, "") for r in NLTKWordTokenizer.CONTRACTIONS2])]
    CONTRACTIONS3 = [rule for rule, _ in _stdlib([(r, "") for r in NLTKWordTokenizer.CONTRACTIONS3])]


_WORD_TOKENIZER = _PTBWordTokenizer()


def normalize_text(text: str) -> str:
    """Canonical lowercase form of ``text`` that the word tokenizer reads.

    NFKC Unicode normalization, invisible characters removed, PTB bracket tokens (any case)
    turned back into brackets, typographic quotes and dashes into PTB ASCII forms, lowercase,
    every digit and every ``#`` into ``0``, runs of dots into `` ... ``, whitespace collapsed.
    """
    return " ".join(_normalized(text).split())


def _normalized_blocks(text: str) -> list[list[str]]:
    """The words of each piece of ``normalize_text(text)`` between literal ``</s>`` marks (as
    ``[b.split() for b in normalize_text(text).split("</s>")]``, without joining the words first).

    A long text that is not all ASCII is normalized in pieces of about :data:`_PIECE` characters, each cut
    after a space (:func:`_pieces`): most of them are ASCII, which needs no Unicode normalization and
    takes ``str.translate``'s fast path for the digits (a 100,000-word paper with a Greek letter every
    thousand characters: 4x less time). No step of the normalization reads across a space (NFKC composes
    nothing with a space, lowercasing's final sigma stops at one, and no pattern holds one), so the pieces
    normalized one by one give the same text."""
    if not isinstance(text, str):
        raise TypeError(f"text: expected str, got {type(text).__name__}")
    if text.isascii() or len(text) <= 2 * _PIECE:
        normal = [_normalized(text)]
    else:
        normal = list(map(_normalized, _pieces(text)))
    if any(EOS in piece for piece in normal):  # (a piece is cut at a space: none cuts a </s>)
        return [block.split() for block in _EOS_MARK.split(" ".join("".join(normal).split()))]
    if len(normal) == 1:
        return [normal[0].split()]
    return [list(itertools.chain.from_iterable(map(str.split, normal)))]


_PIECE = 1024
"""Characters of a piece of a long non-ASCII text normalized on its own (:func:`_normalized_blocks`)."""


def _pieces(text: str) -> list[str]:
    """``text`` cut after the first space at or after every :data:`_PIECE` characters (joined: ``text``)."""
    out = []
    start = 0
    while True:
        cut = text.find(" ", start + _PIECE)
        if cut < 0:
            out.append(text[start:])
            return out
        out.append(text[start : cut + 1])
        start = cut + 1


def _normalized(text: str) -> str:
    """:func:`normalize_text` but for its whitespace, not collapsed yet."""
    if not isinstance(text, str):
        raise TypeError(f"text: expected str, got {type(text).__name__}")
    if not text.isascii():  # (ASCII text is in NFKC and holds no invisible character)
        if not unicodedata.is_normalized("NFKC", text):
            text = unicodedata.normalize("NFKC", text)
        text = _INVISIBLE.sub("", text)
    if "-" in text:
        text = _BRACKET_TOKEN.sub(lambda m: f" {_BRACKET_CHAR[m.group(1).lower()]} ", text)
    for char, repl in _CHAR_MAP:
        if char in text:
            text = text.replace(char, repl)
    text = text.lower()
    text = text.translate(_ASCII_DIGITS) if text.isascii() else _DIGIT.sub("0", text)
    if ".." in text:
        text = _DOTS.sub(" ... ", text)
    if "'" in text:
        text = _QUOTE_BEFORE_PUNCT.sub(" ' ", text)
    return text


_CLOSERS_ONLY = re.compile(r"[\]\)}>\"'»”’]+")
_CACHE_WORDS = 1 << 18
_CONTRACTED = frozenset({"cannot", "gimme", "gonna", "gotta", "lemme", "wanna"})  # NLTK splits these


def _word_tokens(normalized: str | list[str]) -> list[str]:
    """Treebank word tokens of normalized text, re-tokenized until they no longer change.

    A few NLTK rules interact (``boys'cannot`` -> ``boys' can not``, whose ``boys'`` only
    splits on a second pass); iterating makes the tokens a fixed point, so that tokenizing
    the joined tokens again changes nothing.

    NLTK's rules look at a word and the characters next to it; only the rules for the end of
    the text (``$``: the final period, a final ``:``/``,``) reach further, over the closing
    brackets and quotes after the text's last word. So the tokens of the text are those of
    each whitespace-separated word as found in mid-text (cached: most words recur), then those
    of the last word and the closers after it, tokenized as a text of their own. The same
    holds for every further pass, so the fixed point can be found word by word too. Words not
    in the cache yet are tokenized together, in one call of the tokenizer (:meth:`_MidTextCache.fill`).
    ``normalized`` may also be given as its words (``normalized.split()``).
    """
    words = normalized.split() if isinstance(normalized, str) else normalized
    if not words:
        return []
    k = len(words) - 1
    while k > 0 and _CLOSERS_ONLY.fullmatch(words[k]):
        k -= 1
    tokens: list[str] = []
    if k > 0:
        head = words[0]  # (at the text's start only a word with '"' tokenizes differently: NLTK's ^" rule)
        cache = _MID_TEXT
        fixed = cache.fixed
        tokens += fixed[head] if '"' not in head and head in fixed else _word_fixed(head, True)
        cache.clear_if_full()
        middle = words[1:k]
        first = len(tokens)
        try:  # usually all cached (split_blocks fills the cache for the whole document first)
            tokens.extend(itertools.chain.from_iterable(map(fixed.__getitem__, middle)))
        except KeyError:
            del tokens[first:]
            cache.fill(list(set(middle).difference(fixed)))
            tokens.extend(itertools.chain.from_iterable(map(fixed.__getitem__, middle)))
    tokens += _text_tokens(" ".join(words[k:]), k == 0)
    return tokens


_BATCH = 4096  # words per tokenizer call
_MARK = "Z"  # between words tokenized together: normalized text has no capitals


def _plain_words(words: list[str]) -> set[str]:
    """Those of ``words`` that are ASCII letters and digits alone, but those NLTK splits (``cannot``)."""
    plain = set(filter(str.isalnum, words))
    if not "".join(plain).isascii():
        plain = set(filter(str.isascii, plain))
    if not plain.isdisjoint(_CONTRACTED):
        plain -= _CONTRACTED
    return plain


# what normalize_text changes in ASCII text: capitals, digits but 0, "#", quotes, runs of dots, PTB
# bracket names, whitespace (an ASCII string with none of these is its own normal form)
_ASCII_NOT_NORMAL = re.compile(r"[A-Z1-9#'\s]|\.\.|-(?i:lrb|rrb|lsb|rsb|lcb|rcb)-")


# Most words the tokenizer must read are a plain word (letters and digits, maybe hyphenated) with a comma,
# semicolon, colon, period or 's after it. In mid-text NLTK splits off the comma, the semicolon and the
# colon (" , " " ; " " : ") and the 's (ENDING_QUOTES), keeps the period (only the text's last one splits)
# and the hyphens (only "--" splits); no other rule matches such a word, unless a part of it is one that
# NLTK's contractions split (_CONTRACTED). tests/data/test_tokenize_golden.py checks these tokens against
# the tokenizer's on every such word of real articles. (About 3 in 4 of the words that are not letters and
# digits alone: the tokenizer is called less often and on less text, about 10% of the time on CNN/DM.)
_SIMPLE_WORD = re.compile(r"([a-z0-9]+(?:-[a-z0-9]+)*)(,|;|:|\.|'s)?")


class _MidTextCache:
    """The tokens NLTK gives words in mid-text, found once per process: :meth:`fill` puts the
    fixed-point tokens of new words into :attr:`fixed`, which the tokenizer then reads
    (:func:`_word_tokens`); :meth:`clear_if_full` empties every table when ``fixed`` holds more
    than ``_CACHE_WORDS`` words."""

    __slots__ = ("once", "fixed", "normal_parts", "selves", "not_selves")

    def __init__(self) -> None:
        self.once: dict[str, tuple[str, ...]] = {}
        """Word -> its tokens after one tokenizer pass, in mid-text."""
        self.fixed: dict[str, tuple[str, ...]] = {}
        """Word -> its tokens at the fixed point, in mid-text."""
        self.normal_parts: dict[str, list[str]] = {}
        """Token -> ``normalize_text(token).split()``."""
        self.selves: set[str] = set()
        """Tokens that are their own fixed point in mid-text: ``self.renormalized(t) == [t]`` and
        one pass over ``t`` gives ``(t,)`` (``cells``, ``,``, ``'s``)."""
        self.not_selves: set[str] = set()
        """Tokens found not to be (``u.s.a.``... rarely)."""

    def clear_if_full(self) -> None:
        """Empty every table when :attr:`fixed` holds more than ``_CACHE_WORDS`` words."""
        if len(self.fixed) > _CACHE_WORDS:
            self.fixed.clear()
            self.once.clear()
            self.normal_parts.clear()
            self.selves.clear()
            self.not_selves.clear()

    def fill(self, words: list[str]) -> None:
        """Put the mid-text fixed-point tokens of ``words`` (not cached yet) into :attr:`fixed`.

        As :func:`_text_tokens`: at most four passes after the first; a word stable after fewer
        stays stable, so a word needs as many passes alone as within its text. A word whose tokens
        after the first pass are each their own fixed point (``cells,`` -> ``cells ,``: :attr:`selves`)
        is at its fixed point: the next pass gives the same tokens (each new token is judged once,
        :meth:`judge`, instead of every word that holds it being passed again). A word of ASCII letters
        and digits alone (half of the new words of a news article) is its own token: all are cached at
        once (:func:`_plain_words`), without a Python loop.
        """
        once, fixed = self.once, self.fixed
        plain = _plain_words(words)
        if plain:
            own = dict(zip(plain, zip(plain, strict=True), strict=True))  # word -> (word,)
            once.update(own)
            fixed.update(own)
            self.selves.update(plain)
            words = list(itertools.filterfalse(plain.__contains__, words))
        self.fill_once(words)
        firsts = list(map(once.__getitem__, words))
        self.judge(set(itertools.chain.from_iterable(firsts)).difference(self.selves, self.not_selves))
        selves = self.selves
        current = {}
        for w, tokens in zip(words, firsts, strict=True):
            if selves.issuperset(tokens):
                fixed[w] = tokens
            else:
                current[w] = tokens
        renormalized = self.renormalized
        for _ in range(4):
            if not current:
                break
            parts = {w: [p for tok in tokens for p in renormalized(tok)] for w, tokens in current.items()}
            self.fill_once([p for ps in parts.values() for p in ps if p not in once])
            unstable = {}
            for w, tokens in current.items():
                again = tuple(t for p in parts[w] for t in once[p])
                if again == tokens:
                    fixed[w] = tokens
                else:
                    unstable[w] = again
            current = unstable
        fixed.update(current)

    def judge(self, tokens: set[str]) -> None:
        """Put each of ``tokens`` into :attr:`selves` or :attr:`not_selves` (new tokens tokenized together)."""
        parts = {t: self.renormalized(t) for t in tokens}
        self.fill_once([t for t, p in parts.items() if p == [t] and t not in self.once])
        for t, p in parts.items():
            (self.selves if p == [t] and self.once[t] == (t,) else self.not_selves).add(t)

    def renormalized(self, token: str) -> list[str]:
        """``normalize_text(token).split()``; a token of ASCII letters and digits is already normal,
        and so is any ASCII token without what normalization changes (``_ASCII_NOT_NORMAL``)."""
        if token.isascii() and (token.isalnum() or (token and not _ASCII_NOT_NORMAL.search(token))):
            return [token]
        parts = self.normal_parts.get(token)
        if parts is None:
            parts = self.normal_parts[token] = normalize_text(token).split()
        return parts

    def fill_once(self, words: list[str]) -> None:
        """Put the tokens of one mid-text pass over each of ``words`` into :attr:`once`: all in one
        call of the tokenizer, the words separated by ``Z`` (NLTK never joins across whitespace);
        words of letters and digits alone, or :data:`_SIMPLE_WORD`, without it."""
        once = self.once
        hard = []
        for w in dict.fromkeys(words):
            if w.isascii() and w.isalnum() and w not in _CONTRACTED:
                once[w] = (w,)  # no rule of the tokenizer touches ASCII letters and digits alone
                self.selves.add(w)  # (and self.renormalized(w) is [w])
                continue
            simple = _SIMPLE_WORD.fullmatch(w)
            if simple is None or not _CONTRACTED.isdisjoint(simple.group(1).split("-")):
                hard.append(w)
                continue
            stem, end = simple.groups()  # the tokenizer's rules for these, in mid-text (see _SIMPLE_WORD)
            once[w] = (stem,) if end is None else (stem + ".",) if end == "." else (stem, end)
        for at in range(0, len(hard), _BATCH):  # bounded calls: NLTK times out a regex after 5 s
            self.tokenize_together(hard[at : at + _BATCH])

    def tokenize_together(self, words: list[str]) -> None:
        """One tokenizer call over ``words``, their tokens into :attr:`once`.

        NLTK never joins across whitespace and changes no character but ``"`` (into ``````/``''``), so
        the tokens of the words without ``"``, read in order, spell those words: each word's tokens are
        found by their lengths, with no mark between the words (a fifth less text for the tokenizer).
        The words with ``"`` come after them, each after a mark ``Z``. (If the tokens did not spell the
        words, each word would be tokenized after a mark.)
        """
        plain = [w for w in words if '"' not in w]
        quoted = [w for w in words if '"' in w]
        text = f"{_MARK} " + " ".join(plain) + "".join(f" {_MARK} {w}" for w in quoted) + f" {_MARK}"
        tokens = _WORD_TOKENIZER.tokenize(text)
        marks = _positions(tokens, _MARK)
        if len(marks) == len(quoted) + 2 and marks[0] == 0:
            body = tokens[1 : marks[1]]
            if "".join(body) == "".join(plain):
                first = dict(zip(itertools.accumulate(map(len, body)), itertools.count(1)))  # end -> tokens
                bounds = [0, *map(first.get, itertools.accumulate(map(len, plain)))]
                if None not in bounds:
                    for w, a, b in zip(plain, bounds, bounds[1:], strict=False):
                        self.once[w] = tuple(body[a:b])
                    for w, a, b in zip(quoted, marks[1:], marks[2:], strict=False):
                        self.once[w] = tuple(tokens[a + 1 : b])
                    return
        self.tokenize_marked(words)  # pragma: no cover - NLTK never joins words

    def tokenize_marked(self, words: list[str]) -> None:
        """As :meth:`tokenize_together`, each word after a mark ``Z``."""
        tokens = _WORD_TOKENIZER.tokenize(f"{_MARK} " + f" {_MARK} ".join(words) + f" {_MARK}")
        marks = _positions(tokens, _MARK)
        if len(marks) != len(words) + 1 or marks[0] != 0:  # pragma: no cover - NLTK never joins words
            for w in words:
                self.once[w] = _word_once(w, False)
            return
        for w, a, b in zip(words, marks, marks[1:], strict=False):
            self.once[w] = tuple(tokens[a + 1 : b])


_MID_TEXT = _MidTextCache()
"""The process's mid-text tokens of words (:class:`_MidTextCache`)."""


_PLAIN_END = re.compile(r"([a-z0-9]+(?:-[a-z0-9]+)*)([.?!]?)([\"']?)")
_END_QUOTE = {'"': "''", "'": "'"}


def _text_tokens(text: str, start: bool) -> tuple[str, ...]:
    """The fixed point of the tokenizer on the end of a (normalized) text, end-of-text rules
    included; ``start``: ``text`` is the whole text, else it follows other words.

    The usual end of a paragraph, a word of ASCII letters and digits (maybe hyphenated) with or without
    a period, question or exclamation mark and a closing quote after it (``cells.``, ``said."``,
    ``you?'``), is answered without the tokenizer: the mark splits off, ``"`` becomes ``''``, and no
    other rule touches such a word (as in :func:`_fill_once`); tests/data/test_tokenize_golden.py checks
    it against the tokenizer on every word of real papers and news articles with these ends.
    """
    plain = _PLAIN_END.fullmatch(text)
    if plain is not None and _CONTRACTED.isdisjoint(plain.group(1).split("-")):
        stem, mark, quote = plain.groups()
        ends = (stem, mark) if mark else (stem,)
        return (*ends, _END_QUOTE[quote]) if quote else ends
    if len(text) <= 64:  # the usual end of a text ("said .", "cnn ."): cached
        return _short_text_tokens(text, start)
    return _text_tokens_uncached(text, start)


@lru_cache(maxsize=4096)
def _short_text_tokens(text: str, start: bool) -> tuple[str, ...]:
    return _text_tokens_uncached(text, start)


def _text_tokens_uncached(text: str, start: bool) -> tuple[str, ...]:
    tokens = _tokenize_pass(text, start, end=True)
    for _ in range(4):
        again = _tokenize_pass(normalize_text(" ".join(tokens)), start, end=True)
        if again == tokens:
            break
        tokens = again
    return tuple(tokens)


def _tokenize_pass(text: str, start: bool, end: bool) -> list[str]:
    """One NLTK pass over ``text``; with ``start`` (``end``) False as if words came before
    (after) it. NLTK never joins across whitespace, so a word on either side stays a token."""
    tokens = _WORD_TOKENIZER.tokenize(("" if start else "z ") + text + ("" if end else " z"))
    if not start:
        if tokens[0] != "z":  # pragma: no cover
            raise AssertionError(f"tokenizing {text!r} changed the word before it: {tokens}")
        del tokens[0]
    if not end:
        if tokens[-1] != "z":  # pragma: no cover
            raise AssertionError(f"tokenizing {text!r} changed the word after it: {tokens}")
        del tokens[-1]
    return tokens


@lru_cache(maxsize=_CACHE_WORDS)
def _word_once(word: str, start: bool) -> tuple[str, ...]:
    """One tokenizer pass over ``word`` (no whitespace) followed by more text; ``start``: the
    word begins the text (``""x`` tokenizes differently there)."""
    if word.isascii() and word.isalnum() and word not in _CONTRACTED:
        return (word,)  # no rule of the tokenizer touches ASCII letters and digits alone
    return tuple(_tokenize_pass(word, start, end=False))


@lru_cache(maxsize=_CACHE_WORDS)
def _word_fixed(word: str, start: bool) -> tuple[str, ...]:
    """The tokens of ``word`` (no whitespace) followed by more text, at the fixed point.

    As :func:`_text_tokens`: at most four passes after the first (a word stable after fewer
    stays stable, so a word needs as many passes alone as within its text).
    """
    tokens = _word_once(word, start)
    for _ in range(4):
        words = [w for tok in tokens for w in normalize_text(tok).split()]
        again = tuple(t for i, w in enumerate(words) for t in _word_once(w, start and i == 0))
        if again == tokens:
            break
        tokens = again
    return tokens


class _Pieces(dict):
    """Token -> what it adds to the view: ``" " + token``, the token alone when it is glued to
    the one before it (``_GLUE_LEFT``), nothing for a quote mark (memoized)."""

    def __missing__(self, token: str) -> str:
        piece = "" if token in _QUOTE_TOKENS else token if token in _GLUE_LEFT else " " + token
        if len(self) < _CACHE_WORDS:
            self[token] = piece
        return piece


_PIECES = _Pieces()


def _render(tokens: Sequence[str]) -> tuple[str, list[int], int]:
    """The string pysbd reads, where each token's piece ends, and the offset of the string in them.

    Punctuation is glued to its neighbour as in ordinary prose and quote marks are left out,
    so ``word .`` and ``word.`` render alike and quotes cannot hide sentence ends from pysbd.
    A token is glued to the one before it when it is in ``_GLUE_LEFT`` or the token before it
    (a quote mark included) is in ``_GLUE_RIGHT``. ``ends[k]`` is where the piece of ``tokens[k]``
    ends in the pieces joined (a quote mark's piece is empty); the view is that string without
    its first space (offset 1), or all of it (offset 0).
    """
    pieces = list(map(_PIECES.__getitem__, tokens))  # one dict lookup per token, no Python loop
    n = len(tokens)
    for right in _GLUE_RIGHT:  # the token after "(", "[", "{", "$" (unless a quote mark) is glued to it
        k = -1
        while True:
            try:
                k = tokens.index(right, k + 1)
            except ValueError:
                break
            if k + 1 < n and pieces[k + 1]:
                pieces[k + 1] = tokens[k + 1]
    joined = "".join(pieces)
    offset = 1 if joined.startswith(" ") else 0
    return joined[offset:], list(itertools.accumulate(map(len, pieces))), offset


def _break_after(tokens: Sequence[str]) -> list[int]:
    """Indices ``k`` (ascending) such that a sentence ends after ``tokens[k]`` according to pysbd.

    A cut inside a rendered word is ignored; a cut between words ends the sentence after the
    last rendered token before it (quote marks after it are placed by :func:`_assemble`).
    """
    view, ends, offset = _render(tokens)
    quotes = _QUOTE_TOKENS
    breaks: list[int] = []
    for c in sentence_starts(view):
        if 0 < c < len(view) and (view[c - 1] == " " or view[c] == " "):
            k = bisect.bisect_right(ends, c + offset) - 1  # the last token ending at or before the cut
            while k >= 0 and tokens[k] in quotes:  # ... that is rendered (a quote mark's piece is empty)
                k -= 1
            # (a rendered token ends after the cut: the last one ends at the end of the view)
            if k >= 0 and (not breaks or breaks[-1] != k):
                breaks.append(k)
    return breaks


def _positions(tokens: Sequence[str], token: str) -> list[int]:
    """The indices of ``token`` in ``tokens`` (list.index: no Python loop over the other tokens)."""
    out: list[int] = []
    k = -1
    while True:
        try:
            k = tokens.index(token, k + 1)
        except ValueError:
            return out
        out.append(k)


def _assemble(tokens: Sequence[str], breaks: Sequence[int], starts: list[int] | None = None) -> list[list[str]]:
    """Cut ``tokens`` into sentences after the indices in ``breaks`` (ascending), sentences of the tokens'
    final forms (:func:`_final_form`, mapped over all the tokens at once, not sentence by sentence).

    Closing quotes and brackets right after a break stay with the sentence they close. A
    single ``'`` is ambiguous (it opens DailyMail quotes and closes them); it closes the
    sentence when an odd number of single quotes has been seen so far, else it opens the next.
    (```` ` ```` opens; a break inside the closers taken after an earlier break is ignored.)

    A sentence cut after a break loses the period of its last word (closing quotes and brackets
    after it skipped), as the Treebank tokenizer splits it at the end of a text: ``u.s.`` ->
    ``u.s .``, ``don't.`` -> ``do n't .``: the word without its period is an ordinary word (a token
    holds no ``"``, the one character that tokenizes differently at a text start), tokenized with
    the others (one call of the tokenizer for all the new ones).
    """
    singles = sorted(_positions(tokens, "'") + _positions(tokens, "`"))
    final = list(map(_FINAL_FORMS.__getitem__, tokens))  # what the sentences are cut from
    sentences: list[list[str]] = []
    final_periods: list[tuple[list[str], int, str]] = []  # sentence, index of its last word, the word
    single_open = False
    q = 0  # singles[:q] are before the position reached
    start = 0
    n = len(tokens)
    for b in breaks:
        if b < start:
            continue
        while q < len(singles) and singles[q] <= b:
            single_open = tokens[singles[q]] == "`" or not single_open
            q += 1
        i = b + 1
        while i < n and (tokens[i] in _CLOSERS or (tokens[i] == "'" and single_open)):
            if tokens[i] == "'":
                single_open = False
                q += 1
            i += 1
        sentence = final[start:i]
        sentences.append(sentence)
        if starts is not None:
            starts.append(start)
        j = i - 1  # its last word
        while j > start and (tokens[j] in _CLOSERS or tokens[j] == "'"):
            j -= 1
        word = tokens[j]
        if len(word) > 1 and word[-1] == "." and word[-2] != ".":
            final_periods.append((sentence, j - start, word[:-1]))
        start = i
    fixed = _MID_TEXT.fixed
    _MID_TEXT.fill(list({stem for _, _, stem in final_periods}.difference(fixed)))
    for sentence, j, stem in final_periods:
        sentence[j : j + 1] = [*map(_FINAL_FORMS.__getitem__, fixed[stem]), "."]
    if start < n:
        sentences.append(final[start:])
        if starts is not None:
            starts.append(start)
    return sentences


class _FinalForms(dict):
    """Internal token -> output token: CoreNLP bracket names, ``#`` for every digit (memoized)."""

    def __missing__(self, token: str) -> str:
        final = PTB_BRACKETS.get(token) or token.replace("0", "#")
        if len(self) < _CACHE_WORDS:
            self[token] = final
        return final


_FINAL_FORMS = _FinalForms()


def _final_form(token: str) -> str:
    """Internal token -> output token: CoreNLP bracket names, ``#`` for every digit."""
    return _FINAL_FORMS[token]


def tokenize_words(text: str) -> list[str]:
    """PTB word tokens of ``text`` in their final form, without sentence splitting.

    Only the period at the very end is split off; use :func:`split_sentences` for prose.
    """
    return [_final_form(t) for t in _word_tokens(normalize_text(text))]


def split_sentences(text: str) -> list[list[str]]:
    """Sentences of final-form tokens (no ``</s>``); empty list for a text with no tokens.

    A literal ``</s>`` in ``text`` always ends a sentence (so prepared text can be fed back).
    """
    return split_blocks([text])[0]


def split_blocks(texts: Sequence[str]) -> list[list[list[str]]]:
    """:func:`split_sentences` of each of ``texts`` (a document's paragraphs), in one pass.

    The end of each text ends a sentence; the sentence rules read all the texts as one (one
    call of the splitter per document, not per paragraph: the same cuts, and 2x faster on papers).
    """
    tokens: list[str] = []
    forced: set[int] = set()
    ends: list[int] = []
    pieces = [_normalized_blocks(text) for text in texts]
    # the new words of all the texts, tokenized together (one call of the tokenizer per document,
    # not one per paragraph); _word_tokens then finds them cached (it fills what a full cache lost)
    words = set(itertools.chain.from_iterable(itertools.chain.from_iterable(pieces)))
    if len(words) < _CACHE_WORDS:
        _MID_TEXT.fill(list(words.difference(_MID_TEXT.fixed)))
    for bs in pieces:
        for block in bs:
            if tokens:
                tokens.extend(_word_tokens(block))
            else:
                tokens = _word_tokens(block)  # (a new list: the first block's, no copy)
            if tokens:
                forced.add(len(tokens) - 1)
        ends.append(len(tokens))
    out: list[list[list[str]]] = [[] for _ in texts]
    if not tokens:
        return out
    # pysbd reads the whole text even across </s>, so that its cuts match those of a first pass
    breaks = sorted(set(_break_after(tokens)).union(forced))
    starts: list[int] = []
    sentences = _assemble(tokens, breaks, starts)
    if len(texts) == 1:
        out[0] = sentences
        return out
    for sentence, start in zip(sentences, starts, strict=True):
        out[bisect.bisect_right(ends, start)].append(sentence)
    return out


@dataclass
class Document:
    """A raw text as c2fsum reads it: its running sentences, its sections, what was left out.

    ``sentences`` are what the models read and the summarizers choose from (each a list of
    tokens ending with ``</s>``); headings are not in them but in ``sections``: ``(heading,
    index of the first sentence under it)``, in order (a heading with no sentence after it points
    one past the last); ``dropped`` counts the non-running units left out, by kind
    (:data:`c2fsum.data.layout.NON_RUNNING`); ``spans`` are the text blocks the sentences come
    from, each with the index of its first sentence (for :meth:`surface`).
    """

    sentences: list[list[str]]
    sections: list[tuple[str, int]] = field(default_factory=list)
    dropped: Counter = field(default_factory=Counter)
    spans: list[tuple[str, int]] = field(default_factory=list)

    def surface(self) -> dict[int, str]:
        """The text's own spelling of the tokens (:func:`c2fsum.data.surface.surface_forms`), found
        block by block so that a left-out table or heading never loses the place."""
        from c2fsum.data.surface import surface_forms

        out: dict[int, str] = {}
        offsets = list(itertools.accumulate((len(s) for s in self.sentences), initial=0))
        ends = [k for _, k in self.spans[1:]] + [len(self.sentences)]
        for (text, first), end in zip(self.spans, ends, strict=True):
            base = offsets[first]
            for k, spelled in surface_forms(text, self.sentences[first:end]).items():
                out[base + k] = spelled
        return out

    def written(self, wanted: Sequence[int]) -> dict[int, str]:
        """The sentences of indices ``wanted`` exactly as the text writes them (white space runs as
        one space), where that text tokenizes back to the sentence's tokens (:func:`split_sentences`
        gives one sentence, the same tokens); a sentence not so found has no entry. What extraction
        prints: ``10–20 mg`` stays ``10–20 mg``, quotes and brackets as the author typed them."""
        from c2fsum.data.surface import sentence_spans

        out: dict[int, str] = {}
        ends = [k for _, k in self.spans[1:]] + [len(self.sentences)]
        todo = set(wanted)
        for (text, first), end in zip(self.spans, ends, strict=True):
            if not todo & set(range(first, end)):
                continue
            original = unicodedata.normalize("NFKC", text) if not unicodedata.is_normalized("NFKC", text) else text
            for k, span in enumerate(sentence_spans(text, self.sentences[first:end]), first):
                if k not in todo or span is None:
                    continue
                said = " ".join(original[span[0] : span[1]].split())
                again = split_sentences(said)
                if len(again) == 1 and again[0] == [t for t in self.sentences[k] if t != EOS]:
                    out[k] = said
        return out


_CITES = re.compile(r"[eE](?<=\b[eE])[tT]\.?\s*[aA][lL]\b|<[cC][iI][tT]>")
"""``et al.`` or ``<cit>``, any case (each written to start with a character the regex engine jumps to)."""
_ET_AL = re.compile(r"et(?<=\bet)\.?\s*al\b")  # on lowercase ASCII text: the same matches, 6x faster


def _cites(text: str) -> bool:
    """``text`` holds a citation (``_CITES``): SumPubMed's ``<cit>`` found first, an ASCII text lowercased
    (a news article without either is read once by ``lower`` and once by ``_ET_AL``, not by ``_CITES``)."""
    if "<cit>" in text:
        return True
    if text.isascii():
        low = text.lower()
        return "<cit>" in low or bool(_ET_AL.search(low))
    return bool(_CITES.search(text))


def preprocess_document(text: str) -> Document:
    """``text`` read block by block (:func:`c2fsum.data.layout.blocks`): headings become sections,
    non-running text is counted and left out, each paragraph of running text is split into
    sentences (:func:`split_sentences`; a paragraph ends a sentence), and sentences that are
    themselves not running text (a licence sentence, a bare URL; in a paper, a text with headings
    or citations, a funding statement) are left out and counted; so is every sentence under a
    heading that names the back matter
    (:func:`c2fsum.data.layout.heading_kind`: ``acknowledgements``, ``competing interests``), which
    is no section."""
    doc = Document(sentences=[])
    parts = blocks(text)
    split = iter(split_blocks([b.text for b in parts if b.kind == "text"]))
    under: str | None = None  # the kind of statements the last heading names (acknowledgements): all its text
    # a paper (headings, or citations: "et al.", SumPubMed's <cit>), whose statements are the back matter's; a
    # news article's "we thank ..." is a quote
    paper = any(block.kind == "heading" for block in parts) or _cites(text)
    for block in parts:
        if block.kind == "heading":
            said = statement_kind(block.text.lower())  # a statement without its period ("this work is supported by")
            if said:
                doc.dropped[said] += 1
                continue
            under = heading_kind(block.text)
            if under is None:
                doc.sections.append((block.text, len(doc.sentences)))
        elif block.kind != "text":
            doc.dropped[block.kind] += 1
        else:
            first = len(doc.sentences)
            sentences = next(split)
            kinds = sentence_kinds(block.text, sentences, statements=paper)
            if under:  # (each sentence of the section: of its own kind, if any, else of the section's)
                kinds = [kind or under for kind in kinds]
            if not any(kinds):  # (the usual paragraph: all running text)
                for sentence in sentences:
                    sentence.append(EOS)  # (split_blocks' lists are new, this document's own)
                doc.sentences.extend(sentences)
            else:
                for sentence, kind in zip(sentences, kinds, strict=True):
                    if kind:
                        doc.dropped[kind] += 1
                    else:
                        sentence.append(EOS)
                        doc.sentences.append(sentence)
            if len(doc.sentences) > first:
                doc.spans.append((block.text, first))
    return doc


def preprocess_article(text: str) -> list[list[str]]:
    """An article as a list of sentences, each a list of tokens ending with ``</s>``: the running
    text of :func:`preprocess_document` (headings and non-running text left out)."""
    return preprocess_document(text).sentences


def preprocess_summary(text: str) -> list[str]:
    """A summary (one highlight, or several joined) as one flat token list, no ``</s>``."""
    return [tok for sentence in split_sentences(text) for tok in sentence]


def preprocess_highlights(highlights: Sequence[str]) -> list[list[str]]:
    """Each highlight's tokens (:func:`preprocess_summary`); highlights without tokens dropped."""
    out = [preprocess_summary(h) for h in highlights]
    return [h for h in out if h]
