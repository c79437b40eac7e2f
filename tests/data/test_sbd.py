"""c2fsum.data.sbd: pysbd's sentence splitting on lowercase views, re-done in linear time.

Hand-worked cases (each rule of pysbd that can fire on a view, and the quirks kept on purpose),
then the second path: pysbd itself on random views built from tricky tokens must agree.
"""

from __future__ import annotations

import itertools
import random
import re

import pytest

from c2fsum.data import sbd
from shared_data import DATA, need_real


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        ("the cat sat. the dog ran!", ["the cat sat.", "the dog ran!"]),
        # an abbreviation before a lowercase word, a digit or "(" does not end the sentence
        ("et al. show that it works. fig. 0 shows it.", ["et al. show that it works.", "fig. 0 shows it."]),
        ("mr. smith left. he was dr. no.", ["mr. smith left.", "he was dr. no."]),
        # number abbreviations end a sentence unless a number (or "(") follows
        ("no. 0 is here. it is no. the end.", ["no. 0 is here.", "it is no.", "the end."]),
        ("u.s.a. and the u.k. agreed. then.", ["u.s.a. and the u.k. agreed.", "then."]),
        # letters in alphabetical order with "." or ")" are list items: each starts a sentence
        ("a. one b. two c. three", ["a. one", "b. two", "c. three"]),
        ("wow!!! really?! yes. (a) first (b) second.", ["wow!!! really?!", "yes.", "(a) first", "(b) second."]),
        # brackets and text between two "--" never hold a sentence end
        ("see [this. that] now. ok.", ["see [this. that] now.", "ok."]),
        ("we -- as he said. -- went. then.", ["we -- as he said. -- went.", "then."]),
        ("wait . . . what? it is 0.0 m. ok", ["wait . . . what?", "it is 0.0 m.", "ok"]),
        ("the ice. the end.", ["the ice.", "the end."]),
        # pysbd's "i.e" is a regex ("." matches anything): once it occurs, "ice." is an abbreviation
        ("the ice. the end. i.e. yes.", ["the ice. the end.", "i.e. yes."]),
        ("", []),
        ("no punctuation at all", ["no punctuation at all"]),
    ],
)
def test_hand_worked_views(view, expected):
    """pysbd's rules (``science=False``), each worked by hand."""
    assert sbd.sentences(view, science=False) == expected


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        # issue 36: species binomials and initials (lowercase, so no capital marks a name)
        (
            "overexpression of lon protease in e. coli cells. the reconstructed p. gingivalis grew.",
            ["overexpression of lon protease in e. coli cells.", "the reconstructed p. gingivalis grew."],
        ),
        (
            "c. elegans and d. melanogaster differ. x. laevis too.",
            ["c. elegans and d. melanogaster differ.", "x. laevis too."],
        ),
        ("george w. bush spoke. he left.", ["george w. bush spoke.", "he left."]),
        # a binomial in brackets or after a hyphen; p. before a number
        (
            "it grew (e. coli) well. l. innocua-l. monocytogenes clade. see p. 0.",
            ["it grew (e. coli) well.", "l. innocua-l. monocytogenes clade.", "see p. 0."],
        ),
        # abbreviations of papers, and et al. before a <cit> marker
        (
            "hydrogenobaculum sp., sulfurihydrogenibium sp. and s. azorense are. as in figs. 0 and 0 we see. "
            "smith et al. < cit > used it. cf. < cit > too.",
            [
                "hydrogenobaculum sp., sulfurihydrogenibium sp. and s. azorense are.",
                "as in figs. 0 and 0 we see.",
                "smith et al. < cit > used it.",
                "cf. < cit > too.",
            ],
        ),
        # units end sentences in papers: "min." is no abbreviation there
        ("it took 00 min. the next step took 0 hr. then", ["it took 00 min.", "the next step took 0 hr.", "then"]),
        # decimals, e.g., i.e. stay whole; a sentence that ends on a letter is the price (it is rare)
        (
            "the ratio was 0.00, i.e. low. the cells, e.g. hela, grew.",
            ["the ratio was 0.00, i.e. low.", "the cells, e.g. hela, grew."],
        ),
        # a letter with a period before a name is no list item (pysbd: "c." "d." "e." start sentences)
        (
            "we used c. elegans, d. melanogaster and e. coli. the end.",
            ["we used c. elegans, d. melanogaster and e. coli.", "the end."],
        ),
        # before a word that starts sentences, a letter's period still ends one, and lists are pysbd's
        (
            "hepatitis a. the diocese says so. it is type d. he said.",
            ["hepatitis a.", "the diocese says so.", "it is type d.", "he said."],
        ),
        ("a. one b. two", ["a. one", "b. two"]),
        # ... but a verb after one continues the sentence (sumpubmed-21418)
        (
            "cultures of several sporothrix spp. were obtained from cats. group b. is larger.",
            ["cultures of several sporothrix spp. were obtained from cats.", "group b. is larger."],
        ),
        # a preposition after sp./spp. continues the sentence; an article still starts one
        (
            "as opposed to aeromonas spp. with known potential. it grew in pseudomonas spp. the next step.",
            ["as opposed to aeromonas spp. with known potential.", "it grew in pseudomonas spp.", "the next step."],
        ),
        # "i.e." and "e.g." with a space end no sentence (sumpubmed-28733)
        (
            "for the others, i. e. the other receptors were. we used e. g. the cells.",
            ["for the others, i. e. the other receptors were.", "we used e. g. the cells."],
        ),
        # the word after the period is read whole: "a00-a" is no sentence start "a" (sumpubmed-9433)
        (
            "shown in additional file 0: eqs. a00-a 0 where we consider it. the a. the next.",
            ["shown in additional file 0: eqs. a00-a 0 where we consider it.", "the a.", "the next."],
        ),
        # letters in brackets are still list items (pysbd's rule)
        ("we measured (i) the content and (ii) the mass.", ["we measured", "(i) the content and", "(ii) the mass."]),
        (
            "at 0pm et. for the latest news. smith et. al. found it.",
            ["at 0pm et.", "for the latest news.", "smith et. al. found it."],
        ),
    ],
)
def test_scientific_views(view, expected):
    """The rules c2fsum reads with (``science=True``, the default): hand-worked."""
    assert sbd.sentences(view) == expected
    assert sbd.sentences(view, science=True) == expected


def test_sentence_starts_are_offsets_in_the_view():
    view = "et al. show that it works. fig. 0 shows it. end"
    assert sbd.sentence_starts(view) == [27, 44]
    assert [view[c:].split()[0] for c in sbd.sentence_starts(view)] == ["fig.", "end"]
    # pysbd's own placeholder characters in the text do not move the offsets
    assert sbd.sentence_starts("a∯b is one. two.") == [12]


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        # pysbd keeps every sentence end between two "--" (its rule for text between dashes); news and papers use
        # "--" as a dash, not as brackets: 663 CNN/DM articles held sentences glued across one (issue 36)
        (
            "canberra (cnn) -- at first glance, it does not look like much. hidden behind a door -- in an office -- "
            "it sits.",
            [
                "canberra (cnn) -- at first glance, it does not look like much. ",
                "hidden behind a door -- in an office -- it sits.",
            ],
        ),
        # a list item's number goes with its item; the last part of a version number with its sentence
        (
            "it has served corn dogs ever since. 0. the pizzeria -- lombardi's, new york. 0. fat darrell.",
            ["it has served corn dogs ever since. ", "0. the pizzeria -- lombardi's, new york. ", "0. fat darrell."],
        ),
        (
            "data were analyzed by light-cycler < dig > software version < dig >. < dig >. pcr products were run.",
            [
                "data were analyzed by light-cycler < dig > software version < dig >. < dig >. ",
                "pcr products were run.",
            ],
        ),
        ("a. the first item. b. the second.", ["a. the first item. ", "b. the second."]),
        # SumPubMed's "1.5.2" is "< dig > . < dig >": no sentence end, but after a quantity
        (
            "we used hmmer < dig >. < dig > with its defaults. of at least < dig >. < dig > genes were found.",
            [
                "we used hmmer < dig >. < dig > with its defaults. ",
                "of at least < dig >. ",
                "< dig > genes were found.",
            ],
        ),
    ],
)
def test_dashes_and_list_marks_in_science_views(view, expected):
    """``sentence_starts`` with science (hand-worked); pysbd's rule is kept without it."""
    cuts = [0, *sbd.sentence_starts(view), len(view)]
    assert [view[a:b] for a, b in itertools.pairwise(cuts)] == expected


def test_pysbds_rule_for_text_between_dashes_is_kept_without_science():
    view = "canberra (cnn) -- at first glance, it is small. hidden behind a door -- in an office -- it sits."
    assert sbd.sentence_starts(view, science=False) == []
    assert sbd.sentence_starts(view) == [view.index("hidden")]


def test_unclosed_brackets_are_scanned_once():
    """pysbd re-scans to the end of the text from every "[" without a "]"; the result is the same."""
    view = "one [ two. " * 5000 + "end. ] three. last."
    assert sbd.sentences(view) == [view[: -len(" last.")], "last."]


_TRICKY = (
    "the a b c d e i ii iii iv v x al. et fig. no. p. pp. vs. v. mr. dr. st. e.g. i.e. ice. ide. use. u.s. ph.d. "
    "u.s.a. etc. inc. co. 0 00 0.0 0. 00. (a) (b) (c) (i) (ii) a. b. c. a) b) c) ( ) [ ] -- - ... . . . ! ? ?! !! "
    "!!! ??? ' 's n't o'neill rock 'n roll °. .pdf .jpg x.y 0:00 : , ; yahoo! hello world said was is in of and "
    "[0] [a.] (b.) \\ \\[ ] jan. sept. gov. rev. is. me. may. al.,"
).split()


def test_agrees_with_pysbd_on_random_views():
    """The second path: pysbd 0.3.4 itself (the splitter before issue 17), on 400 random views."""
    pysbd = pytest.importorskip("pysbd")
    segmenter = pysbd.Segmenter(language="en", clean=False)
    rnd = random.Random(17)
    for _ in range(400):
        view = " ".join(rnd.choice(_TRICKY) for _ in range(rnd.randint(1, 40)))
        want = [s.strip() for s in segmenter.processor(view).process() if s.strip()]
        assert sbd.sentences(view, science=False) == want, view


@pytest.mark.real_data(DATA / "pubmed")
@pytest.mark.parametrize(
    ("paper", "whole"),
    [
        # "Were obtained from fecal samples ..." was a sentence of its own
        ("sumpubmed-21418", "cultures of several sporothrix spp. were obtained from fecal samples"),
        # "An understanding of ... in aeromonas spp." / "Is the first step ..."
        ("sumpubmed-26824", "mechanism in aeromonas spp. is the first step"),
        # "... as opposed to the majority of aeromonas spp." / "With known pathogenic potential"
        ("sumpubmed-26824", "majority of aeromonas spp. with known pathogenic potential"),
        ("sumpubmed-23464", "and cryptosporidium spp. in the youngest cats"),
        # "... for the others, i. e." / "The other receptors were expressed as a ratio ..."
        ("sumpubmed-28733", "for the others , i. e. the other receptors were expressed"),
        # "This is shown in additional file 1: eqs." / "A36–a <dig> where we explicitly consider ..." (papers 100-199)
        ("sumpubmed-9433", "additional file # : eqs. a## -- a < dig > where we explicitly consider"),
        # "As derived in additional file 1: eq." / "A <dig> if s marked cells are drawn ..."
        ("sumpubmed-9433", "as derived in additional file # : eq. a < dig > if s marked cells are drawn"),
    ],
)
def test_sentences_that_were_cut_in_real_papers(paper, whole):
    """Sentences of validation papers cut after an abbreviation (issue 36, found reading the
    extracts of papers 300-499): now one sentence each."""
    import gzip
    import json

    from c2fsum.data.tokenize import preprocess_article

    with gzip.open(need_real(DATA / "pubmed" / "val.jsonl.gz"), "rt", encoding="utf-8") as f:
        article = next(d for d in map(json.loads, f) if d["id"] == paper)["article"]
    sentences = [" ".join(s) for s in preprocess_article(article)]
    assert any(whole in s for s in sentences), [s for s in sentences if whole.split()[-1] in s]


# pysbd 0.3.4's own patterns, for the ones data/sbd.py writes differently for speed (issue 36)
_PYSBD_LETTERS_PERIODS = r"(?<=^)[a-z]\.|(?<=\A)[a-z]\.|(?<=\s)[a-z]\."
_PYSBD_LETTERS_PARENS = r"\([a-z]+(?=\))|(?<=^)[a-z]+(?=\))|(?<=\A)[a-z]+(?=\))|(?<=\s)[a-z]+(?=\))"


def _pysbd_letters(text: str, chosen: set[str], *, parens: bool, named: str = "") -> str:
    """pysbd's substitution of the chosen list items (ListItemReplacer), as pysbd writes it."""
    if parens:

        def paren(m):
            s = m.group()
            if "(" in s:
                return "\r&✂&" + s[1:] if s.strip("(") in chosen else s
            return "\r" + s if s in chosen else s

        return re.sub(_PYSBD_LETTERS_PARENS, paren, text, flags=re.I)
    regex = re.compile(r"(?:(?<=^)|(?<=\A)|(?<=\s))[a-z]\." + named if named else _PYSBD_LETTERS_PERIODS, re.I)
    return regex.sub(lambda m: "\r" + m.group()[0] + "∯" if m.group()[0] in chosen else m.group(), text)


def test_patterns_written_for_speed_match_as_pysbds_do():
    """Each pattern that data/sbd.py starts at its rare character (a period, ``)``, ``'``) finds
    what pysbd's pattern finds, on random texts with capitals and odd whitespace too."""
    rnd = random.Random(36)
    pieces = [*_TRICKY, "A.", "(B)", "II)", "Fig.", "I.E.", "e.g", "E.G", "x°.", "file", ".PDF", "'em", "xvii)"]
    spaces = [" "] * 12 + ["", "\t", "\u00a0", "\r", "\n"]
    for _ in range(1500):
        text = "".join(rnd.choice(pieces) + rnd.choice(spaces) for _ in range(rnd.randint(1, 30)))
        spaced = " " + text
        assert sbd._LIST_WITH_PERIODS.findall(spaced) == re.findall(r"\s([a-z])\.", spaced)
        assert sbd._SCIENCE_LIST_WITH_PERIODS.findall(spaced) == re.findall(r"\s([a-z])\." + sbd._NAMED, spaced)
        words = ["".join(g) for g in sbd._LIST_WITH_PARENS.findall(spaced)]
        assert words == [w for w in re.findall(r"[\s(]([a-z]++)\)", spaced) if len(w) <= 5]
        for chosen in ({"a", "b", "c"}, {"i", "ii", "iii", "iv"}, {"b"}):
            for parens in (True, False):
                letters = sbd._SCIENCE_LIST_LETTERS_AND_PERIODS if not parens else sbd._LIST_LETTERS_PARENS
                regex = sbd._LIST_LETTERS_AND_PERIODS if not parens else sbd._LIST_LETTERS_PARENS
                assert sbd._replace_letters(text, regex, chosen, parens=parens) == _pysbd_letters(
                    text, chosen, parens=parens
                )
                assert sbd._replace_letters(text, letters, chosen, parens=parens) == _pysbd_letters(
                    text, chosen, parens=parens, named="" if parens else sbd._NAMED
                )
        for abbr, (after_space, at_start) in sbd._DOTTED_FIND.items():
            ours = {m.strip().lower() for m in after_space.findall(text)}
            if (first := at_start.match(text)) is not None:
                ours.add(first.group().lower())
            assert ours == {m.strip().lower() for m in re.findall(rf"(?:^|\s|\r|\n){abbr}", text, flags=re.I)}
        replace = lambda m: m.group().replace(".", "∯")  # noqa: E731
        assert sbd._MULTI_PERIOD_ABBR.sub(replace, text) == re.sub(r"\b[a-z](?:\.[a-z])+[.]", replace, text, flags=re.I)
        assert sbd._multiple_periods(text) == re.sub(r"([a-zA-Z0-9_])(\.)([a-zA-Z0-9_])", "\\1∮\\3", text)
        assert sbd._GEO_LOCATION.sub("∯", text) == re.sub(r"(?<=[a-zA-z]°)\.(?=\s*\d+)", "∯", text)
        file_format = sbd._FILE_FORMAT.pattern.replace(r"\.(?<=\s\.)", r"(?<=\s)\.")
        assert sbd._FILE_FORMAT.sub("∯", text) == re.sub(file_format, "∯", text)
        assert bool(sbd._WORD_WITH_LEADING_APOSTROPHE.search(text)) == bool(
            re.search(r"(?<=\s)'(?:[^']|'[a-zA-Z])*'\S", text)
        )
        single = sbd._BETWEEN[0][1]
        assert single is not None
        assert single.sub("Q", text) == re.sub(r"(?<=\s)'(?:[^']|'[a-zA-Z])*'", "Q", text)
        sentence = r"[。．.！!?？ ]{2,}|\S.*?[。．.！!?？ȸȹ☉☈☇☄]|[。．.！!?？]"
        assert sbd._SENTENCE.findall(text) == re.findall(sentence, text)
