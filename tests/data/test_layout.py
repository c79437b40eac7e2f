"""c2fsum.data.layout and tokenize.preprocess_document: headings as sections, non-running text left out.

Hand-made strings modelled on what SumPubMed papers hold (issue 36), each kind worked by hand;
then invariants on real papers: no heading line is glued to a sentence, and the sentences of a
text without line breaks are those of the splitter alone.
"""

from __future__ import annotations

import gzip
import itertools
import json

import pytest

from c2fsum.data.layout import Block, blocks, is_non_running, sentence_kind
from c2fsum.data.tokenize import preprocess_article, preprocess_document, split_sentences
from c2fsum.data.vocab import EOS
from shared_data import DATA

PAPER = (
    "BACKGROUND\n"
    "overexpression of lon protease in e. coli cells reduces growth  <cit> . the reconstructed p. gingivalis "
    "network is shown here.\n\n"
    "RESULTS\n"
    "cell culture and transfection\n"
    "a range of cell lines was tested. all of them grew.\n\n"
    "* includes forward and reverse reads for some clones\n\n"
    "3number of unique reads in a sample.\n\n"
    "discussion\n"
    "the present study shows that c. elegans and d. melanogaster differ. see http://www.example.org for data.\n\n"
    "abbreviations\n"
    "gpugraphics processing unit\n\n"
    "cnnconvolutional neural network\n\n"
    "svmsupport vector machine\n\n"
    "competing interests\n\n"
    "the authors declare that they have no competing interests.\n\n"
    "supplementary material\n"
    "additional file 1\n"
    "walkthrough of the permission propagation: merge, migrate and percolate.\n\n"
    "click here for file\n\n"
    "© 2010 smith et al; licensee biomed central ltd.\n\n"
    "http://www.biomedcentral.com/1471-2105/11/5\n"
)


def test_blocks_of_a_paper():
    got = [(b.kind, b.text) for b in blocks(PAPER)]
    assert got == [
        ("heading", "BACKGROUND"),
        (
            "text",
            "overexpression of lon protease in e. coli cells reduces growth <cit> . the reconstructed p. gingivalis "
            "network is shown here.",
        ),
        ("heading", "RESULTS"),
        ("heading", "cell culture and transfection"),
        ("text", "a range of cell lines was tested. all of them grew."),
        ("footnote", "* includes forward and reverse reads for some clones"),
        ("footnote", "3number of unique reads in a sample."),
        ("heading", "discussion"),
        (
            "text",
            "the present study shows that c. elegans and d. melanogaster differ. see http://www.example.org for data.",
        ),
        # three short lines in a row are a table (here a list of abbreviations); the last short
        # paragraph before running text is its heading
        (
            "table",
            "abbreviations\ngpugraphics processing unit\ncnnconvolutional neural network\nsvmsupport vector machine",
        ),
        ("heading", "competing interests"),
        ("text", "the authors declare that they have no competing interests."),
        ("heading", "supplementary material"),
        ("file_caption", "additional file 1\nwalkthrough of the permission propagation: merge, migrate and percolate."),
        ("file_caption", "click here for file"),
        ("licence", "© 2010 smith et al; licensee biomed central ltd."),
        ("url", "http://www.biomedcentral.com/1471-2105/11/5"),
    ]


def test_document_sections_sentences_and_counts():
    doc = preprocess_document(PAPER)
    text = [" ".join(s[:-1]) for s in doc.sentences]
    assert text == [
        "overexpression of lon protease in e. coli cells reduces growth < cit > .",
        "the reconstructed p. gingivalis network is shown here .",
        "a range of cell lines was tested .",
        "all of them grew .",
        "the present study shows that c. elegans and d. melanogaster differ .",
        # "see http://www.example.org for data." is a URL with three words around it: left out
        "the authors declare that they have no competing interests .",
    ]
    assert all(s[-1] == EOS for s in doc.sentences)
    assert doc.sections == [
        ("BACKGROUND", 0),
        ("RESULTS", 2),
        ("cell culture and transfection", 2),
        ("discussion", 4),
        ("competing interests", 5),
        ("supplementary material", 6),  # nothing after it: one past the last sentence
    ]
    assert doc.dropped == {"footnote": 2, "table": 1, "file_caption": 2, "licence": 1, "url": 2}
    assert preprocess_article(PAPER) == doc.sentences


def test_surface_forms_survive_left_out_blocks():
    """The spelling of tokens after a long left-out table is still found (block by block)."""
    table = "\n".join(f"row{k} value" for k in range(200))
    text = "INTRODUCTION\nWe study Escherichia coli. It grows.\n\n" + table + "\n\nThe End came in 2015."
    doc = preprocess_document(text)
    flat = [t for s in doc.sentences for t in s]
    spelled = {flat[k]: v for k, v in doc.surface().items()}
    assert spelled["we"] == "We" and spelled["escherichia"] == "Escherichia" and spelled["####"] == "2015"
    assert doc.dropped == {"table": 1} and doc.sections == [("INTRODUCTION", 0)]


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("click here for file", "file_caption"),
        ("additional file 2: table s2 primers used in this study.", "file_caption"),
        ("† indicates that hsp67bb was not amplified.", "footnote"),
        ("3number of unique reads in a sample.", "footnote"),
        ("this article is distributed under the terms of the creative commons attribution license.", "licence"),
        ("copyright © 2009 the authors", "licence"),
        ("doi: 10.1186/1471-2164-9-1", "url"),
        ("available from http://www.r-project.org", "url"),
        # running text
        ("the 1st segment of cerci is longer than the others.", None),
        ("the tool is freely available to all users at http://x.org under a gpl licence agreement now.", None),
        ("the program is at http://x.org and runs on every operating system we tried.", None),
        ("we used additional controls.", None),
    ],
)
def test_non_running_lines(line, kind):
    assert is_non_running(line) == kind


def test_sentence_kind_on_tokens():
    [[*url]] = split_sentences("see http://www.nexml.org.")
    assert sentence_kind(url) == "url"
    [[*caption]] = split_sentences("Click here for file additional file 2: table s2 primers.")
    assert sentence_kind(caption) == "file_caption"
    [[*note]] = split_sentences("3number of unique reads in a sample.")
    assert sentence_kind(note) == "footnote"
    [[*plain]] = split_sentences("The 16s rrna genes of 3 strains were sequenced.")
    assert sentence_kind(plain) is None


def test_plain_text_headings_and_wrapped_lines():
    """In plain text a short line without a sentence end before a paragraph is a heading; a wrapped
    paragraph's lines are not (each is about as long as the longest)."""
    text = (
        "Introduction\n\n"
        "Coarse-to-fine attention reads a long document in two steps: first it\n"
        "chooses a chunk, then it reads the words of that chunk only.\n\n"
        "Method\n"
        "We split the text into chunks of forty words each and encode\n"
        "every chunk with a small network before the decoder starts.\n"
    )
    assert [b.kind for b in blocks(text)] == ["heading", "text", "heading", "text"]
    doc = preprocess_document(text)
    assert doc.sections == [("Introduction", 0), ("Method", 1)]
    assert doc.sentences[0][:3] == ["coarse-to-fine", "attention", "reads"]


def test_what_is_never_a_heading():
    # no running text after it: the text is read whole, never empty
    assert blocks("Hello world") == [Block("text", "Hello world")]
    assert blocks("one\ntwo\nthree") == [Block("text", "one\ntwo\nthree")]
    assert preprocess_article("one\ntwo\nthree") == [["one", "two", "three", EOS]]
    # a line that goes on with the next one (a <cit> marker, a comma) is no heading
    text = "aquificales are at-rich with a gc-content of about 43%\n <cit> . in one of them only a third is gc.\n"
    assert [b.kind for b in blocks(text)] == ["text"]
    # a text without line breaks is one block: its sentences are the splitter's alone
    news = 'Mr. Smith went to Washington. He said: "It\'s great." Then he left.'
    assert preprocess_article(news) == [s + [EOS] for s in split_sentences(news)]


@pytest.mark.real_data(DATA / "pubmed")
def test_no_heading_line_inside_a_sentence_of_real_papers():
    """On 20 validation papers: every SumPubMed section name is a section, none starts a sentence."""
    with gzip.open(DATA / "pubmed" / "val.jsonl.gz", "rt", encoding="utf-8") as f:
        papers = [json.loads(line)["article"] for line in itertools.islice(f, 20)]
    for article in papers:
        doc = preprocess_document(article)
        names = {line for line in article.split("\n") if line.strip() in ("BACKGROUND", "RESULTS", "CONCLUSIONS")}
        assert names <= {title for title, _ in doc.sections}
        surface = doc.surface()
        starts = itertools.accumulate((len(s) for s in doc.sentences), initial=0)
        assert not any(surface.get(k) in ("BACKGROUND", "RESULTS", "CONCLUSIONS") for k in starts)
        assert not doc.dropped.keys() - {"file_caption", "footnote", "licence", "url", "table"}
        assert [k for _, k in doc.sections] == sorted(k for _, k in doc.sections)


def test_a_title_on_the_last_lines_of_a_paragraph_before_a_table():
    """A table's title broken over the last lines of a paragraph (where the paper had italics),
    after a sentence end and before the table's cells, is no sentence: it goes with the table.
    Wrapped prose ends with a period, and a title before running text is left as it was."""
    text = (
        "no effect was detected at ph 5, whatever its concentration.\n"
        "in vitro \neffects of ph on \npseudomonas aeruginosa \npao1 growth\n\n"
        "595nm \nof \np. aeruginosa\n\n"
        "the next paragraph is running text, long enough to be read as such.\n"
    )
    assert [b.kind for b in blocks(text)] == ["text", "table", "text"]
    assert [" ".join(s[:-1]) for s in preprocess_article(text)] == [
        "no effect was detected at ph # , whatever its concentration .",
        "the next paragraph is running text , long enough to be read as such .",
    ]
    wrapped = "first sentence ends here.\nthe second one wraps over\nseveral lines before it ends.\n\none\ntwo\nthree\n"
    assert [b.kind for b in blocks(wrapped)][0] == "text"
    assert len(preprocess_article(wrapped)) == 2
    before_text = text.replace("595nm \nof \np. aeruginosa\n\n", "")
    assert [b.kind for b in blocks(before_text)] == ["text", "text"]


@pytest.mark.real_data(DATA / "pubmed")
@pytest.mark.parametrize(
    ("paper", "title"),
    [
        ("sumpubmed-24211", "s. pneumoniae gene expression in the presence of norepinephrine"),
        ("sumpubmed-30846", "in vitro effects of ph , lactic and acetic acids on pseudomonas aeruginosa"),
        ("sumpubmed-30846", "lactobacillus isolates based on maldi-tof analyses"),
    ],
)
def test_table_titles_of_real_papers_are_no_sentences(paper, title):
    """Validation papers whose table titles were chosen by ILP as sentences (issue 36, reading the
    extracts of papers 300-499)."""
    with gzip.open(DATA / "pubmed" / "val.jsonl.gz", "rt", encoding="utf-8") as f:
        article = next(d for d in map(json.loads, f) if d["id"] == paper)["article"]
    doc = preprocess_document(article)
    assert not [s for s in doc.sentences if title in " ".join(s)]
    assert doc.dropped["table"] >= 1
