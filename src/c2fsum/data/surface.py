"""The document's own spelling of each token: case and digits that preprocessing takes away.

:func:`c2fsum.data.tokenize.preprocess_article` lowercases and writes every digit as ``#``, which
is what the models read and write. A summary a person reads should say ``Sofia Vergara`` and
``$1.5 million``, so the original spelling of each source token is kept beside it::

    text      "Sofia Vergara paid $1,500 in 2015."
    tokens    sofia  vergara  paid  $  #,###  in  ####  .  </s>
    surface   {0: "Sofia", 1: "Vergara", 4: "1,500", 6: "2015"}

``surface`` maps the index of a token in the flattened sentences (``</s>`` counted) to its
spelling in the text, only where the two differ; a token whose spelling is not found (a
bracket, a quote mark, a word the tokenizer rewrote) has no entry and keeps its token form.
``prepare`` stores it as the document's ``"surface"`` field (keys as strings, JSON), and
:class:`c2fsum.pipeline.Pipeline` computes it for raw text; :func:`surface_cells` lays it on the
reading grid beside ``Example.words``.

How a token is found: the text is compared in the tokenizer's own form, one character for one
character (NFKC, lowercase, every digit ``#``, typographic single quotes ``'``), from a cursor
that moves forward token by token; a token is looked for in the next :data:`WINDOW` characters
only, so a token the tokenizer rewrote is skipped without losing the place.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import cast

WINDOW = 200
"""Characters after the cursor in which the next token is looked for."""

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'"})


def _comparable(text: str) -> str:
    """``text`` one character for one character in the tokenizer's form: lowercase (where that
    keeps one character), digits and ``#`` as ``#``, typographic single quotes as ``'``. One
    ``str.translate`` with a table of the characters the text holds (a 100,000-word text has a
    few hundred distinct ones), not a Python step per character."""
    text = text.translate(_QUOTES)
    table = {}
    for ch in set(text):
        low = ch.lower()
        if ch.isdigit():
            table[ord(ch)] = "#"
        elif len(low) == 1 and low != ch:
            table[ord(ch)] = low
    return text.translate(table)


@lru_cache(maxsize=1 << 16)
def _has_word_char(token: str) -> bool:
    """Cached: asked of every token of a document, whose tokens repeat."""
    return any(ch.isalnum() or ch == "#" for ch in token)


def surface_forms(text: str, sentences: Sequence[Sequence[str]]) -> dict[int, str]:
    """The spelling in ``text`` of each token of ``sentences`` (its tokenization) where it differs.

    Args:
        text: the raw document.
        sentences: ``preprocess_article(text)`` (or any prefix of it): sentences of tokens, ``</s>``
            counted in the flat index.

    Returns:
        ``{flat index: spelling}`` for tokens with a letter or digit whose spelling differs from
        the token (case or digits); tokens not found have no entry.
    """
    original = unicodedata.normalize("NFKC", text) if not unicodedata.is_normalized("NFKC", text) else text
    seen = _comparable(original)
    out: dict[int, str] = {}
    cursor = 0
    index = -1
    for sentence in sentences:
        for token in sentence:
            index += 1
            if not _has_word_char(token) or token.startswith("-") and token.endswith("-") and len(token) == 5:
                continue  # punctuation and -lrb- brackets: their form comes from the token
            at = seen.find(token, cursor, cursor + WINDOW + len(token))
            if at < 0:
                continue
            cursor = at + len(token)
            spelled = original[at:cursor]
            if spelled != token:
                out[index] = spelled
    return out


def sentence_spans(text: str, sentences: Sequence[Sequence[str]]) -> list[tuple[int, int] | None]:
    """Where each of ``sentences`` (the tokenization of ``text``, or of a prefix of it) is written
    in ``text`` put in NFKC form (``text`` itself when it is), as ``(start, end)`` character
    offsets: from its first token found to its last, widened over the marks glued to them (an
    opening bracket or quote before, the sentence's period and closing quotes after); None for a
    sentence none of whose words is found. Found as :func:`surface_forms` finds spellings, one
    cursor moving forward; a caller that must be sure tokenizes the span again (extraction does).
    """
    original = unicodedata.normalize("NFKC", text) if not unicodedata.is_normalized("NFKC", text) else text
    seen = _comparable(original)
    out: list[tuple[int, int] | None] = []
    cursor = 0
    for sentence in sentences:
        first = last = None
        for token in sentence:
            if not _has_word_char(token) or token.startswith("-") and token.endswith("-") and len(token) == 5:
                continue
            at = seen.find(token, cursor, cursor + WINDOW + len(token))
            if at < 0:
                continue
            cursor = at + len(token)
            first = at if first is None else first
            last = cursor
        if first is None or last is None:
            out.append(None)
            continue
        floor = out[-1][1] if out and out[-1] is not None else 0
        while first > floor and _glued_mark(original[first - 1]):
            first -= 1
        while last < len(original) and _glued_mark(original[last]):
            last += 1
        cursor = max(cursor, last)
        out.append((first, last))
    return out


def _glued_mark(ch: str) -> bool:
    """A character that belongs to the word it touches without being one: punctuation or a symbol."""
    return not ch.isspace() and not ch.isalnum()


def parse_surface(value: object, where: str = "surface") -> dict[int, str]:
    """A stored ``"surface"`` field (``{"17": "Brisbane", ...}``) as ``{17: "Brisbane"}``.

    ValueError naming ``where`` for anything else than an object of index strings to strings.
    """
    if not isinstance(value, Mapping):
        raise ValueError(f"{where}: expected an object {{token index: spelling}}, got {type(value).__name__}")
    out = {}
    for key, spelled in value.items():
        if not (isinstance(key, str) and key.isdigit() and isinstance(spelled, str)):
            raise ValueError(f"{where}: expected token index -> string, got {key!r}: {spelled!r}")
        out[int(key)] = spelled
    return out


def surface_cells(
    sentences: Sequence[Sequence[str]],
    surface: Mapping[int, str],
    *,
    chunks: int,
    chunk_len: int,
    chunking: str = "fixed",
    max_words: int = 0,
) -> list[str]:
    """The spelling of each cell of the document's grid, aligned with ``Example.words``.

    The grid is laid out exactly as :func:`c2fsum.data.grid.make_grid` lays out ``sentences``
    (same arguments); a cell without a ``surface`` entry keeps its token (``<pad>`` included).
    """
    from c2fsum.data.grid import PAD, make_grid  # torch: not for surface_forms, which extraction uses

    if chunking == "fixed":  # the grid is the flat prefix of the document: cell c is token c
        grid = make_grid(cast(list[list[str]], sentences), chunks, chunk_len, max_words=max_words)  # read only
        return [surface.get(c, w) for c, w in enumerate(grid.words)]
    flat = [w for s in sentences for w in s]
    numbered, k = [], 0
    for s in sentences:
        numbered.append([str(k + j) for j in range(len(s))])
        k += len(s)
    grid = make_grid(numbered, chunks, chunk_len, chunking=chunking, max_words=max_words)
    return [PAD if cell == PAD else surface.get(int(cell), flat[int(cell)]) for cell in grid.words]
