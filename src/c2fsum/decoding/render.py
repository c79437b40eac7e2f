"""A summary as text a person reads: the model's tokens spelled as the document spells them.

The models read and write c2fsum's internal tokens (:mod:`c2fsum.data.tokenize`): lowercase, PTB
tokens, every digit ``#``, ``<unk>`` for a word outside the vocabulary, SumPubMed's ``<dig>``
and ``<cit>`` split into ``< dig >``. :func:`render` turns them into prose::

    tokens   -lrb- cnn -rrb- sofia vergara 's ex-fiance paid $ #.# million . </s>
    text     (CNN) Sofia Vergara's ex-fiance paid $1.5 million.

One rule per step, in this order:

1. **Copied spans** (:func:`align`): each output word is matched to the source cell it copies,
   preferring the longest run of output words that continues in the source, then the cell the
   model attended to most at that step (``attention`` ``(T, L)``).
2. **Spelling** (:func:`restore`): a word gets the spelling of its cell (``Example.surface``:
   case and digits); a word that opens a source sentence takes the spelling the document uses
   elsewhere (``The`` mid-summary is ``the``). A number the document does not hold (``##``
   made up by the model) becomes the number attended to most, as ``<unk>`` becomes the word
   attended to most; with no attention either is left out, never printed as ``#`` or
   ``<unk>``.
3. **Placeholders**: ``< dig >`` (a number the dataset removed) is written :data:`NUMBER`, and
   ``< cit >`` (a removed citation), ``<pad>``, ``<s>`` and ``</s>`` are left out.
4. **Whole sentences**: the text ends at the summary's last complete sentence (a summary cut at
   the length limit, or written by a model trained on targets cut to that length, stops
   mid-sentence); one with no complete sentence gets a final period.
5. **Detokenization** (:func:`detokenize`): the inverse of the tokenizer's splits (``do n't`` ->
   ``don't``, ``-lrb-`` -> ``(``, ``` `` `` -> ``“``), and a capital at each sentence start.

``Summary.tokens`` and ROUGE keep the model's tokens; only ``Summary.text`` (and the ``text`` of
``predictions.jsonl``, the HTTP API and the page) is rendered. Tokenizing the text again gives
the model's tokens back, up to case and restored numbers (tests/decoding/test_render.py).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from c2fsum.decoding.postprocess import ends_sentence_at, last_sentence_end
from c2fsum.utils.tokens import CLOSERS

if TYPE_CHECKING:  # torch only where attention is read: extraction renders without it
    from torch import Tensor

NUMBER = "N"
"""How a ``<dig>`` of SumPubMed (a number the dataset removed, not known to anyone) is written."""

_BRACKETS = {"-lrb-": "(", "-rrb-": ")", "-lsb-": "[", "-rsb-": "]", "-lcb-": "{", "-rcb-": "}"}
_OPEN_QUOTE, _CLOSE_QUOTE = "\u201c", "\u201d"
_SPECIAL = frozenset({"<s>", "</s>", "<pad>"})
_NO_SPACE_BEFORE = frozenset(
    {".", ",", ";", ":", "?", "!", "%", ")", "]", "}", "...", "''", "'", "n't", "'s", "'m", "'d", "'ll", "'re", "'ve"}
)
_NO_SPACE_AFTER = frozenset({"(", "[", "{", "$", "``", "`"})
_MAX_CANDIDATES = 4000  # source cells examined for one output word (a word as common as "the")


@lru_cache(maxsize=1 << 16)
def _is_word(token: str) -> bool:
    """A token with a letter or digit (``#``), not a bracket or a special token; cached: a long
    document asks it of each of its cells twice, and its tokens repeat."""
    return any(ch.isalnum() or ch == "#" for ch in token) and token not in _BRACKETS and token not in _SPECIAL


def _shouted(spelling: str) -> bool:
    """Written in capitals, as a heading or an acronym is (``RESULTS``, ``FBI``; not ``I`` or ``A``)."""
    return len(spelling) > 1 and spelling.isupper()


def _is_number(token: str) -> bool:
    return "#" in token


def _opens_sentence(source: Sequence[str], cell: int) -> bool:
    """Does ``source[cell]`` open a sentence: a word with no word between it and the last ``</s>``
    or ``<pad>`` before it (or the start)? Read backwards from the cell, so a long document is
    not scanned whole for the few cells a summary asks about."""
    if not _is_word(source[cell]):
        return False
    for j in range(cell - 1, -1, -1):
        w = source[j]
        if w == "</s>" or w == "<pad>":
            return True
        if _is_word(w):
            return False
    return True


def _cells_by_token(source: Sequence[str], only: frozenset[str] | None = None) -> dict[str, list[int]]:
    """Token -> the cells that hold it, ascending (special tokens left out; with ``only``, the
    tokens in it alone: a summary asks about a few hundred of a long document's words)."""
    where: dict[str, list[int]] = defaultdict(list)
    if only is None:
        for c, w in enumerate(source):
            if w not in _SPECIAL:
                where[w].append(c)
    else:
        wanted = only - _SPECIAL
        for c, w in enumerate(source):
            if w in wanted:
                where[w].append(c)
    return where


def align(
    tokens: Sequence[str],
    source: Sequence[str],
    attention: Tensor | None = None,
    where: dict[str, list[int]] | None = None,
) -> list[int | None]:
    """The source cell each output token copies (None: not in the source, or a special token).

    Args:
        tokens: the model's output tokens, length T.
        source: the grid's cells in reading order (``Example.words``), length L.
        attention: ``(T', L')`` with ``T' >= T``: the attention of each step over the cells
            (``Summary.attention.flatten(1)``); only ``[:T, :L]`` is read. None: no tie-breaking
            by attention.
        where: :func:`_cells_by_token` of ``source``, when the caller has it already.

    A word continues the span of the word before it when the next cell holds it; otherwise the
    cell that starts the longest run of following output words in the source wins, ties going
    to the higher attention, then to the earlier cell.
    """
    where = _cells_by_token(source) if where is None else where
    att = attention[: len(tokens), : len(source)] if attention is not None else None
    cells: list[int | None] = []
    for i, tok in enumerate(tokens):
        prev = cells[-1] if cells else None
        if tok not in where:
            cells.append(None)
            continue
        if prev is not None and prev + 1 < len(source) and source[prev + 1] == tok:
            cells.append(prev + 1)
            continue
        candidates = where[tok][:_MAX_CANDIDATES]
        runs = []
        for c in candidates:
            run = 1
            while i + run < len(tokens) and c + run < len(source) and source[c + run] == tokens[i + run]:
                run += 1
            runs.append(run)
        longest = max(runs)
        tied = [c for c, run in zip(candidates, runs, strict=True) if run == longest]
        if att is not None and i < att.size(0) and len(tied) > 1:  # the most attended (argmax: the first of equals)
            cells.append(tied[int(att[i, tied].argmax())])
        else:
            cells.append(tied[0])
    return cells


def _attended(step: int, source: Sequence[str], attention: Tensor | None, want) -> int | None:
    """The cell of highest attention at ``step`` among those whose token satisfies ``want``
    (the first cell among equal weights).

    The cells are examined in the order of a stable descending sort of the row: first the few
    above the 64th highest weight (sorted alone: usually the answer is there), then the rest of
    the whole row's order, read in blocks (a 100,000-word row is not turned into a Python list
    for each word).
    """
    if attention is None or step >= attention.size(0):
        return None
    import torch

    row = attention[step, : len(source)]
    kth = torch.topk(row, min(64, row.numel())).values[-1]
    above = torch.nonzero(row > kth).flatten()  # ascending cells: the stable sort keeps their order on ties
    for c in above[torch.sort(row[above], descending=True, stable=True).indices].tolist():
        if want(source[c]):
            return c
    rest = torch.sort(row, descending=True, stable=True).indices[above.numel() :]  # the cells above come first
    for block in rest.split(4096):
        for c in block.tolist():
            if want(source[c]):
                return c
    return None


def restore(
    tokens: Sequence[str],
    source: Sequence[str] | None = None,
    surface: Sequence[str] | None = None,
    attention: Tensor | None = None,
    where: dict[str, list[int]] | None = None,
) -> list[str | None]:
    """Each output token spelled as the document spells it; None for a token to leave out.

    Args:
        tokens: the model's output tokens, length T.
        source: ``Example.words`` (length L) or None (no document: tokens stay as they are,
            masked numbers and ``<unk>`` are left out).
        surface: ``Example.surface`` (length L), the document's spelling of each cell, or None.
        attention: ``(T', L')``, ``T' >= T``, attention of each step over the cells, or None.
        where: the cells of each of a set of tokens that holds all of ``tokens``
            (:func:`_cells_by_token` of ``source`` with ``only``), when the caller renders several
            token lists against one long document (:func:`render_sentences`); the same output.
    """
    src = list(source or [])
    spelled = list(surface) if surface is not None and len(surface) == len(src) else src
    asked = frozenset(tokens)
    where = _cells_by_token(src, asked) if where is None else where
    usual_of: dict[str, Counter] = {}

    def usual(w: str) -> Counter:
        """The spellings of ``w`` away from sentence starts, most common first (only for the words asked)."""
        if w not in usual_of:
            cells = where.get(w, ()) if w in asked else [c for c, x in enumerate(src) if x == w]
            usual_of[w] = Counter(spelled[c] for c in cells if not _opens_sentence(src, c))
        return usual_of[w]

    def spelling(cell: int) -> str:
        w = src[cell]
        if _is_number(w):
            return spelled[cell]
        if _shouted(spelled[cell]):  # a heading (RESULTS) or an acronym (FBI): as the document writes it otherwise
            calm = [s for s, _ in usual(w).most_common() if not _shouted(s)]
            return calm[0] if calm else spelled[cell]
        if not _opens_sentence(src, cell):
            return spelled[cell]
        if usual(w):
            return usual(w).most_common(1)[0][0]
        return spelled[cell].lower() if spelled[cell][1:].islower() else spelled[cell]

    cells = align(tokens, src, attention, where) if src else [None] * len(tokens)
    out: list[str | None] = []
    for i, (tok, cell) in enumerate(zip(tokens, cells, strict=True)):
        if cell is not None and _is_word(tok):
            out.append(spelling(cell))
        elif cell is None and (tok == "<unk>" or _is_number(tok)):
            if tok == "<unk>":
                # not the word beside it: "the <unk> transposon" must not become "transposon transposon"
                beside = {tokens[j] for j in (i - 1, i + 1) if 0 <= j < len(tokens)}
                cell = _attended(i, src, attention, lambda w, b=beside: _is_word(w) and w != "<unk>" and w not in b)
            else:
                cell = _attended(i, src, attention, _is_number)
            out.append(spelling(cell) if cell is not None else None)
        else:
            out.append(tok)
    return out


def _number_at(tokens: Sequence[str], i: int) -> bool:
    """Does a number start at ``tokens[i]`` (digits as ``#``, or SumPubMed's ``< dig >``)?"""
    if i >= len(tokens):
        return False
    return _is_number(tokens[i]) or tokens[i] == "<dig>" or tokens[i : i + 2] == ["<", "dig"]


def _placeholders(tokens: Sequence[str], spelled: list[str | None]) -> list[tuple[str, str | None]]:
    """``(token, spelling)`` pairs with ``< dig >`` as one :data:`NUMBER` and ``< cit >`` dropped;
    a ``<`` or ``>`` not before a number is left out (the PubMed models write ``< was >``, their
    placeholders' brackets around a word)."""
    out: list[tuple[str, str | None]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "<" and i + 1 < len(tokens) and tokens[i + 1] in ("dig", "cit"):
            if tokens[i + 1] == "dig":
                out.append((NUMBER, NUMBER))
            i += 3 if i + 2 < len(tokens) and tokens[i + 2] == ">" else 2  # "< dig" cut before its ">"
            if tokens[i - 2 if tokens[i - 1] == ">" else i - 1] == "cit":
                i += _without_pointer(out, tokens[i] if i < len(tokens) else None)
            continue
        if tok in ("<dig>", "<cit>"):  # a vocabulary that kept them whole
            if tok == "<dig>":
                out.append((NUMBER, NUMBER))
        elif tok in ("<", ">") and not _number_at(tokens, i + 1):
            pass  # a placeholder's bracket around a word ("< was >", "< did not"): a sign compares numbers
        elif tok not in _SPECIAL:
            out.append((tok, spelled[i]))
        i += 1
    return out


_CITING = frozenset({"e.g.", "e.g", "eg", "i.e.", "see", "cf.", "by", "please"})
"""Words that only lead to a citation: with the citation left out before a mark they go too."""


def _without_pointer(out: list[tuple[str, str | None]], after: str | None) -> int:
    """A citation left out just before ``after`` (a mark, or the end): the word that led to it
    ("e.g.", "see", "by") goes from ``out``, with a comma before it ("function , e.g. < cit > ;"
    reads "function;") or the brackets around it ("( see < cit > )"). Returns how many of the
    tokens that follow are skipped (1: the closing bracket)."""
    if after not in (".", ",", ";", ":", "-rrb-", ")", None) or not out or out[-1][0] not in _CITING:
        return 0
    while out and out[-1][0] in _CITING:  # "see e.g. < cit >", "please see < cit >"
        out.pop()
    if out and out[-1][0] in ("-lrb-", "(") and after in ("-rrb-", ")"):
        out.pop()
        return 1
    if out and out[-1][0] == "," and after not in ("-rrb-", ")"):
        out.pop()
    return 0


def whole_sentences(pairs: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
    """``pairs`` up to the end of their last complete sentence (closing quotes and brackets kept;
    :func:`~c2fsum.decoding.postprocess.last_sentence_end`, the rule the decoded tokens are cut
    by); all of them with a final period when no sentence is complete."""
    last = last_sentence_end([t for t, _ in pairs])
    if last >= 0:
        return pairs[: last + 1]
    return _with_end(pairs)


def detokenize(pairs: Sequence[tuple[str, str | None]]) -> str:
    """Prose from ``(token, spelling)`` pairs: the tokenizer's splits undone, brackets and quotes
    as characters, a capital at each sentence start; a pair with spelling None is left out."""
    pieces: list[str] = []
    glue_next = True
    capital = True
    single_open = False  # a lone ' opens a quote when none is open, else closes it (as the tokenizer's rule)
    double_open = False  # a '' with no quote open, after a closing bracket, before a word, opens one
    kept = [(t, s) for t, s in pairs if s is not None]
    kept_tokens = [t for t, _ in kept]

    def opens_double(k: int) -> bool:
        """``tokens[k]`` opens a double quote: ```` `` ```` does; so does a ``''`` the tokenizer read
        as closing because it followed a bracket with no space (``(Reporter)"Grace``), when no quote
        is open and a word follows."""
        if kept_tokens[k] == "``":
            return True
        after_bracket = k == 0 or _BRACKETS.get(kept_tokens[k - 1]) in (")", "]", "}")
        return not double_open and after_bracket and k + 1 < len(kept_tokens) and _is_word(kept_tokens[k + 1])

    for k, (tok, spelled) in enumerate(kept):
        assert spelled is not None
        if tok in _BRACKETS:
            word = _BRACKETS[tok]
        elif tok in ("``", "''"):
            word = _OPEN_QUOTE if opens_double(k) else _CLOSE_QUOTE
        elif tok == "--":
            word = "\u2014"
        else:
            word = spelled
        if capital and _is_word(tok) and word[:1].islower():
            word = word[0].upper() + word[1:]
        if _is_word(tok) or tok in (NUMBER,):
            capital = False
        if ends_sentence_at(kept_tokens, k):
            capital = True
        opens = (tok == "'" and not single_open) or word == _OPEN_QUOTE
        if tok == "'":
            single_open = not single_open
        if tok in ("``", "''"):
            double_open = word == _OPEN_QUOTE
        no_space = glue_next or (tok in _NO_SPACE_BEFORE and not opens) or _BRACKETS.get(tok) in (")", "]", "}")
        if tok == "." and k and _is_word(kept_tokens[k - 1]) and pieces[-1].endswith("."):
            continue  # "et al. ." (a citation removed between): the abbreviation's period ends the sentence
        pieces.append(word if no_space else " " + word)
        glue_next = opens or tok in _NO_SPACE_AFTER or _BRACKETS.get(tok) in ("(", "[", "{")
    return "".join(pieces)


def render(
    tokens: Sequence[str],
    *,
    source: Sequence[str] | None = None,
    surface: Sequence[str] | None = None,
    attention: Tensor | None = None,
) -> str:
    """The summary ``tokens`` as text a person reads (see the module docstring).

    Args:
        tokens: the model's output tokens (``Summary.tokens``), length T, without ``</s>``.
        source: the grid's cells in reading order (``Example.words``), length L, or None.
        surface: the document's spelling of each cell (``Example.surface``), length L, or None.
        attention: ``(T', M, N)`` or ``(T', L')`` with ``T' >= T``: attention of each output step
            over the grid (``Summary.attention``), or None.

    The text ends at the last complete sentence: a summary cut at the length limit, or written
    by a model trained on targets cut to that length (the PubMed models write ``</s>`` anywhere),
    never ends mid-sentence.
    """
    att = attention.flatten(1).float() if attention is not None and attention.dim() > 2 else attention
    return _rendered(tokens, restore(tokens, source, surface, att))


def _rendered(tokens: Sequence[str], spelled: list[str | None]) -> str:
    pairs: list[tuple[str, str | None]] = [(t, s) for t, s in _placeholders(tokens, spelled) if s is not None]
    return detokenize(whole_sentences(_without_dateline(pairs)))


def render_sentences(
    sentences: Sequence[Sequence[str]], *, source: Sequence[str], surface: Sequence[str] | None = None
) -> list[str]:
    """:func:`render` of each of ``sentences`` (token lists, no attention) against one document:
    the document is indexed once for all of them, not once each (extraction of 250 words from a
    100,000-word text renders about a dozen sentences)."""
    src = list(source)
    where = _cells_by_token(src, frozenset(t for s in sentences for t in s))
    return [_rendered(s, restore(s, src, surface, None, where)) for s in sentences]


DATELINE_WORDS = 4
"""A bracketed group of at most this many tokens opening a summary, ``(CNN)``, ``(AP)`` or
``(CNN Student News)``, optionally followed by ``--``, is the news agency's dateline."""


def _without_dateline(pairs: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
    """``pairs`` without the agency dateline they open with, when other words follow it: the
    reader meets the summary's first sentence, not ``(CNN) --`` (the model's tokens keep it)."""
    if not pairs or _BRACKETS.get(pairs[0][0]) != "(":
        return pairs
    close = next((i for i, (t, _) in enumerate(pairs[: DATELINE_WORDS + 2]) if _BRACKETS.get(t) == ")"), None)
    if close is None or close < 2:
        return pairs
    inside = [s or t for t, s in pairs[1:close]]
    if not all(w[:1].isupper() for w in inside):  # an agency's name, as the document writes it
        return pairs
    rest = close + 1
    while rest < len(pairs) and pairs[rest][0] in ("--", "-", ":"):
        rest += 1
    return pairs[rest:] if any(_is_word(t) for t, _ in pairs[rest:]) else pairs


def _with_end(pairs: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
    """A summary the model ended without a sentence end: a final period (after closing quotes
    and brackets the period goes before them)."""
    if not pairs:
        return pairs
    k = len(pairs)
    while k > 0 and pairs[k - 1][0] in CLOSERS:
        k -= 1
    if k > 0 and ends_sentence_at([t for t, _ in pairs[:k]], k - 1):
        return pairs
    if k > 0 and pairs[k - 1][0] in (",", ";", ":", "--"):
        return [*pairs[: k - 1], (".", "."), *pairs[k:]]
    return [*pairs[:k], (".", "."), *pairs[k:]]
