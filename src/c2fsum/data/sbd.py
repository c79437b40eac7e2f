"""pysbd's English sentence splitting, re-done in linear time for the lowercase views it is given.

:mod:`c2fsum.data.tokenize` asks a sentence splitter where the sentences of a *view* start: the
article's word tokens rendered as prose, lowercase, every digit written ``0``, no quote marks,
no line breaks. Up to issue 17 that splitter was ``pysbd`` 0.3.4 (a port of the Ruby
pragmatic_segmenter), at about 20,000 words/s and quadratic on long texts: it re-scans the
whole text once per occurrence of every abbreviation it knows (``al`` in ``et al.``, ``fig``,
``no``...) and once per list item. :func:`sentences` returns the same sentences as
``pysbd.Segmenter(language="en", clean=False).processor(view).process()`` on such views, rule
for rule in pysbd's order, with three differences in how, none in what:

* rules that need an uppercase letter (sentence starters, ``A.M.``, single capitals, numbered
  references, quotations followed by a capital) can never fire on a lowercase view and are
  left out; so are the numbered-list rules, which need two consecutive numbers (every digit
  is ``0`` here, and ``0`` never follows ``0``);
* the abbreviation rule (one ``re.sub`` over the text per occurrence of each of 170
  abbreviations) is one scan over the periods of the text, each period checked against the
  abbreviations that could end at it; the list rules make one substitution per list kind;
* characters that pysbd uses as its own placeholders never reach the rules: they are
  replaced by U+0001 (which no rule treats specially) in a copy of the view of the same
  length, in which the sentences are then located (pysbd would turn a ``∯`` of the text into
  a period, for example). None of the 3,573 golden documents holds such a character.

pysbd quirks kept on purpose, because the tokens of the prepared data depend on them: the
dotted abbreviations ``i.e``, ``e.g``, ``u.s``, ``ph.d``, ``d.phil``, ``dr.phil``,
``dr.philos`` are regular expressions in which ``.`` matches any character, so once ``i.e``
occurs in a text, ``ice.`` or ``ide.`` before a lowercase word does not end a sentence either;
text inside brackets (and, without ``science``, between two ``--`` dashes) never holds a sentence end; single
letters in alphabetical order followed by ``.`` or ``)`` (``a. ... b.``) are list items and
start sentences.

Every step is a compiled regular expression applied once to the text, or a scan of one kind of
character, so the time is linear in the length of the view (see ``bench/preprocess.py``). Where
pysbd's pattern starts with a lookbehind or a common character class, it is written here to
start with its rare character (the period, ``)``, ``'``) and the lookbehind after it: the same
matches, but the regex engine jumps from one such character to the next instead of trying the
pattern at every position (issue 36: the splitter 2.5x faster on PubMed papers). Each is
checked against pysbd's own pattern in tests/data/test_sbd.py.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet

# ------------------------------------------------------------------ placeholders (pysbd's)
_PLACEHOLDER_CHARS = "∯∮♨☝ȸȹ☉☈☇☄ᓴᓷᓰᓱᓳᓸ✂⌬ƪ☏♟♝⎋♬♭\r\n\x00"
_SEPARATOR = "\x00"
_PLACEHOLDERS = re.compile("[" + re.escape(_PLACEHOLDER_CHARS) + "]")
_PUNCTUATIONS = ("。", "．", ".", "！", "!", "?", "？")

# ------------------------------------------------------------------ list items
_ROMAN = "i ii iii iv v vi vii viii ix x xi xii xiii xiv x xi xii xiii xv xvi xvii xviii xix xx".split(" ")
_LATIN = list(string.ascii_lowercase)
# pysbd's (?<=^)[a-z](?=\.)|(?<=\A)[a-z](?=\.)|(?<=\s)[a-z](?=\.), found in " " + text (3x faster), as
# \s([a-z])\. written to start with the period (the regex engine jumps from period to period; the
# matches never overlap, so they are the same)
_LIST_WITH_PERIODS = re.compile(r"\.(?<=\s([a-z])\.)")
# pysbd's (?<=\()[a-z]+(?=\))|(?<=^)[a-z]+(?=\))|(?<=\A)[a-z]+(?=\))|(?<=\s)[a-z]+(?=\)), in " " + text: the
# words [\s(]([a-z]++)\) finds, those of at most 5 letters (no list item is longer: "xviii"), found from
# each ")" back (one lookbehind per length: the engine jumps from bracket to bracket)
_LIST_WITH_PARENS = re.compile(r"\)(?:" + "|".join(rf"(?<=[\s(]([a-z]{{{k}}})\))" for k in range(1, 6)) + ")")
# pysbd's (?<=^)[a-z]\.|(?<=\A)[a-z]\.|(?<=\s)[a-z]\. (case-insensitive): its periods, found from each period
# (the letter, after whitespace or at the start, in a lookbehind; see _replace_letters)
_LIST_LETTERS_AND_PERIODS = re.compile(r"\.(?<=(?<!\S)[a-z]\.)", re.IGNORECASE)
# pysbd's \([a-z]+(?=\))|(?<=^)[a-z]+(?=\))|(?<=\A)[a-z]+(?=\))|(?<=\s)[a-z]+(?=\)) (case-insensitive): its
# words of at most 5 letters (the longest list item), found from each ")": group 2k-1 holds a word of k letters
# after "(", group 2k one after whitespace or at the start
_LIST_LETTERS_PARENS = re.compile(
    r"\)(?:" + "|".join(rf"(?<=\(([a-z]{{{k}}})\))|(?<=(?<!\S)([a-z]{{{k}}})\))" for k in range(1, 6)) + ")", re.I
)

# ------------------------------------------------------------------ abbreviations
_ABBREVIATIONS = (
    "adj adm adv al ala alta apr arc ariz ark art assn asst attys aug ave bart bld bldg blvd brig bros btw cal "
    "calif capt cl cmdr co col colo comdr con conn corp cpl cres ct d.phil dak dec del dept det dist dr dr.phil "
    "dr.philos drs e.g ens esp esq etc exp expy ext feb fed fla ft fwy fy ga gen gov hon hosp hr hway hwy i.e ia "
    "id ida ill inc ind ing insp is jan jr jul jun kan kans ken ky la lt ltd maj man mar mass may md me med "
    "messrs mex mfg mich min minn miss mlle mm mme mo mont mr mrs ms msgr mssrs mt mtn neb nebr nev no nos nov "
    "nr oct ok okla ont op ord ore p pa pd pde penn penna pfc ph ph.d pl plz pp prof pvt que rd rs ref rep reps "
    "res rev rt sask sec sen sens sep sept sfc sgt sr st supt surg tce tenn tex univ usafa u.s ut va v ver viz vs "
    "vt wash wis wisc wy wyo yuk fig"
).split()
_PREPOSITIVE = frozenset(
    "adm attys brig capt cmdr col cpl det dr gen gov ing lt maj mr mrs ms mt messrs mssrs prof ph rep reps rev "
    "sen sens sgt st supt v vs fig".split()
)
_NUMBER_ABBR = frozenset("art ext no nos p pp".split())
_PLAIN_ABBR = frozenset(a for a in _ABBREVIATIONS if "." not in a)
_DOTTED_ABBR = tuple(a for a in _ABBREVIATIONS if "." in a)  # "." is a wildcard in pysbd's regex
# pysbd's (?:^|\s|\r|\n)ABBR (case-insensitive) as two patterns, after whitespace and at the start (2x
# faster; a match at the start never overlaps one after whitespace: no ABBR's second letter is its first)
_DOTTED_FIND = {a: (re.compile(rf"\s{a}", re.IGNORECASE), re.compile(a, re.IGNORECASE)) for a in _DOTTED_ABBR}
_AFTER_PREPOSITIVE = re.compile(r"\s|:\d+")
_AFTER_NUMBER_ABBR = re.compile(r"\s\d|\s+\(")
_AFTER_ABBR = re.compile(r"(\.|\:|-|\?|,)|(\s([a-z]|I\s|I'm|I'll|\d|\())")
_MAX_ABBR = max(len(a) for a in _ABBREVIATIONS)
_POSSESSIVE_ABBR = re.compile(r"\.(?='s\s)|\.(?='s$)|\.(?='s\Z)")
# issue 36: on scientific text (lowercase, so no capital tells a name from a sentence start) a
# period after a single letter is a species' genus ("e. coli", "c. elegans", "x. laevis") or an
# initial, and these abbreviations of papers end no sentence before a lowercase word, a digit or
# "(" either; "(e.", "innocua-l." count as well as " e."
_SCIENCE_ABBR = frozenset(
    set(string.ascii_lowercase) | set("sp spp ssp subsp var cf ca approx resp figs eq eqs refs et ae vol suppl".split())
)
# ... except that one of them (not pysbd's) before one of these words, which start sentences, still
# ends one ("hepatitis a. the diocese says", "troop b. he told", "9pm et. for the latest"); no
# species' name or surname is one of these words
_STARTERS = frozenset(
    "the a an this that these those it its he she they we i you his her their our my there here in on at for "
    "from with by as after before when while if but so however although though because since during then also "
    "thus hence moreover furthermore finally first second one two all each both some many most no not what "
    "which who how where why yet still such other another further only even to note either given let now "
    "using consider".split()
)
# (no verb: a sentence of a paper starts with "were" or "is" only as a question, while "sporothrix
# spp. were obtained", "group b. is" continue one; issue 36, validation paper sumpubmed-21418)
# after sp./spp. a preposition continues the sentence ("aeromonas spp. with known pathogenic
# potential", "cryptosporidium spp. in the youngest cats": 36 of 37 such places read in train papers)
_SPECIES_ABBR = frozenset({"sp", "spp", "ssp", "subsp"})
_PREPOSITIONS = frozenset("in on at for from with by as after before during to".split())
# "i.e." and "e.g." written with a space ("for the others, i. e. the other receptors"): the
# second letter's period ends no sentence either (sumpubmed-28733)
_SPACED_ABBR = frozenset({"i. e", "e. g"})
# an equation's or figure's label after its abbreviation, a letter and a number ("additional file 0: eq. a 0 if
# s marked cells ...", sumpubmed-9433), is no sentence start "a"
_LABEL_ABBR = frozenset({"eq", "eqs", "figs", "refs"})
_LABEL = re.compile(r"\s*[a-z]\s*(?:\d|<)")
# the word after an abbreviation's period, whole: "eqs. a00-a 0" is no sentence start "a" (sumpubmed-9433)
_NEXT_WORD = re.compile(r"\s*([a-z']+)(?![\w-])")
# a single letter with a period before a lowercase word that is no sentence starter ("e. coli",
# "henry e. hudson") is never a list item; "a.m." and "troop b. he" still are, as in pysbd
_NAMED = r"(?!\s(?!(?:" + "|".join(sorted(_STARTERS, key=len, reverse=True)) + r")\b)[a-z])"
_SCIENCE_LIST_WITH_PERIODS = re.compile(r"\.(?<=\s([a-z])\.)" + _NAMED)
_SCIENCE_LIST_LETTERS_AND_PERIODS = re.compile(r"\.(?<=(?<!\S)[a-z]\.)" + _NAMED, re.IGNORECASE)
# SumPubMed writes a number with two or more periods as "< dig > . < dig >" ("hmmer < dig >. < dig > was used",
# "belongs to ec < dig >. < dig >"): that period ends no sentence, but after a quantity ("of at least < dig >.
# < dig > genes were identified ...": of 77 such cuts in the validation papers, 2 were sentence ends, both after
# "than" or "to"; 6 decimals after such a word stay cut: "ranged from < dig > to < dig >. < dig > centirays")
_DIG_POINT = re.compile(r"\.(?<=< dig >\.)(?= < dig >)")
_QUANTITY_WORDS = frozenset(
    "least most than to of from and or by about approximately at over under above below between with is was were "
    "are be = < > ≥ ≤ ~".split()
)


def _dig_point(match: re.Match) -> str:
    """``∯`` for the period of a :data:`_DIG_POINT` match, unless the word before its number says a quantity."""
    text = match.string
    before = text[max(0, match.start() - 27) : match.start() - 7].split()  # (7: "< dig >")
    return "." if before and before[-1] in _QUANTITY_WORDS else "∯"


_NOT_SCIENCE_ABBR = frozenset("min hr mm sec ms".split())  # units: "for 5 min." ends a sentence in papers
_AFTER_SCIENCE_ABBR = re.compile(r"(\.|\:|-|\?|,)|(\s([a-z]|I\s|I'm|I'll|\d|\(|<))")  # and "et al. <cit>"
# pysbd's \b[a-z](?:\.[a-z])+[.] written to start with the first period (the letter before it in a
# lookbehind): the same periods, found by jumping from period to period
_MULTI_PERIOD_ABBR = re.compile(r"\.(?<=\b[a-z]\.)[a-z](?:\.[a-z])*[.]", re.IGNORECASE)

# ------------------------------------------------------------------ numbers, punctuation
# pysbd's number rules, (?<=\d)\.(?=\S) ... (?<=^\d\d)\.(?=(\s\S)|\)), written to start with the
# period (the lookbehind moved after it, ending with it): the same matches, but the regex engine
# jumps from period to period instead of trying the lookbehind at every character
_NUMBER_RULES = (
    (re.compile(r"\.(?=\d)"), "∯"),
    (re.compile(r"\.(?<=\d\.)(?=\S)"), "∯"),
    (re.compile(r"\.(?<=\r\d\.)(?=(\s\S)|\))"), "∯"),
    (re.compile(r"\.(?<=^\d\.)(?=(\s\S)|\))"), "∯"),
    (re.compile(r"\.(?<=^\d\d\.)(?=(\s\S)|\))"), "∯"),
)
# pysbd's (?<=\S)(!|\?){3,}(?=(\s|\Z|$)), the same matches, written to start with a character
# class so that the regex engine jumps to the next "!" or "?" instead of trying every position
_CONTINUOUS_PUNCT = re.compile(r"[!?](?<=\S[!?])[!?]{2,}(?=\s|\Z|$)")
# pysbd's ([a-zA-Z0-9_])(\.)([a-zA-Z0-9_]) -> \1∮\3: the periods between two such characters, found from
# each period (see _multiple_periods for the characters a match consumes)
_WITH_MULTIPLE_PERIODS = re.compile(r"\.(?<=[a-zA-Z0-9_]\.)(?=[a-zA-Z0-9_])")
_GEO_LOCATION = re.compile(r"\.(?<=[a-zA-z]°\.)(?=\s*\d+)")  # pysbd's, the lookbehind after the period
_FILE_FORMAT = re.compile(
    r"\.(?<=\s\.)(?=(jpe?g|png|gif|tiff?|pdf|ps|docx?|xlsx?|svg|bmp|tga|exif|odt|html?|txt|rtf|bat|sxw|xml|zip|exe"
    r"|msi|blend|wmv|mp[34]|pptx?|flac|rb|cpp|cs|js)\s)"
)
_ELLIPSIS_RULES = (  # (what must occur in a view, whose only whitespace is " ", for the rule to match)
    (" . . . ", re.compile(r"(\s\.){3}\s"), "♟♟♟♟♟♟♟"),
    (". . . .", re.compile(r"(?<=[a-z])(\.\s){3}\.($|\\n)"), "♝♝♝♝♝♝♝"),
    ("...", re.compile(r"\.\.\."), "ƪƪƪ"),
)
_EXCLAMATION_WORDS = re.compile(
    "|".join(
        re.escape(w)
        for w in (
            "!Xũ !Kung ǃʼOǃKung !Xuun !Kung-Ekoka ǃHu ǃKhung ǃKu ǃung ǃXo ǃXû ǃXung ǃXũ !Xun Yahoo! Y!J Yum!"
        ).split()
    )
)
# pysbd's (?<=\s)'(?:[^']|'[a-zA-Z])*'\S, and below (?<=\s)'(?:[^']|'[a-zA-Z])*', written to start with the
# quote (the lookbehind after it): the same matches, found by jumping from quote to quote
_WORD_WITH_LEADING_APOSTROPHE = re.compile(r"'(?<=\s')(?:[^']|'[a-zA-Z])*'\S")
_QUOTE_SPACE = re.compile(r"'\s")
_BETWEEN = (  # (character that must occur, regex, single-quote kind); pysbd's order
    ("'", re.compile(r"'(?<=\s')(?:[^']|'[a-zA-Z])*'"), True),
    ("‘", re.compile(r"(?<=\s)‘(?:[^’]|’[a-zA-Z])*’"), False),
    ('"', re.compile(r'"(?=(?P<tmp>[^\"\\]+|\\{2}|\\.)*)(?P=tmp)"'), False),
    ("[", None, False),  # square brackets: see _between_square_brackets
    ("(", re.compile(r"\((?=(?P<tmp>[^\(\)\\]+|\\{2}|\\.)*)(?P=tmp)\)"), False),
    ("«", re.compile(r"\«(?=(?P<tmp>[^»\\]+|\\{2}|\\.)*)(?P=tmp)\»"), False),
    ("--", re.compile(r"--(?=(?P<tmp>[^--]*))(?P=tmp)--"), False),
    ("“", re.compile(r"\“(?=(?P<tmp>[^”\\]+|\\{2}|\\.)*)(?P=tmp)\”"), False),
)
_SQUARE_BRACKETS = re.compile(r"\[(?=(?P<tmp>[^\]\\]+|\\{2}|\\.)*)(?P=tmp)\]")
_PUNCT_TO_PLACEHOLDER = str.maketrans(
    {".": "∯", "。": "&ᓰ&", "．": "&ᓱ&", "！": "&ᓳ&", "!": "&ᓴ&", "?": "&ᓷ&", "？": "&ᓸ&"}
)
_DOUBLE_PUNCT = re.compile(r"\?!|!\?|\?\?|!!")
_DOUBLE_PUNCT_RULES = (
    (re.compile(r"\?!"), "☉"),
    (re.compile(r"!\?"), "☈"),
    (re.compile(r"\?\?"), "☇"),
    (re.compile(r"!!"), "☄"),
)
_QE_RULES = (
    (re.compile(r"\?(?=('|\"))"), "&ᓷ&"),
    (re.compile(r"\!(?=('|\"))"), "&ᓴ&"),
    (re.compile(r"\!(?=\,\s[a-z])"), "&ᓴ&"),
    (re.compile(r"\!(?=\s[a-z])"), "&ᓴ&"),
)
_FINAL_EXCLAMATION = re.compile(r"&ᓴ&$")
# pysbd's SENTENCE_BOUNDARY_REGEX without its alternatives that end in (?=\s?[A-Z]) (never on lowercase text)
# (its lazy \S.*?[...] written as \S[^...\n]*[...]: the same match, the first end mark after the first
# character, found by the regex engine's fast loop over one character class)
_SENTENCE = re.compile(r"[。．.！!?？ ]{2,}|\S[^。．.！!?？ȸȹ☉☈☇☄\n]*[。．.！!?？ȸȹ☉☈☇☄]|[。．.！!?？]")
_SUB_SYMBOLS = (
    ("∯", "."), ("♬", "،"), ("♭", ":"), ("&ᓰ&", "。"), ("&ᓱ&", "．"), ("&ᓳ&", "！"), ("&ᓴ&", "!"), ("&ᓷ&", "?"),
    ("&ᓸ&", "？"), ("☉", "?!"), ("☇", "??"), ("☈", "!?"), ("☄", "!!"), ("&✂&", "("), ("&⌬&", ")"), ("ȸ", ""),
    ("ȹ", "\n"),
)  # fmt: skip
_REINSERT_ELLIPSIS = (("ƪƪƪ", "..."), ("♟♟♟♟♟♟♟", " . . . "), ("♝♝♝♝♝♝♝", ". . . ."), ("☏☏", ".."), ("∮", "."))
_ANY_SYMBOL = re.compile("[∯♬♭ᓰᓱᓳᓴᓷᓸ☉☇☈☄✂⌬ȸȹƪ♟♝☏∮⎋]")
# (old, new, the symbol old holds): a replacement writes no symbol, so one that is not in the text
# before them is not in it at any step; the only "\n" is a replaced "ȹ" (views hold none)
_POST_PROCESS = tuple(
    (old, new, "ȹ" if old == "\n" else old.strip("&")[0])
    for old, new in _SUB_SYMBOLS + _REINSERT_ELLIPSIS + (("\n", ""), ("&⎋&", "'"))
)
_PARENS_BETWEEN_DOUBLE_QUOTES = re.compile(r'["\”]\s\(.*\)\s["\“]')
_SPACE_BEFORE_PAREN = re.compile(r"\s(?=\()")
_SPACE_AFTER_PAREN = re.compile(r"(?<=\))\s")
_FIND_WINDOW = 4096
# a number or letter alone ("0." of "... ever since. 0. the pizzeria -- lombardi 's", "< dig >." of "version
# < dig >. < dig >."): with science, no sentence of its own (see sentence_starts)
_LIST_MARKER = re.compile(r"\s*(?:(0+|< dig >)|[a-z]|[ivx]+)[.)]\s*")  # group 1: a number
_MARKER_CHARS = 12  # the longest a _LIST_MARKER sentence can be, its spaces around it ("< dig >." and a few)
_NUMBER_END = re.compile(r"(?:\b0+|< dig >)\.\s*$")  # a sentence that ends in a number


def sentence_starts(view: str, *, science: bool = True) -> list[int]:
    """Offsets in ``view`` where a sentence other than the first starts (:func:`sentences`); with
    ``science``, a number or letter alone (:data:`_LIST_MARKER`) is no sentence: the end of a
    version or decimal number after a sentence that ends in a number (``software version < dig >.
    < dig >.``, SumPubMed's ``1.5.2``) goes with that sentence, a list item's mark (``... ever
    since. 0. the pizzeria``) with the next.

    Each sentence of :func:`sentences` is located in the view after the previous one (within
    a window, so that a sentence pysbd rewrote cannot send the search to the end of the text
    for each of many sentences); one that is not found is skipped.
    """
    text = view
    if not view.isascii() or "\r" in view or "\n" in view or "\x00" in view:  # (the others are not ASCII)
        text = _PLACEHOLDERS.sub("\x01", view)
    starts: list[int] = []
    pos = 0
    n = len(text)
    for sentence in _sentences(text, science):
        start = pos
        while start < n and text[start].isspace():
            start += 1
        if text.startswith(sentence, start):
            found = start
        else:
            found = text.find(sentence, pos, pos + len(sentence) + _FIND_WINDOW)
            if found < 0:
                continue
        starts.append(found)
        pos = found + len(sentence)
    if science and len(starts) > 1:
        starts = _without_markers(text, starts)
    return starts[1:]


def _without_markers(text: str, starts: list[int]) -> list[int]:
    """``starts`` (of sentences of ``text``) less those that a :data:`_LIST_MARKER` sentence makes:
    its own when it is a number after a sentence that ends in a number (it ends that number), else
    the start of the sentence after it (it marks that sentence)."""
    ends = [*starts[1:], len(text)]
    drop: set[int] = set()
    for k, (a, b) in enumerate(zip(starts, ends, strict=True)):
        if b - a > _MARKER_CHARS:  # (nearly every sentence: no regex)
            continue
        marker = _LIST_MARKER.fullmatch(text, a, b)
        if marker is None:
            continue
        if k > 0 and marker.group(1) and _NUMBER_END.search(text, starts[k - 1], a):
            drop.add(a)
        elif k + 1 < len(starts):
            drop.add(starts[k + 1])
    return [c for c in starts if c not in drop] if drop else starts


def sentences(view: str, *, science: bool = True) -> list[str]:
    """The sentences of ``view`` (lowercase, no line breaks), stripped, empty ones left out.

    ``science=False``: exactly those pysbd finds (pysbd leaves a sentence of three or more ASCII
    letters unstripped; it has no spaces to strip). ``science=True`` (what c2fsum reads with,
    issue 36) differs in these rules only: a period after a single letter or after one of the
    abbreviations of papers (``sp.``, ``spp.``, ``cf.``, ``ca.``, ``approx.``, ``et.``, ``figs.``...)
    ends no sentence before a lowercase word, a digit, ``(`` or ``<`` (``et al. <cit>``), unless
    that word is one that starts sentences (``hepatitis a. the``, :data:`_STARTERS`), and
    ``min.``, ``hr.``, ``mm.`` do end sentences; a letter with a period before such a name
    (``c. elegans ... d. melanogaster``) is no list item; text between two ``--`` may hold sentence
    ends (pysbd's rule for it glued whole paragraphs of news); SumPubMed's ``< dig >. < dig >`` is
    one number unless a quantity word comes before it (:data:`_DIG_POINT`). (Letters in brackets,
    ``(a) ... (b)``, stay list items: the breaks they make keep pysbd's bracket rule from pairing
    brackets of different sentences, which it does across a whole segment.) :func:`sentence_starts`
    also joins a number or letter alone to a neighbour.
    """
    if not view.isascii() or "\r" in view or "\n" in view or "\x00" in view:  # (the others are not ASCII)
        view = _PLACEHOLDERS.sub("\x01", view)
    return _sentences(view, science)


def _sentences(text: str, science: bool) -> list[str]:
    """:func:`sentences` of a view whose placeholder characters are already replaced."""
    if not text:
        return []
    text = _protect(text, science)
    parts: list[str] = []
    for segment in text.split("\r"):
        if not segment:
            continue
        for needle, rule, repl in _ELLIPSIS_RULES:
            if needle in segment:
                segment = rule.sub(repl, segment)
        if any(p in segment for p in _PUNCTUATIONS):
            parts += _process_segment(segment, science)
        else:
            parts.append(segment)
    return _post_process(parts)


def _protect(text: str, science: bool) -> str:
    """pysbd's rules before the segments are split: list items as line breaks (``\r``), and the
    periods and marks that end no sentence (abbreviations, numbers, repeated ``!?``, ``a.b``,
    coordinates, file formats, brackets between quotes) replaced by placeholder symbols."""
    text = _list_items(text, science=science)
    text = _abbreviations(text, science)
    if science and "< dig >. < dig >" in text:  # SumPubMed's "1.5.2": "< dig > . < dig >" (a version, an ec number)
        text = _DIG_POINT.sub(_dig_point, text)
    for rule, repl in _NUMBER_RULES:
        text = rule.sub(repl, text)
    if "!" in text or "?" in text:
        text = _CONTINUOUS_PUNCT.sub(lambda m: m.group().replace("!", "&ᓴ&").replace("?", "&ᓷ&"), text)
    text = _multiple_periods(text)
    if "°" in text:
        text = _GEO_LOCATION.sub("∯", text)
    if " ." in text:
        text = _FILE_FORMAT.sub("∯", text)
    if '"' in text or "”" in text:  # check_for_parens_between_quotes (views have no double quotes)
        text = _PARENS_BETWEEN_DOUBLE_QUOTES.sub(_parens_between_quotes, text)
    return text


def _post_process(parts: list[str]) -> list[str]:
    """The sentences ``parts`` with pysbd's placeholder symbols turned back, stripped, empty ones
    left out. pysbd's post-processing of each sentence replaces strings that never span two
    sentences: done once on all of them, joined by a character that no view holds."""
    joined = _SEPARATOR.join(parts)
    present = set(_ANY_SYMBOL.findall(joined))  # the symbols in the text (one scan, not one per string)
    if present:
        for old, new, symbol in _POST_PROCESS:
            if symbol in present:
                joined = joined.replace(old, new)
    return [part for part in (p.strip() for p in joined.split(_SEPARATOR)) if part]


def _multiple_periods(text: str) -> str:
    """pysbd's ``([a-zA-Z0-9_])(\\.)([a-zA-Z0-9_])`` -> ``\\1∮\\3``: a match consumes the character after
    its period, which therefore cannot start the next one (``a.b.c`` -> ``a∮b.c``)."""
    out: list[str] = []
    pos = 0  # text[:pos] is written; a period at i is replaced when i - 1 >= the end of the last match
    end = 0
    for m in _WITH_MULTIPLE_PERIODS.finditer(text):
        i = m.start()
        if i - 1 < end:
            continue
        out.append(text[pos:i])
        out.append("∮")
        pos = i + 1
        end = i + 2
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def _parens_between_quotes(match: re.Match) -> str:
    return _SPACE_AFTER_PAREN.sub("\r", _SPACE_BEFORE_PAREN.sub("\r", match.group()))


# ------------------------------------------------------------------ list items
def _list_items(text: str, science: bool = False) -> str:
    """pysbd's ListItemReplacer.add_line_break (alphabetical and roman lists; the numbered ones
    never fire on views, see the module docstring); ``science``: a letter with a period before a
    name (``e. coli``) is no list item."""
    if ")" not in text and "." not in text:
        return text
    found: dict[re.Pattern, tuple[str, list[str]]] = {}  # regex -> (text it read, what it found)
    periods = _SCIENCE_LIST_WITH_PERIODS if science else _LIST_WITH_PERIODS
    for alphabet in (_LATIN, _ROMAN):
        text = _alphabet_list(text, periods, alphabet, parens=False, found=found, science=science)
        text = _alphabet_list(text, _LIST_WITH_PARENS, alphabet, parens=True, found=found)
    return text


def _alphabet_list(
    text: str, regex: re.Pattern, alphabet: list[str], *, parens: bool, found: dict | None = None, science: bool = False
) -> str:
    """pysbd's iterate_alphabet_array: the letters that are list items, replaced in one pass.

    pysbd replaces each item's letter everywhere in the text, item after item; the letters it
    would replace are decided on the list as found first, and replacing a letter twice only
    adds empty lines, so one substitution of all the chosen letters gives the same sentences.
    ``found`` keeps ``regex``'s matches of a text, read again only if the text changed.
    """
    seen = found.get(regex) if found is not None else None
    if seen is not None and seen[0] is text:
        candidates = seen[1]
    else:
        candidates = regex.findall(" " + text)
        if regex.groups > 1:  # one group per length, all but one empty
            candidates = ["".join(groups) for groups in candidates]
        if found is not None:
            found[regex] = (text, candidates)
    items = [i for i in candidates if i in alphabet]
    if not items:
        return text
    chosen: set[str] = set()
    last = len(items) - 1
    for ind, each in enumerate(items):
        here = alphabet.index(each)
        prev = alphabet.index(items[ind - 1])
        if ind == last:
            if abs(prev - here) == 1:
                chosen.add(each)
        elif alphabet.index(items[ind + 1]) - here == 1 or abs(prev - here) == 1:
            chosen.add(each)
    if not chosen:
        return text
    if parens:
        return _replace_letters(text, _LIST_LETTERS_PARENS, chosen, parens=True)
    letters = _SCIENCE_LIST_LETTERS_AND_PERIODS if science else _LIST_LETTERS_AND_PERIODS
    return _replace_letters(text, letters, chosen, parens=False)


def _replace_letters(text: str, regex: re.Pattern, chosen: set[str], *, parens: bool) -> str:
    """pysbd's substitution of the chosen list items: ``(b)`` -> ``\\r&✂&b)``, `` b)`` -> `` \\rb)``,
    `` b.`` -> `` \\rb∯``. ``regex`` finds the ``)`` or ``.`` after each candidate (matches of pysbd's
    pattern never overlap: each is a word with what precedes it, followed by the mark)."""
    out: list[str] = []
    pos = 0
    for m in regex.finditer(text):
        mark = m.start()
        if parens:
            word = m.group(m.lastindex or 0)
            if word not in chosen:
                continue
            start = mark - len(word)
            if (m.lastindex or 0) % 2:  # after "(": the bracket is replaced too
                out.append(text[pos : start - 1])
                out.append("\r&✂&" + word)
            else:
                out.append(text[pos:start])
                out.append("\r" + word)
            pos = mark
        elif text[mark - 1] in chosen:
            out.append(text[pos : mark - 1])
            out.append("\r" + text[mark - 1] + "∯")
            pos = mark + 1
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


# ------------------------------------------------------------------ abbreviations
def _abbreviations(text: str, science: bool = False) -> str:
    """pysbd's AbbreviationReplacer.replace: a period after a known abbreviation is not an end
    (``science``: nor after a single letter or an abbreviation of papers, see :func:`sentences`)."""
    text = _POSSESSIVE_ABBR.sub("∯", text)
    if "." in text:
        text = "".join(_abbreviations_in_line(line, science) for line in text.splitlines(True))
        text = _MULTI_PERIOD_ABBR.sub(lambda m: m.group().replace(".", "∯"), text)
    return text


_WORDS = {False: _PLAIN_ABBR, True: (_PLAIN_ABBR | _SCIENCE_ABBR) - _NOT_SCIENCE_ABBR}
_OPENERS = frozenset("([-/")  # before an abbreviation of papers: "(e. coli", "innocua-l."


def _abbreviations_in_line(line: str, science: bool = False) -> str:
    """The periods of ``line`` that pysbd turns into ``∯``, found in one scan.

    A period is replaced when the word before it (after whitespace or the line start) is an
    abbreviation and the text after it fits the abbreviation's kind. A dotted abbreviation is
    a pattern (``i.e`` matches ``ice``) and counts only where the abbreviation itself occurs
    in the line; the words it matches are collected as pysbd's ``findall`` does.

    The words that may end at a period are those after the last space before it (an
    abbreviation holds no whitespace), shortest first: after an opening bracket, hyphen or slash
    inside that run (``science``), then the whole run. Only where a run holds other whitespace
    or a control character (never in a view), or a word found by a dotted pattern holds
    whitespace (``i e``), is every length up to the longest abbreviation tried, as pysbd does.
    """
    if "." not in line:
        return line
    words, every_length = _line_words(line, science)
    ends: list[int] = []  # the periods that end no sentence
    pos = line.find(".")
    while pos >= 0:
        for start in _word_starts(line, pos, words, science=science, every_length=every_length):
            verdict = _abbreviation_period(line, start, pos, words, science)
            if verdict is not None:
                if verdict:
                    ends.append(pos)
                break
        pos = line.find(".", pos + 1)
    if not ends:
        return line
    n = len(line)
    return "∯".join(line[a + 1 : b] for a, b in zip([-1, *ends], [*ends, n], strict=True))


def _line_words(line: str, science: bool) -> tuple[AbstractSet[str], bool]:
    """The abbreviations that may end at a period of ``line``: the plain ones and the words of
    ``line`` that a dotted abbreviation's pattern finds (where the abbreviation occurs); and
    whether every word length must be tried (a found word holds whitespace or a control character)."""
    words: AbstractSet[str] = _WORDS[science]
    lowered = line if line.islower() else line.lower()  # (only uppercase letters lowercase to ASCII)
    every_length = False
    for abbr in _DOTTED_ABBR:
        if abbr in lowered:
            after_space, at_start = _DOTTED_FIND[abbr]
            found = {m.strip().lower() for m in after_space.findall(line)}
            first = at_start.match(line)
            if first is not None:
                found.add(first.group().strip().lower())
            words = words | found
            every_length = every_length or not all(w.isprintable() and " " not in w for w in found)
    return words, every_length


def _word_starts(line: str, pos: int, words: AbstractSet[str], *, science: bool, every_length: bool) -> Iterable[int]:
    """Where a word that ends at the period ``line[pos]`` may start, shortest word first (empty
    when no abbreviation can end there): after an opening bracket, hyphen or slash inside the run
    since the last space (``science``), then the whole run; every length when ``every_length``
    or the run holds a control character."""
    lo = pos - _MAX_ABBR - 1 if pos > _MAX_ABBR else 0
    space = line.rfind(" ", lo, pos)
    run_start = space + 1 if space >= 0 else lo  # after a space, at the line's start, or too far back
    run = line[run_start:pos]
    if every_length or not run.isprintable():
        return range(pos - 1, pos - min(_MAX_ABBR, pos) - 1, -1)
    whole = run_start < pos and (space >= 0 or lo == 0) and pos - run_start <= _MAX_ABBR
    if not (whole and run in words) and not (science and not _OPENERS.isdisjoint(run)):
        return ()
    starts = [run_start + k + 1 for k in range(len(run) - 2, -1, -1) if run[k] in _OPENERS] if science else []
    if whole:
        starts.append(run_start)
    return starts


def _abbreviation_period(line: str, start: int, pos: int, words: AbstractSet[str], science: bool) -> bool | None:
    """Whether the period ``line[pos]`` after the word ``line[start:pos]`` ends no sentence: True
    (an abbreviation, and the text after it fits its kind), False (a sentence end after all:
    ``hepatitis a. the ...``), None (no abbreviation here: the next start is tried)."""
    if start > 0 and not line[start - 1].isspace():
        if not (science and line[start - 1] in "([-/" and line[start:pos].lower() in _SCIENCE_ABBR):
            return None
    word = line[start:pos]
    if word not in words:
        return None
    # pysbd's findall is case-insensitive; its matches are then looked up in lowercase
    key = word.lower()
    if key in _PREPOSITIVE:
        after = _AFTER_PREPOSITIVE
    elif key in _NUMBER_ABBR and not (science and key in _SCIENCE_ABBR):  # "p. gingivalis", "p. 0"
        after = _AFTER_NUMBER_ABBR
    else:
        after = _AFTER_SCIENCE_ABBR if science else _AFTER_ABBR
    if not (pos + 1 < len(line) and after.match(line, pos + 1)):
        return None
    if science and key not in _PLAIN_ABBR and line[max(0, start - 3) : pos] not in _SPACED_ABBR:
        nxt = _NEXT_WORD.match(line, pos + 1)
        if nxt and nxt.group(1) in _STARTERS:
            if not (key in _SPECIES_ABBR and nxt.group(1) in _PREPOSITIONS) and not (
                key in _LABEL_ABBR and _LABEL.match(line, pos + 1)
            ):
                return False  # "hepatitis a. the ...": a sentence end after all
    return True


# ------------------------------------------------------------------ one segment
def _process_segment(txt: str, science: bool = False) -> list[str]:
    """pysbd's Processor.process_text on one line that holds sentence punctuation."""
    if txt[-1] not in _PUNCTUATIONS:
        txt += "ȸ"
    if "!" in txt or "ǃ" in txt:
        txt = _EXCLAMATION_WORDS.sub(_replace_punctuation, txt)
    txt = _between_punctuation(txt, science)
    if "?" in txt or "!" in txt:  # (each of these rules matches a "?" or a "!")
        if not _DOUBLE_PUNCT.match(txt):
            for rule, repl in _DOUBLE_PUNCT_RULES:
                txt = rule.sub(repl, txt)
        for rule, repl in _QE_RULES:
            txt = rule.sub(repl, txt)
    if txt.endswith(("&ᓴ&", "&ᓴ&\n")):  # (where _FINAL_EXCLAMATION's $ matches)
        txt = _FINAL_EXCLAMATION.sub("!", txt)
    return _SENTENCE.findall(txt)


def _replace_punctuation(match: re.Match, single: bool = False) -> str:
    text = match.group().translate(_PUNCT_TO_PLACEHOLDER)
    return text if single else text.replace("'", "&⎋&")


def _between_punctuation(txt: str, science: bool = False) -> str:
    for needle, regex, single in _BETWEEN:
        if needle not in txt or (science and needle == "--"):
            continue
        if needle == "[":
            txt = _between_square_brackets(txt)
            continue
        assert regex is not None
        if single:
            if _WORD_WITH_LEADING_APOSTROPHE.search(txt) and not _QUOTE_SPACE.search(txt):
                continue
            repl: Callable[[re.Match], str] = _replace_single
        else:
            repl = _replace_punctuation
        txt = regex.sub(repl, txt)
    return txt


def _replace_single(match: re.Match) -> str:
    return _replace_punctuation(match, single=True)


def _between_square_brackets(txt: str) -> str:
    r"""pysbd's ``\[(?=(?P<tmp>[^\]\\]+|\\{2}|\\.)*)(?P=tmp)\]`` substitution, in linear time.

    Without backslashes the pattern matches ``[`` followed by one or more characters other
    than ``]`` and then ``]``; pysbd's regex re-scans to the end of the text from every ``[``
    that has no ``]`` after it. With backslashes (escapes to that pattern) the pattern itself
    is applied, to the text up to its last ``]``.
    """
    if "\\" in txt:
        last = txt.rfind("]") + 1
        return _SQUARE_BRACKETS.sub(_replace_punctuation, txt[:last]) + txt[last:]
    out: list[str] = []
    pos = 0
    n = len(txt)
    while True:
        start = txt.find("[", pos)
        if start < 0:
            break
        end = txt.find("]", start + 1)
        if end < 0:
            break  # no "]" anywhere after: no later "[" can match either
        if end == start + 1:  # "[]": the pattern needs at least one character inside
            out.append(txt[pos : start + 1])
            pos = start + 1
            continue
        out.append(txt[pos:start])
        out.append(txt[start : end + 1].translate(_PUNCT_TO_PLACEHOLDER).replace("'", "&⎋&"))
        pos = end + 1
    out.append(txt[pos:n])
    return "".join(out)
