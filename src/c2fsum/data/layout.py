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

What makes a line or a sentence a file caption, a footnote, a licence, a URL or a statement of the back
matter (:data:`STATEMENTS`: thanks and funding, ...) is one table, :data:`RULES`: each rule has its kind,
what it reads (lines, tokens, statements), a quick substring test asked before its pattern, the pattern,
and real examples it must and must not find. :func:`is_non_running` asks the rules of lines,
:func:`sentence_kind` those of tokens (a tokenized sentence) and then :func:`statement_kind` the statements'.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
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

# The patterns of the rules (:data:`RULES`) for lines and tokens. A line is read lower-cased, a footnote's mark and
# a URL as written; a tokenized sentence is lowercase PTB tokens, digits ``#``, joined by spaces.
_FILE_CAPTION = re.compile(r"^additional[ _-]?file\b|click here for (?:file|additional)")  # on lowercase
# a footnote's mark glued to its first word: "3number of unique reads", "5in contrast to rast ..." (a word of two
# letters, sumpubmed-10691, only if it is a word that starts text: "5th", "2nd", "3d", "6h" are no footnotes)
_FOOTNOTE_WORD = r"(?:[^\W\d_]{3,}|(?:in|on|at|to|of|by|as|or|if|we|it|is|an|no)(?![^\W_]))"
_FOOTNOTE = re.compile(r"^(?:[*†‡§¶]|#(?=[^\W\d_]{3})|\d+" + _FOOTNOTE_WORD + ")")  # "#misidentification only ..."
_TOKEN_FOOTNOTE = re.compile(r"^(?:[*†‡§¶]|[#\d]+" + _FOOTNOTE_WORD + ")")  # (tokens: the mark's digits are "#")
_TOKEN_FOOTNOTE_ANY = re.compile(r"(?<!\S)(?:[*†‡§¶]|[#\d]+" + _FOOTNOTE_WORD + ")")  # at the start of any token
_LICENCE = re.compile(
    r"creative commons|open access article|\u00a9|\(c\) (?:19|20)\d\d|copyright|all rights reserved|licensee \w+"
    r"|terms of the \w+ licen[cs]e"
)  # on lowercase
_LICENCE_TERMS = re.compile(r"distributed under the terms|this article is (?:published|distributed) under")
_URL = re.compile(r"(?:https?|ftp)://\S+|\bwww\.\S+|\bdoi\s*:\s*\S+|\b10\.\d{4,}/\S+", re.I)
_URL_TOKEN_FORMS = r"https?|ftp|//\S+|www\.\S+|doi:\S+|[#\d]{2}\.[#\d]{4,}/\S*"
"""What a token of a URL is: the tokenizer splits ``http : //www.x.org``, ``doi:##.####/...``."""
_URL_TOKEN = re.compile(rf"^(?:{_URL_TOKEN_FORMS})$")
_URL_IN_TOKENS = re.compile(_URL_TOKEN_FORMS)
"""Found wherever a token is a URL (:data:`_URL_TOKEN`), in the tokens joined."""


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


# The rules' quick tests (Rule.maybe): substrings of the lower-cased text, no regex, each true wherever its rule
# finds something (the test of the table checks it on the rules' examples)
def _maybe_file_caption(low: str) -> bool:
    return "additional" in low or "click here" in low


def _maybe_licence(low: str) -> bool:
    return (
        "licen" in low or "copyright" in low or "\u00a9" in low or "commons" in low or "open access" in low
        or "rights" in low or "(c)" in low
    )  # fmt: skip


def _maybe_url(low: str) -> bool:
    return "http" in low or "www." in low or "doi" in low or "ftp" in low or "//" in low or "10." in low


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


# The rules' further tests (Rule.also): of the text the rule's pattern read (and of its tokens)
def _few_words_besides_urls(line: str, words: Sequence[str]) -> bool:
    """At most :data:`URL_WORDS` words of ``line`` outside its URLs."""
    return len(_URL.sub(" ", line).split()) <= URL_WORDS


def _url_tokens(text: str, words: Sequence[str]) -> bool:
    """Tokens (``words``, ``text`` joined) of which some are a URL (:data:`_URL_TOKEN`) and at most
    :data:`URL_WORDS` others are words (``doi`` and punctuation aside), with a URL's mark in the text
    (:func:`_maybe_url`): a DOI's number alone (``##.####/...``, its digits ``#``) is none."""
    if not _maybe_url(text):
        return False
    urls = [t for t in words if _URL_TOKEN.match(t)]
    if not urls:
        return False
    other = [t for t in words if t not in urls and t != "doi" and any(c.isalnum() for c in t)]
    return len(other) <= URL_WORDS


def _licence_word(low: str, words: Sequence[str]) -> bool:
    """A licence's word (``licence``, ``copyright``, ``rights`` ... : :func:`_maybe_licence`) in ``low``."""
    return _maybe_licence(low)


def _unquoted(low: str, words: Sequence[str]) -> bool:
    """No quote in ``low``: a sentence in quotes is no statement of the paper's."""
    return not _QUOTES.search(low)


def _funder_named(low: str, words: Sequence[str]) -> bool:
    return bool(_FUNDER.search(low))


def _declared(low: str, words: Sequence[str]) -> bool:
    return bool(_COMPETING_DECLARED.search(low))


LINE, TOKENS, BOTH, STATEMENT = "line", "tokens", "both", "statement"
"""What a rule reads (:attr:`Rule.reads`)."""


@dataclass(frozen=True)
class Rule:
    """A rule of the layout, one row of :data:`RULES`: a line or sentence in which ``pattern`` finds something,
    and ``also`` holds, is of kind ``kind`` (:data:`NON_RUNNING`).

    ``reads``: :data:`LINE`, a line or a raw sentence (:func:`is_non_running`); :data:`TOKENS`, a tokenized sentence
    (:func:`sentence_kind`: lowercase tokens, digits ``#``, joined by spaces); :data:`BOTH`, either; :data:`STATEMENT`,
    a lower-cased sentence of the back matter, raw or tokens joined (:func:`statement_kind`, which
    :func:`sentence_kind` asks last). ``maybe``: a quick test (substrings, no regex) of the lower-cased text, asked
    first, that holds wherever the rule finds something (on text with single spaces, as lines and joined tokens
    are here); rules of one kind may share one. None: no quick test. ``pattern`` is searched in the lower-cased
    text, or in the text as written with ``cased``; ``also`` is a further test of that text (and of the tokens,
    for :data:`TOKENS`). ``match`` and ``no_match``: real lines and sentences of SumPubMed papers, raw, that the
    rule finds, and running text that it does not (a test runs them all, through the classifiers the rule serves).
    """

    kind: str
    reads: str
    maybe: Callable[[str], bool] | None
    pattern: re.Pattern[str]
    match: tuple[str, ...]
    no_match: tuple[str, ...]
    cased: bool = False
    also: Callable[[str, Sequence[str]], bool] | None = None

    def found(self, text: str, words: Sequence[str] = ()) -> bool:
        """Whether ``pattern`` finds something in ``text`` and ``also`` holds (no quick test): what ``maybe``
        must admit. ``words``: the tokens of ``text``, for :data:`TOKENS`."""
        return bool(self.pattern.search(text)) and (self.also is None or self.also(text, words))

    def finds(self, text: str, low: str, words: Sequence[str] = ()) -> bool:
        """Whether the rule finds ``text`` (``low``: lower-cased) of its kind: ``maybe``, then :meth:`found`."""
        return (self.maybe is None or self.maybe(low)) and self.found(text if self.cased else low, words)


RULES = (
    Rule(
        "file_caption", BOTH, _maybe_file_caption, _FILE_CAPTION,
        match=("additional file 8", "additional file 2: table s2 primers used in this study.", "click here for file"),
        no_match=("the input alignment is clearly flawed, see additional file <dig>",
                  "co-expression patterns among candidate genes in networks including additional gene transcripts"),
    ),
    Rule(
        "footnote", LINE, None, _FOOTNOTE, cased=True,
        match=("† indicates that hsp67bb was not amplified.", "3number of unique reads in a sample.",
               "5in contrast to rast and prodigal rebase predicts a second candidate for this orf",
               "#misidentification only at species level, all isolates were identified by genus.",
               "*significant difference at p ≤ <dig>",
               "‡number of sequences by contig, where <dig> indicates singleton."),
        no_match=("16s rrna clone library and phylogenetic analysis", "3d surface view", "72e",
                  "6s: s*ds or the number of synonymous changes"),
    ),
    Rule(
        "footnote", TOKENS, None, _TOKEN_FOOTNOTE,
        match=("3number of unique reads in a sample.", "*significant difference at p ≤ <dig>", "#standard error.",
               "‡number of sequences by contig, where <dig> indicates singleton."),
        no_match=("16s rrna clone library and phylogenetic analysis", "3d surface view"),
    ),
    Rule(
        "licence", BOTH, _maybe_licence, _LICENCE,
        match=("© 2010 smith et al; licensee biomed central ltd.", "licenses: creative commons",
               "©pertti and risto sulkava", "copyright © 2009 the authors"),
        no_match=("license: lgpl",
                  "the intellectual property rights of the primer sequence belonged to ribo biology, which were "
                  "asked to be classified.",
                  "both the client and source codes of rims are made freely available with an open source license."),
    ),
    Rule(  # (the terms alone, beside no licence's word, are running text)
        "licence", BOTH, _maybe_licence, _LICENCE_TERMS, also=_licence_word,
        match=("qt, qwt and qwtplot <dig> d are distributed under the terms of the gnu lesser general public license.",
               "this article is distributed under the terms of the creative commons attribution license."),
        no_match=("qt, qwt and qwtplot <dig> d are distributed under the terms of the gnu lesser general public",),
    ),
    Rule(
        "url", LINE, _maybe_url, _URL, cased=True, also=_few_words_besides_urls,
        match=("documentation: http://goo.gl/k5ffhu", "project home page:https://sourceforge.net/projects/clinqc",
               "software home page: http://www.sc.ehu.es/ccwrobot", "doi: 10.1186/1471-2164-9-1"),
        no_match=("http: hypertext transfer protocol", "// identification ofntvertices of maximal degree//",
                  "the software mp-pbmice is freely available at http://www.idmshanghai.cn/pbmice."),
    ),
    Rule(
        "url", TOKENS, _maybe_url, _URL_IN_TOKENS, also=_url_tokens,
        match=("vigor is available at http://www.jcvi.org/vigor.", "project home page: http://bioinfo.mpl.ird.fr/",
               "see http://ancillary.toxodb.org/docs/snpdiscovery.htm for details.",
               "<cit> , http://dx.doi.org/ <dig> /dryad.6b5f <dig>"),
        no_match=("vigor is available for public use at http://www.jcvi.org/vigor.",
                  "the database is available at http://planaria.sdsu.edu."),
    ),
    # the back matter's statements
    Rule(
        "acknowledgement", STATEMENT, _maybe_thanks, _THANKS, also=_unquoted,
        match=("we thank bill hempel for his contribution in the writing of the ms in english.",
               "the authors are grateful to ms. mary victoria pragnell, ba, for linguistic assistance.",
               "mp would like to thank steven z. swartz for stimulating discussions and paper revisions.",
               "many thanks to fan meng and manhong dai for the use of the mgrep software.",
               "th and tb gratefully acknowledge funding by the deutsche forschungsgemeinschaft."),
        no_match=("thanks to the scalability of structure software, we reduced the computing time to few days.",
                  "we acknowledge that scenarios of selection may be more complex than those in this experiment.",
                  "it is acknowledged that dna methylation aberrations cause diseases <cit>.",
                  'we thank the "société française de rhumatologie" that provided funds.'),
    ),
    Rule(
        "publication", STATEMENT, _maybe_publication, _PUBLICATION,
        match=("publication costs for this article were funded by fiocruz.",
               "publication of this article was funded by italian ministry of health.",
               "this article has been published as part of bmc bioinformatics volume <dig> supplement <dig> 2011",
               "the full contents of the supplement are available online at "
               "http://www.biomedcentral.com/bmcgenomics/supplements/16/s <dig>"),
        no_match=("in this publication we refer to the matrices as dayhoff matrices and reserve the term pam for "
                  "distance units.",
                  "validation of the affymetrix array has been done by the group at lund university and is not "
                  "included in this publication."),
    ),
    Rule(  # a supplement's note of the meeting it comes from
        "publication", STATEMENT, _maybe_publication, _PROCEEDINGS,
        match=("from the fifteenth asia pacific bioinformatics conference shenzhen, china.",
               "from the international conference on intelligent biology and medicine <dig> indianapolis, in, usa.",
               "from the fourteenth asia pacific bioinformatics conference san francisco, ca, usa. <dig> - <dig> "
               "january 2016"),
        no_match=("from the meeting minutes, conclusions followed.",),
    ),
    Rule(  # funded: the work (or an author) is funded, and a funder is named
        "acknowledgement", STATEMENT, _maybe_funding, _FUNDED, also=_funder_named,
        match=("this research was supported by the israel science foundation.",
               "this work has been supported in part by the nih grant r01-lm <dig> and nsf grant <dig>",
               "ph is supported by an mqres scholarship from macquarie university and a top-up scholarship from "
               "csiro."),
        no_match=("this hypothesis is supported by findings from pammer et al. <cit>.",
                  "initiatives such as the microbial genome sequencing project funded by the gordon and betty moore "
                  "foundation provide data."),
    ),
    Rule(  # funding: no funder needed
        "acknowledgement", STATEMENT, _maybe_funding, _FUNDING,
        match=("the funders had no role in study design, data collection and analysis, decision to publish, or "
               "preparation of the manuscript.",
               "the funding agencies had no role in study design, data analysis or interpretation, or manuscript "
               "preparation."),
        no_match=("funestus has received much less attention.",
                  "most of the calves received colostrum from their own dam only."),
    ),
    Rule(
        "competing_interests", STATEMENT, _maybe_competing, _COMPETING, also=_declared,
        match=("the authors declare that they have no competing interests.", "competing interests none.",
               "none of the authors have any conflict of interests."),
        no_match=("this conflict of interest has to be attenuated by very effective immune responses.",
                  "competing models were analyzed using the akaike information criterion."),
    ),
    Rule(
        "contributions", STATEMENT, _maybe_contributions, _CONTRIBUTIONS,
        match=("all authors read and approved the final manuscript.", "lw drafted the manuscript.",
               "mingkun zhang and zhenwen cui contributed equally to this work",
               "ad and tt analyzed the data and wrote the paper."),
        no_match=("the contribution of each parameter was evaluated with logistic regression.",),
    ),
)  # fmt: skip
"""The layout's rules, in the order they are asked (the first that finds a line or sentence gives its kind)."""
_Group = tuple[Callable[[str], bool] | None, tuple[Rule, ...]]
"""Rules asked in a row that share one quick test (or none), with that test: asked once for them all."""


def _groups(rules: tuple[Rule, ...]) -> tuple[_Group, ...]:
    """``rules`` in order, those in a row with the same quick test together."""
    groups: list[_Group] = []
    for rule in rules:
        if groups and groups[-1][0] is rule.maybe:
            groups[-1] = (rule.maybe, (*groups[-1][1], rule))
        else:
            groups.append((rule.maybe, (rule,)))
    return tuple(groups)


def _first_kind(groups: tuple[_Group, ...], text: str, low: str, words: Sequence[str] = ()) -> str | None:
    """The kind of the first rule of ``groups`` that finds ``text`` (``low``: lower-cased; ``words``: its tokens),
    or None: what :meth:`Rule.finds` says, each quick test asked once."""
    for maybe, rules in groups:
        if maybe is None or maybe(low):
            for rule in rules:
                if rule.found(text if rule.cased else low, words):
                    return rule.kind
    return None


_LINES = _groups(tuple(rule for rule in RULES if rule.reads in (LINE, BOTH)))
_TOKENS = _groups(tuple(rule for rule in RULES if rule.reads in (TOKENS, BOTH)))
_STATEMENTS = _groups(tuple(rule for rule in RULES if rule.reads == STATEMENT))
_TOKEN_TESTS = tuple(maybe for maybe, _ in _TOKENS if maybe is not None)
"""The quick tests of the rules of tokens (a paragraph that none admits has only footnotes to find)."""
_PAPER_TESTS = _TOKEN_TESTS + tuple(maybe for maybe, _ in _STATEMENTS if maybe is not None)
"""The quick tests of the rules of tokens and of the statements."""


@dataclass(frozen=True)
class Block:
    """A piece of a document: ``kind`` is ``text``, ``heading`` or one of :data:`NON_RUNNING`."""

    kind: str
    text: str


def is_non_running(text: str) -> str | None:
    """The kind of non-running text ``text`` (a line or a sentence) is, or None for running text: the first of
    the rules of lines (:data:`RULES`) that finds it.

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
    return _first_kind(_LINES, s, low)


def sentence_kind(tokens: list[str], statements: bool = True) -> str | None:
    """:func:`is_non_running` for a tokenized sentence (lowercase PTB tokens, digits ``#``): the first of the
    rules of tokens (:data:`RULES`) that finds it; then, with ``statements``, :func:`statement_kind`."""
    words = [t for t in tokens if t != "</s>"] if "</s>" in tokens else tokens
    if not words:
        return None
    text = " ".join(words)
    kind = _first_kind(_TOKENS, text, text, words)
    if kind is None and statements:
        return statement_kind(text)
    return kind


def statement_kind(low: str) -> str | None:
    """The kind of back-matter statement (:data:`STATEMENTS`) the lower-cased sentence ``low`` is,
    or None: the first of the statements' rules (:data:`RULES`) that finds it.

    >>> statement_kind("this work was supported by university of padova grants.")
    'acknowledgement'
    >>> statement_kind("this work was supported by our earlier finding that ...") is None
    True
    """
    return _first_kind(_STATEMENTS, low, low)


def sentence_kinds(text: str, sentences: list[list[str]], statements: bool = True) -> list[str | None]:
    """:func:`sentence_kind` of each of the tokenized ``sentences`` of the paragraph ``text``; the
    paragraph is looked at first, so that most paragraphs cost a few substring tests (the rules' quick
    tests). ``statements``: judge the back matter's statements too (a paper's text; not a news article's,
    whose quotes thank)."""
    low = text.lower()
    if not any(maybe(low) for maybe in (_PAPER_TESTS if statements else _TOKEN_TESTS)):
        # only a footnote (the one rule of tokens without a quick test): none when no sentence's first token
        # starts like one (one search, no loop)
        if not _TOKEN_FOOTNOTE_ANY.search(" ".join([s[0] for s in sentences])):
            return [None] * len(sentences)
        return [None if not _TOKEN_FOOTNOTE.match(s[0]) else sentence_kind(s, statements) for s in sentences]
    kinds = [sentence_kind(s, statements) for s in sentences]
    for k in range(1, len(kinds)):  # a publication note's dates, cut from it ("... usa ." "## -- < dig > october ####")
        if kinds[k - 1] == "publication" and kinds[k] is None and _DATE_ONLY.match(" ".join(sentences[k])):
            kinds[k] = "publication"
    return kinds


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
    classified = [_classified(para) for para in _paragraphs(text)]
    short_only = [_short_only(lines) for lines in classified]
    out: list[Block] = []
    pending: list[list[str]] = []  # paragraphs of short lines, waiting for what follows them
    for i, lines in enumerate(classified):
        if short_only[i]:  # a heading or part of a table, decided by what follows
            pending = _short_paragraph(lines, pending, out)
        else:
            pending = _running_paragraph(lines, pending, i + 1 < len(classified) and short_only[i + 1], out)
    out.extend(_settled(pending, None))
    return _never_empty(out, text)


def _paragraphs(text: str) -> list[list[str]]:
    """The paragraphs of ``text`` (runs of lines between blank lines), each a list of its lines,
    whitespace collapsed."""
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
    return paragraphs


def _block(kind: str, text: str) -> Block:
    """The block of a classified line that is not running text (:func:`_classified`)."""
    return Block("file_caption" if kind == "caption" else kind, text)


def _short_paragraph(lines: list[tuple[str, str]], pending: list[list[str]], out: list[Block]) -> list[list[str]]:
    """Append to ``out`` the blocks that a paragraph of short lines only (``lines``, :func:`_classified`)
    settles: its non-running lines, each after the pending short paragraphs before it (:func:`_settled`).
    Returns the short paragraphs pending after it: ``pending`` and its short lines, or those after its last
    non-running line."""
    short: list[str] = []
    for kind, x in lines:
        if kind == "line":
            short.append(x)
            continue
        out.extend(_settled([*pending, short] if short else pending, None))
        pending, short = [], []
        out.append(_block(kind, x))
    return [*pending, short] if short else pending


def _running_paragraph(
    lines: list[tuple[str, str]], pending: list[list[str]], table_next: bool, out: list[Block]
) -> list[list[str]]:
    """Append to ``out`` the blocks of a paragraph with running text (``lines``, :func:`_classified`): the
    pending short paragraphs and its headings (:func:`_settled`), then its body (:func:`_body_blocks`).
    ``table_next``: a paragraph of short lines follows, so that a title on the last lines of this one goes
    with them (:func:`_title_lines_at_end`). Returns the short paragraphs pending after it."""
    lead = _heading_lines(lines)
    heads = [x for _, x in lines[:lead]]
    if lead > 3:  # a table whose last rows touch the text: no headings
        out.extend(_settled([*pending, heads], []))
    else:
        out.extend(_settled(pending, heads))
    # a table's or figure's title on the last lines of a paragraph, before the table's cells:
    # "... invasion <cit> ." / "s. pneumoniae" / "gene expression in the presence of ..."
    end = _title_lines_at_end(lines, lead) if table_next else len(lines)
    # a legend (under a figure's or table's number among the headings, at the paragraph's head, on a line
    # of its own after a sentence, or glued to one) runs to the paragraph's end
    legend = any(_LEGEND.match(x) for x in heads) or None  # None: no text yet
    out.extend(_body_blocks(lines[lead:end], legend))
    # with the short lines after it: a table, or headings (_settled decides)
    return [[x for _, x in lines[end:]]] if end < len(lines) else []


def _heading_lines(lines: list[tuple[str, str]]) -> int:
    """How many lines at the head of a paragraph with running text are its headings (or, more than three, the
    last rows of a table before it): short titled lines, each clearly shorter than the paragraph's longest
    line, none going on into the next line or breaking off before a figure's number; wrapped prose at the end
    of more than three such lines is the paragraph's text (:func:`_wrapped_prose`)."""
    longest = max(len(x) for kind, x in lines if kind == "line")
    lead = 0
    while lead < len(lines) - 1 and _heads_paragraph(lines[lead], lines[lead + 1][1], longest):
        lead += 1
    if lead > 3:
        while lead > 0 and _wrapped_prose(lines[lead - 1][1]):
            lead -= 1
    return lead


def _heads_paragraph(line: tuple[str, str], after: str, longest: int) -> bool:
    """Whether a classified ``line``, followed by the line ``after``, may be a heading of a paragraph whose
    longest line has ``longest`` characters."""
    kind, x = line
    return (
        kind == "line"
        and _short(x)
        and _titled(x)
        and len(x) <= HEADING_SHARE * longest
        and not _CONTINUES.match(after)
        and not _DANGLING.search(x)
    )


def _body_blocks(lines: list[tuple[str, str]], legend: bool | None) -> list[Block]:
    """The blocks of the body of a paragraph with running text (``lines``, :func:`_classified`, after its
    headings): its runs of lines as running text and legends (:func:`_text_blocks`), cut at each
    non-running line and before a legend on a line of its own after a sentence end. ``legend``: the
    paragraph is a legend already (its headings name a figure); None: nothing of it was text before."""
    out: list[Block] = []
    body: list[str] = []
    for kind, x in lines:
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
        out.append(_block(kind, x))
    if body:
        _text_blocks(" ".join(body), legend, out)
    return out


def _settled(pending: list[list[str]], heads: list[str] | None) -> list[Block]:
    """The blocks of the ``pending`` paragraphs of short lines, then of ``heads`` (the headings at the head of
    a paragraph of running text; None: no running text follows). With running text after them and no heads
    of its own, the last pending paragraph of one or two titled lines is its heading; the rest is a table
    when three lines or more (a section name in capitals, ``RESULTS``, stays a heading), else headings."""
    paras = list(pending)
    if heads is None:
        heads = []
    elif not heads and paras and len(paras[-1]) <= 2 and all(_titled(x) for x in paras[-1]):
        heads = paras.pop()
    rest = [x for para in paras for x in para]
    if len(rest) >= 3:
        out = _table_blocks(rest)
    else:
        out = [Block(_heading_kind(x) if _titled(x) else "table", x) for x in rest]
    out.extend(Block(_heading_kind(h), h) for h in heads)
    return out


def _table_blocks(rows: list[str]) -> list[Block]:
    """A table of ``rows`` (three short lines or more), cut at each section name in capitals (``RESULTS``),
    a heading."""
    out: list[Block] = []
    cells: list[str] = []
    for x in rows:
        if _CAPITALS.fullmatch(x):
            if cells:
                out.append(Block("table", "\n".join(cells)))
                cells = []
            out.append(Block("heading", x))
        else:
            cells.append(x)
    if cells:
        out.append(Block("table", "\n".join(cells)))
    return out


def _never_empty(out: list[Block], text: str) -> list[Block]:
    """``out``, unless it has no running text: then its legends as text (captions alone, a passage of a
    paper: they are the prose), or else ``text`` as one ``text`` block."""
    if any(b.kind == "text" for b in out):
        return out
    if any(b.kind == "legend" for b in out):
        return [Block("text", b.text) if b.kind == "legend" else b for b in out]
    return [Block("text", text)]
