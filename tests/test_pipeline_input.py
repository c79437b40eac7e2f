"""``leading_words`` (the pipeline's bound on what it reads) against its definition, a regex scan."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from c2fsum.pipeline import leading_words

_WORD = re.compile(r"\S+")
PIECES = ["a", "bc", "x.", "é", " ", "  ", "\n", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2003"]


def reference(text: str, n: int) -> str:
    """Up to the end of the n-th whitespace-separated word; all of ``text`` if it has fewer."""
    for i, m in enumerate(_WORD.finditer(text)):
        if i + 1 == n:
            return text[: m.end()]
    return text


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join), st.integers(0, 8))
def test_leading_words_is_the_text_up_to_the_nth_word(text, n):
    assert leading_words(text, n) == reference(text, n)


def test_leading_words_by_hand():
    assert leading_words("  one two\tthree\n", 2) == "  one two"
    assert leading_words("one two ", 2) == "one two"
    assert leading_words("one", 5) == "one"
    assert leading_words("one two", 0) == "one two"
