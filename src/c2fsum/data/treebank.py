"""The Treebank word tokenizer c2fsum reads with: NLTK's ``NLTKWordTokenizer`` rules, importable
without NLTK.

``import nltk`` runs NLTK's whole package (its collocations import ``scipy.stats``): 0.6-1.5 s
of start-up, most of ``c2fsum extract``'s time on a long paper once torch was gone (issue 36).
The rules below are NLTK 3.10's ``NLTKWordTokenizer.tokenize`` (Apache License 2.0, (C) NLTK
Project), with the one change c2fsum made to them (``''`` is always a closing quote, see
:class:`TreebankWordTokenizer`), run in the same order with the stdlib ``re`` engine.
``tests/data/test_treebank.py`` checks that they give NLTK's tokens, token for token, on every
word of real papers and news and on generated text; NLTK stays the reference there.
"""

from __future__ import annotations

import re

STARTING_QUOTES = [
    (re.compile(r"([«“‘„]|[`]+)"), r" \1 "),
    (re.compile(r'^"'), r"``"),
    (re.compile(r"(``)"), r" \1 "),
    # NLTK: r"([ \(\[{<])(\"|\'{2})"; c2fsum leaves '' after a space a closing quote
    (re.compile(r'([ \(\[{<])"'), r"\1 `` "),
    (re.compile(r"(?i)(?<!\w)(')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)"), r"\1 "),
]
"""Opening quotes (c2fsum's version: see :class:`TreebankWordTokenizer`)."""

PUNCTUATION = [
    (re.compile(r"([^\.])(\.)([\]\)}>\"\'»”’ ]*+)\s*$"), r"\1 \2 \3 "),
    (re.compile(r"([:,])([^\d])"), r" \1 \2"),
    (re.compile(r"([:,])$"), r" \1 "),
    (re.compile(r"\.{2,}"), r" \g<0> "),
    (re.compile(r"[;@#$%&]"), r" \g<0> "),
    (re.compile(r"[\u2012-\u2015]"), r" \g<0> "),  # figure dash, en dash, em dash, horizontal bar
    (re.compile(r"([^\.])(\.)([\]\)}>\"\']*)\s*$"), r"\1 \2\3 "),  # the final period
    (re.compile(r"[?!]"), r" \g<0> "),
    (re.compile(r"([^'])' "), r"\1 ' "),
    (re.compile(r"[*]"), r" \g<0> "),
]

PARENS_BRACKETS = (re.compile(r"[\]\[\(\)\{\}\<\>]"), r" \g<0> ")
DOUBLE_DASHES = (re.compile(r"--"), r" -- ")

ENDING_QUOTES = [
    (re.compile(r"([»”’])"), r" \1 "),
    (re.compile(r"''"), " '' "),
    (re.compile(r'"'), " '' "),
    (re.compile(r"\s+"), " "),
    (re.compile(r"([^' ])('[sS]|'[mM]|'[dD]|') "), r"\1 \2 "),
    (re.compile(r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), r"\1 \2 "),
]

CONTRACTIONS2 = [
    re.compile(p)
    for p in (
        r"(?i)\b(can)(?#X)(not)\b",
        r"(?i)\b(d)(?#X)('ye)\b",
        r"(?i)\b(gim)(?#X)(me)\b",
        r"(?i)\b(gon)(?#X)(na)\b",
        r"(?i)\b(got)(?#X)(ta)\b",
        r"(?i)\b(lem)(?#X)(me)\b",
        r"(?i)\b(more)(?#X)('n)\b",
        r"(?i)\b(wan)(?#X)(na)(?=\s)",
    )
]
CONTRACTIONS3 = [re.compile(r"(?i) ('t)(?#X)(is)\b"), re.compile(r"(?i) ('t)(?#X)(was)\b")]


class TreebankWordTokenizer:
    """NLTK's improved Treebank tokenizer, except that ``''`` is always a closing quote.

    NLTK turns ``''`` after a space into an opening quote; in PTB-tokenized text every ``''``
    follows a space, so without this change ``'' he said`` would not survive a second pass.
    """

    def tokenize(self, text: str) -> list[str]:
        """The tokens of ``text`` (NLTK's ``NLTKWordTokenizer.tokenize(text)``, c2fsum's quotes)."""
        for regexp, substitution in STARTING_QUOTES:
            text = regexp.sub(substitution, text)
        for regexp, substitution in PUNCTUATION:
            text = regexp.sub(substitution, text)
        regexp, substitution = PARENS_BRACKETS
        text = regexp.sub(substitution, text)
        regexp, substitution = DOUBLE_DASHES
        text = regexp.sub(substitution, text)
        text = " " + text + " "
        for regexp, substitution in ENDING_QUOTES:
            text = regexp.sub(substitution, text)
        for regexp in CONTRACTIONS2:
            text = regexp.sub(r" \1 \2 ", text)
        for regexp in CONTRACTIONS3:
            text = regexp.sub(r" \1 \2 ", text)
        return text.split()
