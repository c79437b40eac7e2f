"""Textual units of a sentence from a shallow parse: the head and its deletable parts.

BERKELEY (Durrett, Berg-Kirkpatrick & Klein 2016) compresses sentences by deleting optional
constituents found in a syntactic parse. No full parser installs and runs offline here (spaCy has
no English model without a download; stanza and benepar are unavailable), so the parse is
TextBlob's bundled Pattern shallow parser (Brill-style tagger + chunker): each token gets a Penn
POS tag and a chunk tag (``B-NP``, ``I-VP``, ``B-PP``, ...). The deletion rules below read those
tags; each rule gives a token span ``[start, end)`` that may be dropped as one unit.

Kinds, in the order they win when two candidate spans cross (nested spans are kept, nested):

* ``paren``: a bracketed part, ``-lrb- ... -rrb-`` / ``( ... )`` / ``[ ... ]`` with its brackets,
  or a dash-enclosed part ``-- ... --`` with its dashes (or a last ``-- ...`` up to the final mark;
  a single ``-`` is not a dash: PubMed writes ranges with it);
* ``relcl``: a non-restrictive relative clause, ``, who|which|whose|whom|where ... ,`` (the clause
  holds a verb), up to the next comma or the final mark;
* ``appos``: an appositive, ``NP , NP ... ,`` after a noun: the part between the commas has no
  finite verb (``VBD``/``VBZ``/``VBP``/``MD``) and no ``;``, ends at a comma or the sentence's
  end, starts with a determiner, a possessive or a number
  (a bare noun there is more often a list: ``crosby , stills & nash``), holds no ``and``/``or``
  and none of the next three commas is followed by one (a list again: ``# % , ## % , and ## %``),
  is at most 15 tokens (2 or more, or one number, not after a month or number: ``john , ## ,
  said``, not ``march # , ####``)
  and the closing comma is not followed by ``and``/``or``/``but`` (a list, not an appositive);
* ``intro``: a sentence-initial prepositional or adverbial phrase closed by a comma within 12
  tokens (``however ,``, ``in a statement released by the club ,``, ``according to police ,``),
  with no verb but participles (not ``now go look in a mirror ,``), with a verb after the comma;
* ``adjunct``: a comma-enclosed prepositional or adverbial phrase inside the sentence
  (``, however ,``, ``, according to police .``): no finite verb, at most 10 tokens, not opening
  with a conjunction or ``to``/``not``;
* ``time``: a temporal prepositional phrase whose noun phrase ends in a time word (``on tuesday``,
  ``in ####``, ``during the night``; not ``on the third day of ...``, ``in this year 's ...``,
  ``in vegas three years ago``, ``at ## years old``) or a
  bare temporal noun phrase (``last week``, ``this year``, ``yesterday``), no commas needed; a
  month takes its day and year along (``on february ##``, ``on february ## , ####``).

A comma-led part that runs to the end of the sentence (no closing comma) is only deletable when
a verb other than a gerund precedes it (the tagger reads some past tenses as ``VBN``):
otherwise it is the sentence's own clause.

The head is what is left: a span is dropped only when at least 3 words remain in the head. Spans
do not own their commas: a comma next to a comma-enclosed span (``relcl``, ``appos``, ``intro``,
``adjunct``) is *soft*, and :func:`realize` keeps one soft comma only where it still separates a
kept comma-enclosed part from something (or opens a relative clause: ``tamplin , ## , who``
becomes ``tamplin , who``), so ``john , the mayor , said`` becomes ``john said``
and ``on monday , after the match , he said`` can lose either part and stay grammatical.
Text is CNN/DM's (lower-cased, digits as ``#``); tokens are tagged after light true-casing
(:func:`tag_sentence`), since the tagger reads capitals as names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from c2fsum.metrics.output_stats import SENTENCE_MARKS

COMMA_KINDS = frozenset({"relcl", "appos", "intro", "adjunct"})
KINDS = ("head", "paren", "relcl", "appos", "intro", "adjunct", "time")
FINAL_MARKS = frozenset({".", "!", "?", "''", '"'})
OPEN = {"-lrb-": "-rrb-", "(": ")", "[": "]", "-lsb-": "-rsb-"}
RELATIVE = frozenset({"who", "which", "whose", "whom", "where"})
TIME_WORDS = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday january february march april may
june july august september october november december yesterday today tonight tomorrow morning
afternoon evening night week weekend month year years weeks months days day hours decade
####""".split()
)
MONTHS = frozenset("january february march april may june july august september october november december".split())
TIME_PREPS = frozenset({"on", "in", "at", "during", "since", "until", "before", "after", "by", "earlier", "over"})
TIME_DETS = frozenset({"last", "this", "next", "earlier", "later"})
BARE_TIME = frozenset({"yesterday", "today", "tonight", "tomorrow"})
MIN_HEAD_WORDS = 3
_PRIORITY = {"paren": 0, "relcl": 1, "appos": 2, "intro": 3, "adjunct": 4, "time": 5}


@dataclass
class Tagged:
    """One sentence, shallow-parsed: ``words`` (sentence marks removed), Penn ``tags`` and chunk
    tags ``chunks`` (``B-NP``, ``I-VP``, ``O``, ...), all of the same length."""

    words: list[str]
    tags: list[str]
    chunks: list[str]


@dataclass
class Span:
    """A deletable part ``words[start:end]`` of kind ``kind``; ``parent`` is the index of the
    innermost span containing it in the sentence's span list, or -1 for the head."""

    start: int
    end: int
    kind: str
    parent: int = -1


@dataclass
class SentenceUnits:
    """A tagged sentence and its deletable spans (ordered by start, outer before inner).

    ``owner[t]``: the span owning token ``t`` (the innermost containing it), -1 for the head.
    """

    tagged: Tagged
    spans: list[Span] = field(default_factory=list)
    owner: list[int] = field(default_factory=list)


def _is_word(tok: str) -> bool:
    return any(ch.isalnum() or ch == "#" for ch in tok)


_LEXICON = None


def _lexicon():
    global _LEXICON
    if _LEXICON is None:
        from textblob.en import lexicon

        _LEXICON = lexicon
    return _LEXICON


def truecase(words: Sequence[str]) -> list[str]:
    """The tagger's view of lower-cased tokens: ``#`` digits as ``0``, PTB brackets as brackets, a
    word capitalized when the tagger's lexicon knows only its capitalized form as a proper noun
    (``obama`` -> ``Obama``) or knows neither form (an alphabetic word of 3+ letters: most such
    words in news are names), and after a title (``mr``, ``mrs``, ``ms``, ``dr``)."""
    lex = _lexicon()
    out = []
    for i, w in enumerate(words):
        v = w.replace("#", "0")
        v = {"-lrb-": "(", "-rrb-": ")", "-lsb-": "[", "-rsb-": "]", "-lcb-": "{", "-rcb-": "}"}.get(v, v)
        if v.isalpha():
            cap = v.capitalize()
            low_tag, cap_tag = lex.get(v), lex.get(cap)
            after_title = i > 0 and words[i - 1] in ("mr", "mrs", "ms", "dr", "mr.", "mrs.", "ms.", "dr.")
            if after_title or (low_tag is None and (cap_tag in ("NNP", "NNPS") or (cap_tag is None and len(v) > 2))):
                v = cap
        out.append(v)
    return out


def tag_sentence(words: Sequence[str]) -> Tagged:
    """POS and chunk tags of one tokenized sentence (TextBlob's Pattern parser on :func:`truecase`'s
    tokens; the original tokens are kept)."""
    from textblob.en import parser

    words = [w for w in words if w not in SENTENCE_MARKS]
    if not words:
        return Tagged([], [], [])
    parsed = parser.parse([truecase(words)], tokenize=False, collapse=False, relations=False, lemmata=False)[0]
    if len(parsed) != len(words):  # the parser keeps our tokens one for one; guard anyway
        raise RuntimeError(f"parser returned {len(parsed)} tokens for {len(words)}: {' '.join(words)[:80]}")
    return Tagged(list(words), [p[1] for p in parsed], [p[2] for p in parsed])


def _is_verb(tag: str) -> bool:
    return tag.startswith("VB") or tag == "MD"


FINITE = frozenset({"VBD", "VBZ", "VBP", "MD"})
"""Finite verb tags: a part holding one is a clause (the tagger also reads some nouns as ``VB``)."""


def _content_end(words: Sequence[str]) -> int:
    """Index after the last non-final-mark token."""
    e = len(words)
    while e > 0 and words[e - 1] in FINAL_MARKS:
        e -= 1
    return e


def candidate_spans(t: Tagged) -> list[tuple[int, int, str]]:
    """Every span the rules of the module docstring find, before overlaps are resolved: the
    ``paren`` spans, then per comma its ``relcl``, ``appos`` or ``adjunct``, then ``intro``, then ``time``."""
    end = _content_end(t.words)
    commas = _clause_commas(t)
    return [
        *_paren_spans(t.words, end),
        *_comma_spans(t, commas, end),
        *_intro_span(t, commas, end),
        *_time_spans(t, end),
    ]


def _paren_spans(w: Sequence[str], end: int) -> list[tuple[int, int, str]]:
    """``paren`` spans: a bracketed part with its brackets, a ``-- ... --`` part with its dashes
    (at most 20 tokens inside), and an odd last ``-- ...`` up to ``end`` (the final mark)."""
    n = len(w)
    out: list[tuple[int, int, str]] = []
    for i, tok in enumerate(w):
        if tok in OPEN:
            for k in range(i + 1, n):
                if w[k] == OPEN[tok]:
                    out.append((i, k + 1, "paren"))
                    break
    dashes = [i for i, tok in enumerate(w) if tok == "--"]
    for a, b in zip(dashes[::2], dashes[1::2], strict=False):
        if 1 < b - a <= 21:
            out.append((a, b + 1, "paren"))
    if len(dashes) % 2 == 1 and dashes[-1] > 0 and 1 < end - dashes[-1] <= 21:
        out.append((dashes[-1], end, "paren"))
    return out


def _clause_commas(t: Tagged) -> list[int]:
    """The indices of the sentence's commas, except the comma of a date (``march ## , ####``)."""
    w, tags = t.words, t.tags
    n = len(w)
    return [
        i
        for i, tok in enumerate(w)
        if tok == "," and not (2 <= i < n - 1 and tags[i - 1] == "CD" and w[i - 2] in MONTHS and tags[i + 1] == "CD")
    ]


def _comma_spans(t: Tagged, commas: list[int], end: int) -> list[tuple[int, int, str]]:
    """For each comma, the part after it up to the next comma (or ``end``) when it is a ``relcl``,
    an ``appos`` or an ``adjunct`` (:func:`_comma_part_kind`)."""
    tags = t.tags
    out: list[tuple[int, int, str]] = []
    for ci, i in enumerate(commas):
        k = commas[ci + 1] if ci + 1 < len(commas) else end  # the inner part is w[i+1:k]
        if k <= i + 1 or i + 1 >= end:
            continue
        if k == end and not any(tags[j] in FINITE or tags[j] in ("VBN", "VB") for j in range(i)):
            continue  # a last part with no clause before it: it is the clause
        kind = _comma_part_kind(t, commas, ci, k, end)
        if kind is not None:
            out.append((i + 1, k, kind))
    return out


def _comma_part_kind(t: Tagged, commas: list[int], ci: int, k: int, end: int) -> str | None:
    """The kind of the part ``words[i+1:k]`` after the comma ``i = commas[ci]``: ``relcl`` (any
    verb: the tagger reads some past tenses after "who" as VBN), ``appos``, ``adjunct``, or None."""
    w, tags, ch = t.words, t.tags, t.chunks
    i = commas[ci]
    inner = range(i + 1, k)
    if w[i + 1] in RELATIVE and any(_is_verb(tags[j]) for j in inner) and i > 0:
        return "relcl"
    if any(tags[j] in FINITE for j in inner):
        return None
    if _is_appositive(t, commas, ci, k, end):
        return "appos"
    starts_pp = ch[i + 1] in ("B-PP", "B-ADVP") or tags[i + 1] in ("RB", "IN")
    according = w[i + 1] == "according"
    if i > 0 and (starts_pp or according) and k - i - 1 <= 10:
        if w[i + 1] not in ("that", "because", "if", "while", "although", "as", "so", "and", "but", "to", "not"):
            return "adjunct"
    return None


def _is_appositive(t: Tagged, commas: list[int], ci: int, k: int, end: int) -> bool:
    """Whether the part ``words[i+1:k]`` (no finite verb) after the comma ``i = commas[ci]`` is an
    appositive by the module docstring's rules (after a noun, opening with a determiner, a
    possessive or a number, short, no list)."""
    w, tags, ch = t.words, t.tags, t.chunks
    n = len(w)
    i = commas[ci]
    after = w[k + 1] if k < n - 1 and k < end else ""
    return (
        i > 0
        and ch[i - 1].endswith("NP")
        and (tags[i - 1].startswith("NN") or tags[i - 1] == "CD")
        and tags[i + 1] in ("DT", "PRP$", "CD")
        and (k - i - 1 >= 2 or tags[i + 1] == "CD")
        and not (tags[i + 1] == "CD" and (tags[i - 1] == "CD" or w[i - 1] in MONTHS))
        and k - i - 1 <= 15
        and after not in ("and", "or", "but")
        and not any(w[c + 1] in ("and", "or") for c in commas[ci + 1 : ci + 4] if c + 1 < n)
        and not any(w[j] in ("and", "or", "&", ";") for j in range(i + 1, k))
        and (k == end or w[k] == ",")
    )


def _intro_span(t: Tagged, commas: list[int], end: int) -> list[tuple[int, int, str]]:
    """The ``intro`` span (at most one): a sentence-initial prepositional or adverbial phrase up to
    the first comma (within 12 tokens), with no finite verb, a verb after the comma."""
    w, tags, ch = t.words, t.tags, t.chunks
    if not (
        commas
        and 0 < commas[0] <= 12
        and (ch[0] in ("B-PP", "B-ADVP") or tags[0] in ("RB", "IN") or w[0] == "according")
    ):
        return []
    i = commas[0]
    head_verbs = [j for j in range(i) if tags[j] in FINITE or tags[j] == "VB"]
    if (
        w[0] not in ("that", "because", "if", "while", "although", "as", "so", "when", "after", "before")
        and not head_verbs
        and any(_is_verb(tags[j]) for j in range(i + 1, end))
    ):
        return [(0, i, "intro")]
    return []


def _time_spans(t: Tagged, end: int) -> list[tuple[int, int, str]]:
    """The ``time`` spans, each starting at a token before ``end`` (:func:`_time_span_at`)."""
    spans = (_time_span_at(t, i, end) for i in range(end))
    return [s for s in spans if s is not None]


def _time_span_at(t: Tagged, i: int, end: int) -> tuple[int, int, str] | None:
    """The ``time`` span starting at token ``i``: a temporal prepositional phrase
    (:func:`_time_phrase`), a ``last week`` or a bare ``yesterday``; None when there is none."""
    w, tags, ch = t.words, t.tags, t.chunks
    n = len(w)
    if w[i] in TIME_PREPS and ch[i] == "B-PP" and i + 1 < end:
        return _time_phrase(t, i, end)
    if (
        i > 0
        and w[i] in TIME_DETS
        and i + 1 < end
        and w[i + 1] in TIME_WORDS
        and tags[i + 1].startswith("NN")
        and w[i - 1] not in TIME_PREPS
    ):
        if i + 2 >= n or (w[i + 2] not in ("of", "'s", "'") and tags[i + 2] != "POS"):
            return (i, i + 2, "time")
        return None
    if i > 0 and w[i] in BARE_TIME and w[i - 1] not in TIME_PREPS:
        if i + 1 >= n or (w[i + 1] not in ("of", "'s", "'") and tags[i + 1] != "POS"):
            return (i, i + 1, "time")
    return None


def _time_phrase(t: Tagged, i: int, end: int) -> tuple[int, int, str] | None:
    """The prepositional phrase opened by the time preposition at ``i`` when its noun phrase ends
    in a time word (a month taking its day and year along), else None."""
    w, tags, ch = t.words, t.tags, t.chunks
    n = len(w)
    k = i + 1
    while k < end and (ch[k] in ("B-NP", "I-NP") if k == i + 1 else ch[k] == "I-NP"):
        k += 1
    if k == i + 1 and tags[i + 1] == "CD":  # "in ####"
        k = i + 2
    while k < end and w[k - 1] in MONTHS and tags[k] == "CD":  # "on february ##"
        k += 1
    if k + 1 < end and tags[k - 1] == "CD" and w[k - 2] in MONTHS and w[k] == "," and tags[k + 1] == "CD":
        k += 2  # "on february ## , ####"
    follows = w[k] if k < n else ""
    if (
        i > 0
        and k > i + 1
        and w[k - 1] in TIME_WORDS
        and follows not in ("of", "'s", "'", "ago", "old", "later", "earlier")
        and tags[k - 1] != "POS"
    ):
        return (i, k, "time")
    return None


def sentence_units(words: Sequence[str], tagged: Tagged | None = None) -> SentenceUnits:
    """The head and deletable spans of one tokenized sentence (module docstring)."""
    t = tagged if tagged is not None else tag_sentence(words)
    n = len(t.words)
    cands = sorted(set(candidate_spans(t)), key=lambda s: (_PRIORITY[s[2]], s[0], -s[1]))
    kept: list[tuple[int, int, str]] = []
    for s, e, kind in cands:
        if any(s < e2 and s2 < e and not (s2 <= s and e <= e2) and not (s <= s2 and e2 <= e) for s2, e2, _ in kept):
            continue  # crosses a span already kept
        if any((s, e) == (s2, e2) for s2, e2, _ in kept):
            continue
        covered = [False] * n
        for s2, e2, _ in [*kept, (s, e, kind)]:
            for j in range(s2, e2):
                covered[j] = True
        if sum(1 for j in range(n) if not covered[j] and _is_word(t.words[j])) < MIN_HEAD_WORDS:
            continue
        kept.append((s, e, kind))
    kept.sort(key=lambda s: (s[0], -s[1]))
    spans = [Span(s, e, kind) for s, e, kind in kept]
    for i, sp in enumerate(spans):  # innermost enclosing earlier span
        for j in range(i - 1, -1, -1):
            if spans[j].start <= sp.start and sp.end <= spans[j].end:
                sp.parent = j
                break
    owner = [-1] * n
    for i, sp in enumerate(spans):  # outer before inner, so the innermost wins
        for j in range(sp.start, sp.end):
            owner[j] = i
    return SentenceUnits(tagged=t, spans=spans, owner=owner)


def ancestors(units: SentenceUnits, span: int) -> list[int]:
    """``span`` and the spans enclosing it, innermost first (empty for the head, -1)."""
    out = []
    while span >= 0:
        out.append(span)
        span = units.spans[span].parent
    return out


def realize(
    units: SentenceUnits,
    kept: Sequence[bool],
    replacements: dict[int, list[str]] | None = None,
) -> list[str]:
    """The words of a compressed sentence.

    Args:
        units: the sentence.
        kept: per span, whether it is kept (a span whose parent is dropped is dropped).
        replacements: token index -> the words written in its place (a pronoun rewritten as its
            antecedent's mention).

    Soft commas (next to a comma-enclosed span) are merged where they meet and kept only between
    a kept comma-enclosed part and something else (module docstring); a sentence left without
    its final mark keeps none.
    """
    words, spans, owner = units.tagged.words, units.spans, units.owner
    replacements = replacements or {}
    alive = [all(kept[a] for a in ancestors(units, s)) for s in range(len(spans))]
    soft = set()
    for sp in spans:
        if sp.kind in COMMA_KINDS:
            if sp.start > 0 and words[sp.start - 1] == ",":
                soft.add(sp.start - 1)
            if sp.end < len(words) and words[sp.end] == ",":
                soft.add(sp.end)
    # label each surviving token: ("U", span) inside a kept comma-enclosed span, "M" otherwise, "," soft
    items: list[tuple[str, list[str]]] = []
    for j, w in enumerate(words):
        if owner[j] >= 0 and not alive[owner[j]]:
            continue
        if j in soft:
            items.append((",", [w]))
            continue
        enclosing = ancestors(units, owner[j])
        label = "U" if any(spans[a].kind in COMMA_KINDS for a in enclosing) else "M"
        items.append((label, replacements.get(j, [w])))
    merged: list[tuple[str, list[str]]] = []
    for it in items:
        if it[0] == "," and merged and merged[-1][0] == ",":
            continue
        merged.append(it)
    out: list[str] = []
    for i, (label, toks) in enumerate(merged):
        if label == ",":
            left = merged[i - 1][0] if i > 0 else None
            right = merged[i + 1][0] if i + 1 < len(merged) else None
            before_relative = right is not None and merged[i + 1][1][0] in RELATIVE
            if left is None or right is None or ("U" not in (left, right) and not before_relative):
                continue
            if right == "M" and merged[i + 1][1][0] in FINAL_MARKS:
                continue
        out.extend(toks)
    return out
