"""The readable summary: one hand-made case per rule of c2fsum.decoding.render, and the property
that tokenizing the text gives the model's tokens back (up to case and restored numbers)."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from c2fsum.data.surface import surface_cells, surface_forms
from c2fsum.data.tokenize import preprocess_article, preprocess_summary
from c2fsum.decoding.render import NUMBER, align, render, render_sentences


def document(text: str) -> tuple[list[str], list[str]]:
    """``(Example.words, Example.surface)`` of ``text`` on an unbounded fixed grid."""
    sents = preprocess_article(text)
    words = [w for s in sents for w in s]
    return words, surface_cells(sents, surface_forms(text, sents), chunks=0, chunk_len=40)


def attention_on(source: list[str], steps: list[int | None]) -> torch.Tensor:
    """``(T, L)``: step t attends only to cell ``steps[t]`` (uniform when None)."""
    att = torch.full((len(steps), len(source)), 1.0 / len(source))
    for t, cell in enumerate(steps):
        if cell is not None:
            att[t] = 0.0
            att[t, cell] = 1.0
    return att


ARTICLE = (
    "(CNN) -- Sofia Vergara's ex-fiance paid $1.5 million in 2015. The couple didn't agree. "
    "Nick Loeb said on Tuesday that the embryos, frozen in 2013, should live."
)


def test_detokenized_and_cased_as_the_document() -> None:
    words, surface = document(ARTICLE)
    tokens = "sofia vergara 's ex-fiance paid $ #.# million in #### .".split()
    expected = "Sofia Vergara's ex-fiance paid $1.5 million in 2015."
    assert render(tokens, source=words, surface=surface) == expected


def test_the_agency_dateline_opening_a_summary_is_left_out() -> None:
    words, surface = document(ARTICLE)
    tokens = "-lrb- cnn -rrb- -- sofia vergara 's ex-fiance paid $ #.# million .".split()
    assert render(tokens, source=words, surface=surface) == "Sofia Vergara's ex-fiance paid $1.5 million."
    tokens = "-lrb- cnn -rrb- .".split()  # nothing else: kept
    assert render(tokens, source=words, surface=surface) == "(CNN)."


def test_a_word_that_opens_a_source_sentence_is_written_as_elsewhere() -> None:
    words, surface = document("The cat sat. I saw the cat. The dog barked at the cat.")
    tokens = "i saw the dog .".split()
    assert render(tokens, source=words, surface=surface) == "I saw the dog."


def test_a_heading_in_capitals_is_written_as_the_document_usually_writes_the_word() -> None:
    # a heading the tokenizer keeps inside a sentence (no period before it), as SumPubMed's are
    words, surface = document("We show new data from the FBI\nRESULTS\nthe gene was found. More results follow.")
    heading = words.index("results")
    assert surface[heading] == "RESULTS" and words[heading - 1] == "fbi"  # mid-sentence
    tokens = "new results the gene was found by the fbi .".split()  # 'results the gene ...' copies the heading
    text = render(tokens, source=words, surface=surface)
    assert text == "New results the gene was found by the FBI."  # 'results' as the document usually writes it


def test_contractions_quotes_and_brackets() -> None:
    tokens = "the couple did n't agree , `` he said '' -lrb- in court -rrb- .".split()
    assert render(tokens) == "The couple didn't agree, \u201che said\u201d (in court)."


def test_a_quote_right_after_a_bracket_opens() -> None:
    """Issue 39: the tokenizer reads a straight quote glued to a closing bracket as closing
    (``(The Hollywood Reporter)"Grace of Monaco," starring``): it was written as ``)” Grace``."""
    words, surface = document('(The Hollywood Reporter)"Grace of Monaco," starring Nicole Kidman, opens Cannes.')
    i = words.index("-rrb-")
    assert words[i + 1] == "''"  # what the tokenizer makes of it
    text = render(words[: words.index("</s>")], source=words, surface=surface)
    assert text == "(The Hollywood Reporter) \u201cGrace of Monaco,\u201d starring Nicole Kidman, opens Cannes."
    # a quote open before the bracket still closes after it
    tokens = "`` it was fine -lrb- really -rrb- '' he said .".split()
    assert render(tokens) == "\u201cIt was fine (really)\u201d he said."


def test_placeholder_brackets_around_words_are_left_out() -> None:
    """Issue 39: the PubMed models write ``< was > and < did not``; a sign before a number stays."""
    tokens = "the expression < was > and < did not change in < dig > mice , p < #.## .".split()
    words, surface = document("The expression did not change in <dig> mice, p < 0.05.")
    text = render(tokens, source=words, surface=surface)
    assert text == f"The expression was and did not change in {NUMBER} mice, p < 0.05."


def test_single_quotes_open_then_close() -> None:
    tokens = "it was a real ' eye-opener ' for her .".split()
    assert render(tokens) == "It was a real 'eye-opener' for her."


def test_numbers_come_from_the_span_the_summary_copies() -> None:
    words, surface = document("Sales were $2.5 billion in 2014. Costs were $1.5 billion in 2015.")
    # "$ #.# billion in ####" occurs twice; the run "costs were $ #.# billion" fixes which one
    tokens = "costs were $ #.# billion in #### .".split()
    assert render(tokens, source=words, surface=surface) == "Costs were $1.5 billion in 2015."


def test_attention_breaks_ties_between_equal_spans() -> None:
    words, surface = document("It rose in 2014. It fell in 2015.")
    tokens = "in #### .".split()
    in_2015 = words.index("fell") + 1
    att = attention_on(words, [in_2015, in_2015 + 1, None])
    assert render(tokens, source=words, surface=surface, attention=att) == "In 2015."
    assert align(tokens, words, att)[1] == in_2015 + 1


def test_a_number_the_document_does_not_hold_becomes_the_attended_one_or_goes() -> None:
    words, surface = document("The bridge cost 750 dollars and took 3 years.")
    tokens = "it cost ## dollars .".split()  # the model made up a two-digit number
    att = attention_on(words, [None, None, words.index("###"), None, None])
    assert render(tokens, source=words, surface=surface, attention=att) == "It cost 750 dollars."
    assert render(tokens, source=words, surface=surface) == "It cost dollars."
    assert "#" not in render(tokens)


def test_unk_becomes_the_attended_source_word_spelled_as_the_document() -> None:
    words, surface = document("Mr Zxqwv met Obama in Paris.")
    tokens = "<unk> met obama .".split()
    att = attention_on(words, [words.index("zxqwv"), None, None, None])
    assert render(tokens, source=words, surface=surface, attention=att) == "Zxqwv met Obama."
    assert render(tokens) == "Met obama."  # no document: the <unk> is left out, never printed


def test_unk_never_becomes_the_word_beside_it() -> None:
    """Attention on the next word itself would write "transposon transposon": the most attended
    source word that is not a neighbour of the <unk> is taken instead."""
    words, surface = document("The Tol2 transposon and a reporter.")
    tokens = "the <unk> transposon .".split()
    weights = [0.0] * len(words)
    weights[words.index("transposon")] = 0.7
    weights[words.index("tol#")] = 0.2
    weights[words.index("reporter")] = 0.1
    att = torch.tensor([weights] * len(tokens))
    assert render(tokens, source=words, surface=surface, attention=att) == "The Tol2 transposon."


def test_dataset_placeholders_are_never_split_or_leaked() -> None:
    words, surface = document("we used the tol <dig> transposon  <cit> . it worked in <dig> % of cells.")
    tokens = "we used the tol < dig > transposon < cit > . it worked in < dig > % of cells .".split()
    text = render(tokens, source=words, surface=surface)
    assert text == f"We used the tol {NUMBER} transposon. It worked in {NUMBER}% of cells."
    assert "<" not in text and "dig" not in text and "cit" not in text


def test_a_citation_removed_after_et_al_leaves_one_period_and_the_sentence_end() -> None:
    """SumPubMed's "developed by wolf et al. <cit>." read "wolf et al.." once the citation was left
    out; the abbreviation's period ends the sentence, and the next one still opens with a capital."""
    tokens = "the model of wolf et al. < cit > . furthermore we found a role for x .".split()
    assert render(tokens) == "The model of wolf et al. Furthermore we found a role for x."
    assert render("it binds . the end .".split()) == "It binds. The end."  # a plain period stays


def test_a_word_that_only_led_to_a_citation_goes_with_it() -> None:
    """SumPubMed's "e.g. <cit>;" read "e.g.;" (ten test papers read, sumpubmed-5676)."""
    tokens = "it predicts function , e.g. < cit > ; and species , e.g. < cit > .".split()
    assert render(tokens) == "It predicts function; and species."
    tokens = "as described by < cit > . it binds -lrb- see < cit > -rrb- x .".split()
    assert render(tokens) == "As described. It binds x."
    assert render("we used e.g. < cit > data by x .".split()) == "We used e.g. data by x."  # no mark after it: kept
    assert render("as shown before , see e.g. < cit > .".split()) == "As shown before."


def test_a_cut_summary_stops_at_its_last_whole_sentence() -> None:
    assert render("the trial ended . the judge said that the".split()) == "The trial ended."
    assert render("the trial ended '' . the judge said".split()) == "The trial ended”."
    assert render("the judge said that ,".split()) == "The judge said that."  # none whole: a period
    assert render("it grew in < dig".split()) == "It grew in N."  # a placeholder cut before its ">"


def test_an_initial_does_not_end_a_sentence() -> None:
    tokens = "we studied s . gordonii in mice . it grew".split()
    assert render(tokens) == "We studied s. gordonii in mice."


def test_a_removed_number_before_the_period_ends_the_sentence() -> None:
    """SumPubMed's "< dig > ." rendered "N." was taken for an initial: the next sentence kept its
    lowercase ("... hbap2- N. of the N genes ...", test paper 408)."""
    tokens = "it includes hbap2- < dig > . of the < dig > genes , < dig > were markers .".split()
    assert render(tokens) == "It includes hbap2- N. Of the N genes, N were markers."


def test_special_tokens_are_left_out() -> None:
    assert render(["<s>", "hello", "<pad>", "world", "</s>"]) == "Hello world."


# ---- property: the text tokenizes back to the model's tokens ---------------------------------

_WORDS = ["the", "cat", "sat", "on", "mat", "ex-fiance", "well-known", "paris", "judge", "said"]
_NUMBERS = [("##", "12"), ("#.#", "1.5"), ("#,###", "1,500"), ("####", "2015"), ("#", "7")]


@st.composite
def _unit(draw) -> list[tuple[str, str]]:
    """A few tokens that belong together, each ``(token, the document's spelling)``."""
    word = draw(st.sampled_from(_WORDS))
    num = draw(st.sampled_from(_NUMBERS))
    kind = draw(st.integers(0, 8))
    w = [(word, word)]
    return [
        w,
        [num],
        [("$", "$"), num],
        [num, ("%", "%")],
        [*w, ("'s", "'s")],
        [("do", "do"), ("n't", "n't")],
        [("-lrb-", "("), *w, ("-rrb-", ")")],
        [("``", '"'), *w, ("said", "said"), ("''", '"')],
        [*w, (",", ",")],
    ][kind]


@st.composite
def _sentence(draw) -> list[tuple[str, str]]:
    units = draw(st.lists(_unit(), min_size=1, max_size=6))
    end = draw(st.sampled_from([".", "?", "!"]))
    return [("paris", "Paris"), *[p for u in units for p in u], (end, end)]


@settings(max_examples=150, deadline=None)
@given(st.lists(_sentence(), min_size=1, max_size=4))
def test_the_text_tokenizes_back_to_the_models_tokens(sentences) -> None:
    pairs = [p for s in sentences for p in s]
    tokens = [t for t, _ in pairs]
    source = tokens  # the summary copies its document: every number is restored
    surface = [s for _, s in pairs]
    text = render(tokens, source=source, surface=surface)
    assert "#" not in text and "-lrb-" not in text and " ." not in text and " ," not in text
    assert text[0].isupper() and text[-1] in ".?!"
    assert preprocess_summary(text) == tokens


def test_attended_cell_is_that_of_the_whole_row_sorted() -> None:
    """``_attended`` sorts only the top of a row (k grows while no cell there satisfies the test):
    the same cell as a stable descending sort of the whole row, on rows with many ties and on
    tests that only cells far down the order satisfy."""
    from c2fsum.decoding.render import _attended

    g = torch.Generator().manual_seed(0)
    for n in (5, 64, 65, 300, 5000):
        source = [f"w{i % 7}" for i in range(n)]
        for levels in (3, 1000):  # 3 levels: ties everywhere
            att = torch.randint(0, levels, (2, n), generator=g).float() / levels
            for want in (lambda w: True, lambda w: w == "w6", lambda w: w == "w0", lambda w: False):
                order = torch.sort(att[1], descending=True, stable=True).indices.tolist()
                expected = next((c for c in order if want(source[c])), None)
                assert _attended(1, source, att, want) == expected
    assert _attended(2, ["a"], torch.ones(2, 1), lambda w: True) is None  # no such step


def test_opens_sentence_read_backwards_is_the_forward_scan() -> None:
    """``_opens_sentence`` (read backwards from one cell) against the rule read forwards over the
    whole source: a word opens a sentence when no word came since the last ``</s>``/``<pad>``."""
    from c2fsum.decoding.render import _is_word, _opens_sentence

    source = "`` the cat sat . '' </s> -lrb- it ran -rrb- </s> <pad> <pad> `` no </s> </s> ok".split()
    expected, opening = [], True
    for w in source:
        expected.append(opening and _is_word(w))
        if w in ("</s>", "<pad>"):
            opening = True
        elif _is_word(w):
            opening = False
    assert [_opens_sentence(source, c) for c in range(len(source))] == expected
    assert expected.count(True) == 4  # the, it, no, ok


@pytest.mark.real_data
def test_render_sentences_is_render_of_each_on_real_papers():
    """Extraction renders its picked sentences against one index of the document
    (``render_sentences``): the same text as :func:`render` of each, on every sentence of 3 papers
    (headings' capitals, numbers, brackets, sentence-opening words)."""
    import gzip
    import json

    from c2fsum.data.tokenize import preprocess_document
    from shared_data import DATA, need_real

    with gzip.open(need_real(DATA / "pubmed" / "val.jsonl.gz"), "rt") as f:
        papers = [json.loads(next(f))["article"] for _ in range(3)]
    for paper in papers:
        doc = preprocess_document(paper)
        source = [t for s in doc.sentences for t in s]
        spelled = doc.surface()
        surface = [spelled.get(k, t) for k, t in enumerate(source)]
        sentences = [s[:-1] for s in doc.sentences]
        one_by_one = [render(s, source=source, surface=surface) for s in sentences]
        assert render_sentences(sentences, source=source, surface=surface) == one_by_one
        assert sum(x != " ".join(s) for x, s in zip(one_by_one, sentences, strict=True)) > len(sentences) // 2


def _align_by_keys(tokens, source, attention):
    """The rule of :func:`align` as first written: each candidate cell's key (run, attention),
    the greatest key, the first cell of equal keys."""
    where: dict = {}
    for c, w in enumerate(source):
        where.setdefault(w, []).append(c)
    cells = []
    for i, tok in enumerate(tokens):
        prev = cells[-1] if cells else None
        if tok not in where:
            cells.append(None)
            continue
        if prev is not None and prev + 1 < len(source) and source[prev + 1] == tok:
            cells.append(prev + 1)
            continue
        best, best_key = None, None
        for c in where[tok]:
            run = 1
            while i + run < len(tokens) and c + run < len(source) and source[c + run] == tokens[i + run]:
                run += 1
            key = (run, float(attention[i, c]))
            if best_key is None or key > best_key:
                best, best_key = c, key
        cells.append(best)
    return cells


def test_align_picks_what_the_keys_pick_on_random_copies() -> None:
    """Only the longest runs' attention is read now (one gather, not one float per candidate: 0.28 s
    of a 100,000-word paper's render); the cells are those of the first rule, ties included
    (attention drawn from 3 values, so equal attention is common)."""
    import random

    import torch

    from c2fsum.decoding.render import align

    rng = random.Random(5)
    words = ["a", "b", "c", "d", "the"]
    for _ in range(200):
        source = [rng.choice(words) for _ in range(rng.randint(1, 40))]
        tokens = [rng.choice(words + ["zz"]) for _ in range(rng.randint(1, 15))]
        attention = torch.tensor([[rng.choice([0.0, 0.25, 0.5]) for _ in source] for _ in tokens])
        assert align(tokens, source, attention) == _align_by_keys(tokens, source, attention)
