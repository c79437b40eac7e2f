"""What of a document's lines is running text, what is a heading, and what is neither (issue 36).

A paper is not all sentences. SumPubMed's articles put section names (``BACKGROUND``,
``RESULTS``, ``discussion``) and subsection titles on lines of their own, and keep the debris of
tables, supplementary-file captions and footnotes; plain text has headings too. Read as one
stream, a heading is glued to the sentence under it (``RESULTS biomarkers of ...``) and a table
row becomes a "sentence". :func:`blocks` reads the lines of a raw text (before any tokenizing)
and says what each is:

* ``text``: running text, a paragraph (its lines joined by a space); a paragraph ends a sentence,
  and so does a figure's or table's caption glued to the sentence before it (``pathogenicity.fig.  <dig> the``);
* ``heading``: a short line (at most :data:`HEADING_WORDS` words) with no sentence end, at the
  head of a paragraph and clearly shorter than its running text (SumPubMed: ``RESULTS`` then
  ``cell culture and transfection`` then the paragraph), or a paragraph of one or two such lines
  before running text (``competing interests``, blank line, text);
* non-running text, kept out of the sentences and counted by kind (:data:`NON_RUNNING`):
  ``file_caption`` (``additional file 2`` and its caption, ``click here for file``),
  ``footnote`` (a line starting with ``*``, a dagger, or a digit glued to a word: ``3number of
  unique reads``), ``licence`` (copyright and licence lines), ``url`` (a line that is a URL or DOI
  with at most :data:`URL_WORDS` other words), ``table`` (three or more short lines in a row: table
  cells, lists of abbreviations; and a table's title on the last lines of the paragraph before
  them, after a sentence end: :func:`_title_lines_at_end`), ``legend`` (a figure's or table's
  caption: SumPubMed glues it to the sentence before it, ``... death.fig.  <dig> the histology of
  ...``, or starts a paragraph with it; from its number, unless running text goes on there, ``figure
  <dig> shows ...``, to the paragraph's end: :data:`_LEGEND`).

A text without line breaks (every CNN/DailyMail article) is one ``text`` block, as before. A text
with no running text at all (a list of short lines) is one ``text`` block too, so that nothing a
user gives is read as empty; one whose only prose is legends keeps them as ``text``.
:func:`is_non_running` judges one sentence the same way (a licence sentence or a URL inside a
paragraph).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADING_WORDS = 12
"""Most words of a heading line (SumPubMed's longest subsection titles have about 10)."""
HEADING_SHARE = 0.7
"""A heading at the head of a paragraph is at most this share of the paragraph's longest line."""
URL_WORDS = 4
"""A line or sentence holding a URL or DOI and at most this many other words is not running text."""
STATEMENTS = ("acknowledgement", "publication", "competing_interests", "contributions")
"""Kinds of the back matter's statements (:func:`statement_kind`): thanks and funding, a note that the
article is part of a journal's supplement (or who paid for its publication), a competing-interests
declaration, what each author did."""
NON_RUNNING = ("file_caption", "footnote", "licence", "url", "table", "legend", *STATEMENTS)
"""Kinds of non-running text, in the order ``prepare`` reports them."""

_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*$")
_LETTERS = re.compile(r"[^\W\d_]{2}")
_CONTINUES = re.compile(r"<cit>|[,.;:)\]%]")  # a line that goes on with the one before it
# SumPubMed glues a figure's or table's caption to the sentence before it: "... pathogenicity.fig.  <dig> the
# numbers", "... for this orf.table  <dig> putative ...", "... probes .figure  <dig> ..."; the period before the
# caption (the text is cut after it: see _split_glued_captions)
_GLUED_CAPTION = re.compile(r"\.(?:(?<=\S\.)|(?<=\S \.))(?=(?:fig\.|figure|table)\s*(?:<dig>|\d))", re.I)
# a legend's start: "fig. <dig> the histology of ...", "table <dig> summary of samples", but not running text
# that names a figure ("figure <dig> shows the results ...", "table <dig> , which lists ...")
_LEGEND = re.compile(
    r"(?:fig\.|figure|table)\s*(?:<dig>|\d+)(?:\s*[a-z](?![\w-]))?(?!\s*(?:[,;:)]|(?:shows?|showed|illustrates?"
    r"|depicts?|presents?|summari[sz]es?|displays?|gives?|compares?|demonstrates?|reveals?|indicates?|contains?"
    r"|lists?|plots?|represents?|highlights?|provides?|describes?|outlines?|suggests?|confirms?|reports?|clearly"
    r"|was|were|is|are|also|and|or|to|in(?!\s+(?:vitro|vivo|silico|situ|planta)\b)|of|for|with|as|from|we|it"
    r"|(?:[a-h]\s+(?:shows?|and|or|,)))\b))",
    re.I,
)
PROSE_WORDS = 5
"""Fewest words of a line of wrapped prose among short lines (:func:`_wrapped_prose`)."""
_PROSE_WORDS = frozenset(
    "we our us they their it its this these those is are was were be been being has have had could can may might "
    "would should will which who whose".split()
)
_CONTINUING_WORDS = frozenset("of the and in to a an with for by from at as or on that not than into between".split())
# a line that breaks off before a figure's or table's number ("... is shown in figure" / "<dig> shows ...")
_DANGLING = re.compile(r"\b(?:fig|figs|figure|figures|table|tables|eq|eqs|equation)\.?$", re.I)
_CAPITALS = re.compile(r"[A-Z][A-Z ,&/-]{2,}")  # BACKGROUND, RESULTS AND DISCUSSION
_MARKUP = re.compile(r"<(?:dig|cit)>")
_FILE_CAPTION = re.compile(r"^additional[ _-]?file\b|click here for (?:file|additional)")  # on lowercase
# a footnote's mark glued to its first word: "3number of unique reads", "5in contrast to rast ..." (a word of two
# letters, sumpubmed-10691, only if it is a word that starts text: "5th", "2nd", "3d", "6h" are no footnotes)
_FOOTNOTE_WORD = r"(?:[^\W\d_]{3,}|(?:in|on|at|to|of|by|as|or|if|we|it|is|an|no)(?![^\W_]))"
_FOOTNOTE = re.compile(r"^(?:[*†‡§¶]|#(?=[^\W\d_]{3})|\d+" + _FOOTNOTE_WORD + ")")  # "#misidentification only ..."
_LICENCE = re.compile(
    r"creative commons|open access article|distributed under the terms|\u00a9|\(c\) (?:19|20)\d\d|copyright|"
    r"all rights reserved|licensee \w+|this article is (?:published|distributed) under|terms of the \w+ licen[cs]e"
)  # on lowercase
_URL = re.compile(r"(?:https?|ftp)://\S+|\bwww\.\S+|\bdoi\s*:\s*\S+|\b10\.\d{4,}/\S+", re.I)


# The back matter's statements (issue 36), on lowercase text, raw or tokenized (`` , ``, ``< dig >``,
# ``'s`` split off): each rule names the statement, not a word that running text uses too ("supported by
# these data", "we acknowledge that", "thanks to", "competing models", "contributed equally to the
# variance" stay running text).
_INITIALS = r"(?!(?:yet|and|but|now|then|they|you|she|he|it|so|all|one)\b)(?:[a-z]{2,4}|(?:[a-z]\.-?){1,4}[a-z]?)"
"""An author's initials (``mp``, ``b.-y.l``), not a word that starts running text."""
_FIRST = r"^(?:(?:finally|also|additionally|lastly|moreover|further)\s*,?\s+)?"
_THANKS = re.compile(  # (a sentence in quotes is no statement of the paper's: see statement_kind)
    _FIRST + r"(?:we|i|the\s+authors?|authors?(?:\s+\S+)?|" + _INITIALS + r"(?:\s*(?:,|and)\s*" + _INITIALS + r")*)\s+"
    r"(?:(?:would|wish|want|also|gratefully|sincerely|especially|kindly|further|additionally|warmly|deeply|like|to"
    r"|most|heartily|hereby|all|greatly|particularly)\s+)*(?:thank\s+(?!you\b|god\b|goodness\b)|thanks\s+(?!to\b|you\b))"
    # we thank, the authors wish to thank, mp would like to thank
    r"|" + _FIRST + r"(?:many|special|sincere|our|warm|grateful)\s+thanks\b"
    r"|^(?:\S+\s+){0,6}?(?:is|are|am)\s+(?:\w+\s+)?(?:grateful|indebted|thankful)\s+(?:to|for)\b"
    r"|\b(?:gratefully|kindly|sincerely)\s+acknowledg(?:e|es|ed)\b|\bthanked\s+for\b"
    r"|\b(?:express|extend)\w*\s+(?:our|their|my|his|her)\s+(?:\w+\s+)?(?:gratitude|thanks|appreciation)\b"
    r"|^(?:our|my)\s+(?:\w+\s+)?(?:gratitude|appreciation)\s+(?:goes|go|is|are)\b"
    r"|\backnowledges?\s+(?:the\s+)?(?:\w+\s+){0,2}?(?:support|funding|grants?|assistance)\b"
)
_QUOTES = re.compile("``|''|[\"“”]")
_FUNDED = re.compile(  # a funding statement: its subject is the work (or an author), its object a funder
    r"^(?:(?:this|the|our|present|current)\s+(?:\w+\s+){0,2}?"
    r"(?:work|study|studies|research|project|publication|paper|article|analysis|manuscript|experiments?)\b"
    r"(?:[^.;]{0,80}?\s)??"
    r"|(?!(?:this|that|it|its|which|these|those|they|we|each|both|all|one|two|data)\s)"  # or an author's initials
    r"[a-z.]{2,6}(?:\s*,\s*[a-z.]{2,6})*(?:\s+and\s+[a-z.]{2,6})?\s+)"
    r"(?:was|were|is|are|has\s+been|have\s+been)\s+(?:\w+\s+){0,2}?"
    r"(?:supported|funded|financed|sponsored)\b"
)
_FUNDING = re.compile(  # needs no funder named
    r"^(?:funding|financial\s+support)\s+(?:for|of)\s+this\s+(?:work|study|research|project)"
    r"|^this\s+(?:work|study|research|project)\s+(?:has\s+)?received\s+(?:\w+\s+)?(?:funding|support|grants?)\b"
    r"|\bfund(?:ers?|ing\s+(?:bodies|body|agencies|agency|sources?))\s+(?:had|has|played)\s+no\s+role"
)
_FUNDER = re.compile(
    r"grant|foundation|\bfunds?\b|fellowship|scholarship|studentship|ministry|council|agency|\bnih\b|\bnsf\b"
    r"|award|contract|program|\b(?:in\s+part|partly|partially|financially)\b|project\s+(?:number|no)"
)
_PUBLICATION = re.compile(
    r"\b(?:this|the)\s+article\s+(?:has\s+been|was|is)\s+published\s+as\s+(?:a\s+)?part\s+of"
    r"|\bpublished\s+as\s+part\s+of\s+(?:\S+\s+){1,4}volume\b"
    r"|\bthe\s+full\s+contents?\s+of\s+the\s+supplement"
    r"|^(?:the\s+)?(?:publication|open\s+access)\s+(?:costs?|charges?|fees?)\s+(?:for|of)\s+this\s+"
    r"(?:article|paper|publication)|^publication\s+of\s+this\s+(?:article|paper)\s+(?:was|has\s+been|is)\b"
)
# a supplement's note of the meeting it comes from: "from the fourteenth asia pacific bioinformatics conference san
# francisco, ca, usa. <dig> - <dig> january 2016" (validation paper sumpubmed-29779), raw or tokenized: "from", the
# meeting's name within 15 words (no comma), then its place ("city, country"), the dates maybe, and no word of
# running text ("from the meeting's data we ...", "from the conference, it was clear ...")
_MEETINGS = ("conference", "workshop", "symposium", "meeting", "congress", "colloquium")  # (_maybe_publication's)
_RUNNING = (
    r"(?!(?:we|i|our|us|was|were|is|are|has|have|had|be|been|being|it|its|they|their|this|these|those|which|that"
    r"|there|who|whom|whose|at|during|after|before|data|used|using|obtained|collected|extracted|presented|reported"
    r"|showed|shown|found|emerged|attended|attending|held)\b)"
)
_OF_MEETING = (  # what running text takes from a meeting ("from the meeting minutes, ...")
    r"(?!(?:minutes|reports?|data|abstracts?|proceedings|participants|attendees|organi[sz]ers|discussions?|results?"
    r"|notes|papers|presentations?|records?|materials?|talks?|sessions?|recordings?|transcripts?|survey)\b)"
)
_DATE = (
    r"(?:(?:[#\d]+|<\s*dig\s*>)\s*(?:-|--|–|—)?\s*)*"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*(?:[#\d]+|<\s*dig\s*>)?\s*\.?"
)
_PROCEEDINGS = re.compile(
    rf"^from\s+(?:{_RUNNING}[^\s,]+\s+){{0,14}}?(?:{'|'.join(_MEETINGS)})\b\s+{_OF_MEETING}{_RUNNING}[^\s,]+(?:\s+{_RUNNING}[^\s,]+)*"
    rf"(?:\s*,\s*{_RUNNING}[^\s,.]+(?:\s+{_RUNNING}[^\s,.]+)?)+\s*\.?(?:\s*{_DATE})?\s*$"
)
_DATE_ONLY = re.compile(rf"{_DATE}\s*$")
"""A sentence that is a date alone (``## -- < dig > october ####``): after a publication note, its dates."""
_COMPETING = re.compile(r"\b(?:(?:competing|conflicting)\s+(?:financial\s+)?interests?|conflicts?\s+of\s+interests?)\b")
_COMPETING_DECLARED = re.compile(r"\bauthors?\b|\bdeclar|\bdisclos|\bno\b|\bnone\b")
_CONTRIBUTIONS = re.compile(
    r"\bapproved\s+the\s+final\s+(?:version\s+of\s+the\s+)?(?:manuscript|paper|draft|version)"
    r"|\bcontributed\s+equally\s+to\s+(?:this|the)\s+(?:work|study|paper|manuscript|article)"
    r"|\b(?:drafted|wrote)\s+the\s+(?:first\s+)?(?:draft\s+of\s+the\s+)?(?:manuscript|paper)\b"
)
# a heading that names the back matter: all its sentences are statements of that kind
_HEADING_NAMES = {
    "acknowledgement": r"acknowledge?ments?|funding|financial\s+(?:support|disclosure)|sources?\s+of\s+funding",
    "competing_interests": r"competing\s+(?:financial\s+)?interests?|conflicts?\s+of\s+interests?"
    r"|declaration\s+of\s+(?:competing\s+)?interests?",
    "contributions": r"authors?\s*['’]?\s*s?\s*['’]?\s+contributions?",  # (a paper's "contributions": its own)
    "publication": r"about\s+this\s+supplement|declarations?",
}
_HEADING_NAME = "|".join(f"(?P<{kind}>{names})" for kind, names in _HEADING_NAMES.items())
_BACK_HEADING = re.compile(
    rf"(?:{_HEADING_NAME})(?:\s*(?:and|&|/|,)\s*(?:{_HEADING_NAME.replace('?P<', '?P<x')}))*\s*:?"
)


def _maybe_thanks(low: str) -> bool:
    return (
        "thank" in low or "grateful" in low or "indebted" in low or "acknowledg" in low or "gratitude" in low
        or "appreciation" in low
    )  # fmt: skip


def _maybe_publication(low: str) -> bool:
    return (
        "published as" in low or "of the supplement" in low
        or ("from" in low and (
            "conference" in low or "workshop" in low or "symposium" in low or "meeting" in low or "congress" in low
            or "colloquium" in low))
        or (("publication" in low or "open access" in low)
            and ("this article" in low or "this paper" in low or "this publication" in low))
    )  # fmt: skip


_FUNDER_WORDS = (
    "grant", "foundation", "fund", "fellowship", "scholarship", "studentship", "ministry", "council", "agency",
    "nih", "nsf", "award", "contract", "program", "in part", "partly", "partially", "financially", "project",
)  # fmt: skip
"""Substrings of every match of :data:`_FUNDER`."""


def _maybe_funding(low: str) -> bool:
    return (
        ("supported" in low or "funded" in low or "financed" in low or "sponsored" in low)
        and any(w in low for w in _FUNDER_WORDS)
    ) or "funding" in low or "funder" in low or "financial support" in low or "received" in low  # fmt: skip


def _maybe_competing(low: str) -> bool:
    return "interest" in low and ("competing" in low or "conflict" in low)


def _maybe_contributions(low: str) -> bool:
    return "approved the" in low or "contributed equally" in low or "drafted the" in low or "wrote the" in low


def _maybe_statement(low: str) -> bool:
    """A quick test (substrings, no regex) that lower-cased ``low`` (a sentence or a paragraph) may
    hold a statement of :data:`STATEMENTS`: each rule of :func:`statement_kind` asks its own first."""
    return (
        _maybe_thanks(low) or _maybe_publication(low) or _maybe_funding(low) or _maybe_competing(low)
        or _maybe_contributions(low)
    )  # fmt: skip


def statement_kind(low: str) -> str | None:
    """The kind of back-matter statement (:data:`STATEMENTS`) the lower-cased sentence ``low`` is,
    or None.

    >>> statement_kind("this work was supported by university of padova grants.")
    'acknowledgement'
    >>> statement_kind("this work was supported by our earlier finding that ...") is None
    True
    """
    if _maybe_thanks(low) and _THANKS.search(low) and not _QUOTES.search(low):
        return "acknowledgement"
    if _maybe_publication(low) and (_PUBLICATION.search(low) or _PROCEEDINGS.match(low)):
        return "publication"
    if _maybe_funding(low) and (_FUNDED.search(low) and _FUNDER.search(low) or _FUNDING.search(low)):
        return "acknowledgement"
    if _maybe_competing(low) and _COMPETING.search(low) and _COMPETING_DECLARED.search(low):
        return "competing_interests"
    if _maybe_contributions(low) and _CONTRIBUTIONS.search(low):
        return "contributions"
    return None


def heading_kind(heading: str) -> str | None:
    """The kind of :data:`STATEMENTS` a heading names (``acknowledgements and funding``:
    ``acknowledgement``; ``authors' contributions``: ``contributions``), or None.

    >>> heading_kind("Competing interests")
    'competing_interests'
    >>> heading_kind("contributions of each gene") is None
    True
    """
    m = _BACK_HEADING.fullmatch(" ".join(heading.lower().split()))
    if not m:
        return None
    return next(kind for kind in STATEMENTS if m.group(kind))


@dataclass(frozen=True)
class Block:
    """A piece of a document: ``kind`` is ``text``, ``heading`` or one of :data:`NON_RUNNING`."""

    kind: str
    text: str


def is_non_running(text: str) -> str | None:
    """The kind of non-running text ``text`` (a line or a sentence) is, or None for running text.

    >>> is_non_running("click here for file")
    'file_caption'
    >>> is_non_running("the cells were washed twice.") is None
    True

    The back matter's statements are judged per sentence only (:func:`sentence_kind`), never as a
    whole line: a paragraph may hold running text beside them.
    """
    s = text.strip()
    if not s:
        return None
    low = s.lower()
    if ("additional" in low or "click here" in low) and _FILE_CAPTION.search(low):
        return "file_caption"
    if _FOOTNOTE.match(s):
        return "footnote"
    if _maybe_licence(low) and _LICENCE.search(low):
        return "licence"
    if _maybe_url(low) and _URL.search(s) and len(_URL.sub(" ", s).split()) <= URL_WORDS:
        return "url"
    return None


def _maybe_licence(low: str) -> bool:
    """A quick test (substrings, no regex) that :data:`_LICENCE` may match lower-cased ``low``."""
    return (
        "licen" in low or "copyright" in low or "\u00a9" in low or "commons" in low or "open access" in low
        or "rights" in low or "(c)" in low
    )  # fmt: skip


def _maybe_url(low: str) -> bool:
    """A quick test that ``low`` may hold a URL or a DOI."""
    return "http" in low or "www." in low or "doi" in low or "ftp" in low or "//" in low or "10." in low


def sentence_kinds(text: str, sentences: list[list[str]], statements: bool = True) -> list[str | None]:
    """:func:`sentence_kind` of each of the tokenized ``sentences`` of the paragraph ``text``; the
    paragraph is looked at first, so that most paragraphs cost a few substring tests. ``statements``:
    judge the back matter's statements too (a paper's text; not a news article's, whose quotes thank)."""
    low = text.lower()
    if not (
        "additional" in low or "click here" in low or _maybe_licence(low) or _maybe_url(low)
        or (statements and _maybe_statement(low))
    ):  # fmt: skip
        # only a footnote: none when no sentence's first token starts like one (one search, no loop)
        if not _TOKEN_FOOTNOTE_ANY.search(" ".join([s[0] for s in sentences])):
            return [None] * len(sentences)
        return [None if not _TOKEN_FOOTNOTE.match(s[0]) else sentence_kind(s, statements) for s in sentences]
    kinds = [sentence_kind(s, statements) for s in sentences]
    for k in range(1, len(kinds)):  # a publication note's dates, cut from it ("... usa ." "## -- < dig > october ####")
        if kinds[k - 1] == "publication" and kinds[k] is None and _DATE_ONLY.match(" ".join(sentences[k])):
            kinds[k] = "publication"
    return kinds


def _short(line: str) -> bool:
    """A line that could be a heading or a table cell: few words, no sentence end, no comma end."""
    words = len(line.split(None, HEADING_WORDS))  # (at most HEADING_WORDS + 1: a long line is not split whole)
    return 0 < words <= HEADING_WORDS and not _SENTENCE_END.search(line) and line[-1] not in ",;"


def _titled(line: str) -> bool:
    """A short line with a word in it (not ``<dig>`` or ``+/-`` alone)."""
    return bool(_LETTERS.search(_MARKUP.sub(" ", line)))


def _classified(para: list[str]) -> list[tuple[str, str]]:
    """The lines of a paragraph, each with its kind: ``line`` (maybe running text), a kind of
    :data:`NON_RUNNING`, or ``caption`` (an ``additional file`` caption, with all lines after it)."""
    lines: list[tuple[str, str]] = []
    for k, line in enumerate(para):
        kind = is_non_running(line)
        if kind == "file_caption" and line.lower().startswith("additional"):
            lines.append(("caption", "\n".join(para[k:])))
            break
        lines.append((kind or "line", line))
    return lines


def _short_only(lines: list[tuple[str, str]]) -> bool:
    """A paragraph of short lines only (no running text): a heading or part of a table."""
    return all(_short(x) for kind, x in lines if kind == "line")


TITLE_LINES = 2
"""Fewest lines of a title at the end of a paragraph (:func:`_title_lines_at_end`)."""


def _title_lines_at_end(lines: list[tuple[str, str]], lead: int) -> int:
    """Where a table's or figure's title starts among the last lines of a paragraph (``len(lines)``:
    none): at least :data:`TITLE_LINES` lines of at most :data:`HEADING_WORDS` words each, none
    with a sentence end, right after a line that ends a sentence. SumPubMed breaks such a title
    over lines where the paper had italics (``in vitro`` / ``effects of ph ... on`` /
    ``pseudomonas aeruginosa`` / ``pao <dig> growth``); wrapped prose ends with its period.
    Asked only when short lines (the table's cells) come next."""
    k = len(lines)
    while k > lead + 1 and lines[k - 1][0] == "line" and _title_line(lines[k - 1][1]):
        k -= 1
    if len(lines) - k < TITLE_LINES or lines[k - 1][0] != "line" or not _SENTENCE_END.search(lines[k - 1][1]):
        return len(lines)
    return k


def _title_line(line: str) -> bool:
    return len(line.split(None, HEADING_WORDS)) <= HEADING_WORDS and not _SENTENCE_END.search(line)


def _split_glued_captions(text: str) -> list[str]:
    """``text`` cut after each period that a figure caption is glued to (``re.split`` at the empty
    match after it; the pattern starts at the period, so the regex engine jumps from period to period)."""
    cuts = [m.end() for m in _GLUED_CAPTION.finditer(text)]
    if not cuts:
        return [text]
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def _wrapped_prose(line: str) -> bool:
    """A short line that is running text: SumPubMed breaks a paragraph's lines where the paper had italics
    (``in this study, we addressed if our o. unilateralis`` / ``s.l. species could control the behavior of
    ants that are not normally`` / ``found infected in nature. ...``, sumpubmed-8880), so its text may start
    with four short lines or more, which would be read as a table's last rows. At least
    :data:`PROSE_WORDS` words, with a pronoun or a finite verb (``we``, ``our``, ``could``, ``are`` ...)
    or ending on a word that cannot end a title or a cell (``of``, ``the``, ``and`` ...)."""
    words = line.split()
    return len(words) >= PROSE_WORDS and (not _PROSE_WORDS.isdisjoint(words) or words[-1] in _CONTINUING_WORDS)


def _heading_kind(line: str) -> str:
    """``legend`` for a figure's or table's title on a line of its own (``fig. <dig> kaplan-meier survival
    curves ...``), else ``heading``."""
    return "legend" if _LEGEND.match(line) else "heading"


def _text_blocks(text: str, legend: bool | None, out: list[Block]) -> bool:
    """Append the running text of a paragraph, ``text``, to ``out``: cut after each glued caption
    (:func:`_split_glued_captions`), the pieces from a legend's start on (at the head of the paragraph,
    ``legend`` None, or glued) of kind ``legend``, the rest ``text``. ``legend``: the paragraph is a legend
    already; None: nothing of the paragraph was text before. Returns whether a legend runs on."""
    for k, piece in enumerate(_split_glued_captions(text)):
        if not legend and (k > 0 or legend is None) and _LEGEND.match(piece):
            legend = True
        out.append(Block("legend" if legend else "text", piece))
        legend = bool(legend)
    return bool(legend)


def blocks(text: str) -> list[Block]:
    """The blocks of ``text`` in order (see the module docstring); running text is never lost:
    a text with no ``text`` block gives its whole text as one."""
    if "\n" not in text:
        return [Block("text", text)] if text.strip() else []
    paragraphs: list[list[str]] = []
    current: list[str] = []
    for raw in text.split("\n"):
        # whitespace collapsed; a printable line (its only whitespace " ") with no double, leading or
        # trailing space is already collapsed (no split and join of every line)
        if raw.isprintable() and "  " not in raw and raw[:1] != " " and raw[-1:] != " ":
            line = raw
        else:
            line = " ".join(raw.split())
        if line:
            current.append(line)
        elif current:
            paragraphs.append(current)
            current = []
    if current:
        paragraphs.append(current)
    out: list[Block] = []
    pending: list[list[str]] = []  # paragraphs of short lines, waiting for what follows them

    def flush(heads: list[str] | None) -> None:
        """Write the pending short paragraphs, then ``heads`` (the headings at the head of a
        paragraph of running text; None: no running text follows). With running text after them
        and no heads of its own, the last pending paragraph of one or two titled lines is its heading;
        the rest is a table when three lines or more, else headings."""
        paras = list(pending)
        pending.clear()
        if heads is None:
            heads = []
        elif not heads and paras and len(paras[-1]) <= 2 and all(_titled(x) for x in paras[-1]):
            heads = paras.pop()
        rest = [x for para in paras for x in para]
        if len(rest) >= 3:  # a table, but a section name in capitals (RESULTS) stays a heading
            cells: list[str] = []
            for x in rest:
                if _CAPITALS.fullmatch(x):
                    if cells:
                        out.append(Block("table", "\n".join(cells)))
                        cells = []
                    out.append(Block("heading", x))
                else:
                    cells.append(x)
            if cells:
                out.append(Block("table", "\n".join(cells)))
        else:
            out.extend(Block(_heading_kind(x) if _titled(x) else "table", x) for x in rest)
        out.extend(Block(_heading_kind(h), h) for h in heads)

    classified = [_classified(para) for para in paragraphs]
    short_only = [_short_only(lines) for lines in classified]
    for i, lines in enumerate(classified):
        if short_only[i]:
            # a paragraph of short lines only: a heading or part of a table, decided by what follows
            short: list[str] = []
            for kind, x in lines:
                if kind == "line":
                    short.append(x)
                    continue
                if short:
                    pending.append(short)
                    short = []
                flush(None)
                out.append(Block("file_caption" if kind == "caption" else kind, x))
            if short:
                pending.append(short)
            continue
        longest = max(len(x) for kind, x in lines if kind == "line")
        lead = 0
        while (
            lead < len(lines) - 1
            and lines[lead][0] == "line"
            and _short(lines[lead][1])
            and _titled(lines[lead][1])
            and len(lines[lead][1]) <= HEADING_SHARE * longest
            and not _CONTINUES.match(lines[lead + 1][1])
            and not _DANGLING.search(lines[lead][1])
        ):
            lead += 1
        if lead > 3:  # wrapped prose at the end of the short lines is the paragraph's text (_wrapped_prose)
            while lead > 0 and _wrapped_prose(lines[lead - 1][1]):
                lead -= 1
        if lead > 3:  # a table whose last rows touch the text: no headings
            pending.append([x for _, x in lines[:lead]])
            flush([])
        else:
            flush([x for _, x in lines[:lead]])
        # a table's or figure's title on the last lines of a paragraph, before the table's cells:
        # "... invasion <cit> ." / "s. pneumoniae" / "gene expression in the presence of ..."
        end = _title_lines_at_end(lines, lead) if i + 1 < len(classified) and short_only[i + 1] else len(lines)
        # a legend (under a figure's or table's number among the headings, at the paragraph's head, on a line
        # of its own after a sentence, or glued to one) runs to the paragraph's end
        legend: bool | None = any(_LEGEND.match(x) for _, x in lines[:lead]) or None  # None: no text yet
        body: list[str] = []
        for kind, x in lines[lead:end]:
            if kind == "line":
                if body and not legend and _SENTENCE_END.search(body[-1]) and _LEGEND.match(x):
                    # a legend on a line of its own after a sentence ("... yields <dig> α=. " / "fig. <dig> ...")
                    _text_blocks(" ".join(body), legend, out)
                    body, legend = [], True
                body.append(x)
                continue
            if body:
                legend = _text_blocks(" ".join(body), legend, out)
                body = []
            out.append(Block("file_caption" if kind == "caption" else kind, x))
        if body:
            _text_blocks(" ".join(body), legend, out)
        if end < len(lines):  # with the short lines after it: a table, or headings (flush decides)
            pending.append([x for _, x in lines[end:]])
    flush(None)
    if not any(b.kind == "text" for b in out):
        if any(b.kind == "legend" for b in out):  # captions alone (a passage of a paper): they are the prose
            return [Block("text", b.text) if b.kind == "legend" else b for b in out]
        return [Block("text", text)]
    return out


_URL_TOKEN = re.compile(r"^(?:https?|ftp|//\S+|www\.\S+|doi:\S+|[#\d]{2}\.[#\d]{4,}/\S*)$")
_TOKEN_FOOTNOTE = re.compile(r"^(?:[*†‡§¶]|[#\d]+" + _FOOTNOTE_WORD + ")")
_TOKEN_FOOTNOTE_ANY = re.compile(r"(?<!\S)(?:[*†‡§¶]|[#\d]+" + _FOOTNOTE_WORD + ")")  # at the start of any token


def sentence_kind(tokens: list[str], statements: bool = True) -> str | None:
    """:func:`is_non_running` for a tokenized sentence (lowercase PTB tokens, digits ``#``), whose
    URLs are split by the tokenizer (``http : //www.x.org``, ``doi:##.####/...``); then, with
    ``statements``, :func:`statement_kind`."""
    words = [t for t in tokens if t != "</s>"] if "</s>" in tokens else tokens
    if not words:
        return None
    text = " ".join(words)
    if ("additional" in text or "click here" in text) and _FILE_CAPTION.search(text):
        return "file_caption"
    if _TOKEN_FOOTNOTE.match(words[0]):
        return "footnote"
    if _maybe_licence(text) and _LICENCE.search(text):
        return "licence"
    if _maybe_url(text):
        urls = [t for t in words if _URL_TOKEN.match(t)]
        if urls:
            other = [t for t in words if t not in urls and t != "doi" and any(c.isalnum() for c in t)]
            if len(other) <= URL_WORDS:
                return "url"
    return statement_kind(text) if statements else None
