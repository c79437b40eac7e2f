"""c2fsum.data.layout and tokenize.preprocess_document: headings as sections, non-running text left out.

Hand-made strings modelled on what SumPubMed papers hold (issue 36), each kind worked by hand;
then invariants on real papers: no heading line is glued to a sentence, and the sentences of a
text without line breaks are those of the splitter alone. Last, the table of rules (issue 50): each
rule's real examples, and its quick test against what the rule finds.
"""

from __future__ import annotations

import gzip
import itertools
import json
import random

import pytest

from c2fsum.data.layout import (
    BOTH,
    LINE,
    NON_RUNNING,
    RULES,
    STATEMENT,
    TOKENS,
    Block,
    Rule,
    blocks,
    heading_kind,
    is_non_running,
    sentence_kind,
    sentence_kinds,
    statement_kind,
)
from c2fsum.data.tokenize import preprocess_article, preprocess_document, split_sentences
from c2fsum.data.vocab import EOS
from shared_data import DATA, need_real

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
        # "see http://www.example.org for data." is a URL with three words around it: left out;
        # so is the competing-interests statement, and its heading is no section
    ]
    assert all(s[-1] == EOS for s in doc.sentences)
    assert doc.sections == [
        ("BACKGROUND", 0),
        ("RESULTS", 2),
        ("cell culture and transfection", 2),
        ("discussion", 4),
        ("supplementary material", 5),  # nothing after it: one past the last sentence
    ]
    assert doc.dropped == {
        "footnote": 2, "table": 1, "file_caption": 2, "licence": 1, "url": 2, "competing_interests": 1
    }  # fmt: skip
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
        ("5in contrast to rast and prodigal rebase predicts a second candidate for this orf", "footnote"),
        ("4according to rebase orf # <dig> encodes a type ii rm-system", "footnote"),
        ("#misidentification only at species level, all isolates were identified by genus.", "footnote"),
        ("# Introduction", None),  # a markdown heading, not a footnote mark
        ("5th and 6th instars were larger.", None),  # an ordinal, a unit: no footnote mark
        ("3d structures of the 2nd domain were aligned.", None),
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
        assert not doc.dropped.keys() - set(NON_RUNNING)
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


def test_legends_glued_or_at_a_paragraphs_head_run_to_its_end():
    """A figure's or table's caption glued to the sentence before it, or at the head of a paragraph, is a
    ``legend`` to the paragraph's end (SumPubMed puts the legend where the paper placed the figure: issue 36,
    all 247 glued figure captions and 154 glued table titles of the validation papers read so); running text
    that names a figure stays text."""
    text = (
        "wounds healed faster with insulin.fig.  <dig> the histology of turtle skin. sections were taken from "
        "the margins.\n\n"
        "the genotype was not seen in any affected animal.table  <dig> comparison of genotypes. a total of  <dig> "
        "cases were assessed\n\n"
        "fig.  <dig> survival of dogs based on the organ system\n\n"
        "figure  <dig> shows the results of the simulations. they agree.\n\n"
        "results\nfig.  <dig> \nz-scores in the pathway. pair-wise scatterplots of z-scores.\n\n"
        "table  <dig> lists the strains we used, all of them from soil.\n\n"
        "the four coefficients of the linear relationships are plotted, and fitting this curve with a quadratic "
        "yields \n  <dig> α−1=. \nfig.  <dig> relation between 1/α and t\n\n"
        "the average size of coding sequences seems to be least, whilst the intergenic distance is similar.table  "
        "<dig> \nin vitro antifungal susceptibility of candida isolates\n"
        "\nno signal was observed with sense-oriented probes .figure  <dig> \nendogenous distribution of auxin.\n"
    )
    assert [(b.kind, b.text) for b in blocks(text)] == [
        ("text", "wounds healed faster with insulin."),
        ("legend", "fig. <dig> the histology of turtle skin. sections were taken from the margins."),
        ("text", "the genotype was not seen in any affected animal."),
        ("legend", "table <dig> comparison of genotypes. a total of <dig> cases were assessed"),
        ("legend", "fig. <dig> survival of dogs based on the organ system"),
        ("text", "figure <dig> shows the results of the simulations. they agree."),
        ("heading", "results"),
        ("legend", "fig. <dig>"),
        ("legend", "z-scores in the pathway. pair-wise scatterplots of z-scores."),
        ("text", "table <dig> lists the strains we used, all of them from soil."),
        # a legend on a line of its own after a sentence (sumpubmed-10068); "in vitro" starts a title
        (
            "text",
            "the four coefficients of the linear relationships are plotted, and fitting this curve with a quadratic "
            "yields <dig> α−1=.",
        ),
        ("legend", "fig. <dig> relation between 1/α and t"),
        ("text", "the average size of coding sequences seems to be least, whilst the intergenic distance is similar."),
        ("legend", "table <dig> in vitro antifungal susceptibility of candida isolates"),
        # SumPubMed's " ." before a glued caption (sumpubmed-23286, and 203 of the 1,000 validation and test papers)
        ("text", "no signal was observed with sense-oriented probes ."),
        ("legend", "figure <dig> endogenous distribution of auxin."),
    ]
    doc = preprocess_document(text)
    assert doc.dropped == {"legend": 8}
    assert [" ".join(s[:-1]) for s in doc.sentences] == [
        "wounds healed faster with insulin .",
        "the genotype was not seen in any affected animal .",
        "figure < dig > shows the results of the simulations .",
        "they agree .",
        "table < dig > lists the strains we used , all of them from soil .",
        "the four coefficients of the linear relationships are plotted , and fitting this curve with a quadratic "
        "yields < dig > α−#= .",
        "the average size of coding sequences seems to be least , whilst the intergenic distance is similar .",
        "no signal was observed with sense-oriented probes .",
    ]


def test_wrapped_prose_after_a_heading_is_no_table():
    """SumPubMed breaks lines where the paper had italics: four short lines or more at a paragraph's head are a
    table's last rows only when none is running text (sumpubmed-8880: the first sentence was lost as a table and
    the next began "found infected in nature.")."""
    text = (
        "ant infections leading towards species-specific behavioral\nmanipulation\n"
        "in this study, we addressed if our o. unilateralis\n"
        "s.l. species could control the behavior of ants that are not normally\n"
        "found infected in nature. we chose c.\npennsylvanicus and f. dolosa, which we never found infected at our "
        "site despite them occurring sympatrically.\n"
    )
    got = [(b.kind, b.text) for b in blocks(text)]
    assert got[:2] == [
        ("heading", "ant infections leading towards species-specific behavioral"),
        ("heading", "manipulation"),
    ]
    assert got[2][0] == "text" and got[2][1].startswith(
        "in this study, we addressed if our o. unilateralis s.l. species"
    )
    rows = "gene name\nvirulence traits\nfunction\nreference\nprs <dig> is remarkably similar to plasmids of e. coli.\n"
    assert [b.kind for b in blocks(rows)] == ["table", "text"]  # a table's rows touching the text stay a table


def test_a_text_of_legends_alone_is_read_as_text():
    """Nothing a user gives is read as empty: captions without running text are its prose."""
    text = "a_baumannii\n\na_macleodii\n\nb_cereus\n\nfig.  <dig> genomic gc content. the box plot shows it.\n"
    assert [b.kind for b in blocks(text)] == ["heading", "heading", "heading", "text"]
    assert [b.kind for b in blocks(text + "\nwe measured it. it grew.\n")][-2:] == ["legend", "text"]
    assert len(preprocess_document(text).sentences) == 2


def test_a_line_that_breaks_off_before_a_figures_number_is_no_heading():
    """``figure`` at the end of a line, its number on the next (sumpubmed-7221: a heading ``figure`` and a
    sentence ``<dig> shows the results ...``)."""
    text = "figure\n <dig> shows the results from the growth rate simulations, which agree with the data.\n"
    assert [(b.kind, b.text) for b in blocks(text)] == [
        ("text", "figure <dig> shows the results from the growth rate simulations, which agree with the data.")
    ]


# A supplement's note of the meeting it comes from (issue 36: validation paper sumpubmed-29779 kept it as a
# running sentence, and its dates as another). Real notes of SumPubMed papers (validation and train), then
# running text that starts alike.
MEETING_NOTES = [
    ("from the fourteenth asia pacific bioinformatics conference san francisco, ca, usa.", "publication"),
    ("from the fourteenth asia pacific bioinformatics conference san francisco, ca, usa.  <dig> -  <dig> january "
     "2016", "publication"),  # (the whole line: what a heading line is judged on)
    ("from 11th international meeting on computational intelligence methods for bioinformatics and "
     "biostatistics cambridge, uk.", "publication"),
    ("from ieee international conference on bioinformatics and biomedicine  <dig> washington, dc, usa. 9– <dig> "
     "november 2015", "publication"),
    ("from the 27th international conference on genome informatics shanghai, china.", "publication"),
    ("data from the conference were analysed in the same way, as in usa.", None),
    ("from the conference proceedings we extracted all abstracts on malaria, tb.", None),
    ("from the meeting minutes, conclusions followed.", None),
    ("from the symposium, the committee concluded.", None),
    ("from the workshop participants, usa.", None),
    ("from summer  <dig> to early  <dig> experts were informed at the ewda  <dig> conference, written "
     "documents.", None),
    ("from a total of <dig> patients, seven attended the meeting in boston, usa.", None),
    ("from a total of <dig> patients who attended the meeting in boston, usa.", None),
]  # fmt: skip


# The back matter's statements (issue 36: pubmed-rewrite's summaries picked "this work was supported by
# university of padova grants ..." and "<dig> this article has been published as part of bmc bioinformatics
# volume <dig> supplement <dig> 2016: selected articles from ..."). Real sentences of SumPubMed papers
# (train and validation), shortened; then running text of the same papers that says the same words.
@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ('this work was supported by university of padova grants cpdr <dig>  cpda <dig> and cpdr070805/07: "meta',
         "acknowledgement"),
        ("this work was partially supported by portuguese foundation for science and technology fct.",
         "acknowledgement"),
        ("this work has been supported in part by the nih grant r01-lm <dig> and nsf grant <dig>", "acknowledgement"),
        ("ph is supported by an mqres scholarship from macquarie university and a top-up scholarship from csiro.",
         "acknowledgement"),
        ("we thank bill hempel for his contribution in the writing of the ms in english.", "acknowledgement"),
        ("mp would like to thank steven z. swartz for stimulating discussions and paper revisions.", "acknowledgement"),
        ("the authors are grateful to ms. mary victoria pragnell, ba, for linguistic assistance.", "acknowledgement"),
        ("we gratefully acknowledge support of our research by the national cancer institute.", "acknowledgement"),
        ("karen zeise, berlin, germany, is gratefully acknowledged for supplying the fungal strain.",
         "acknowledgement"),
        ("many thanks to fan meng and manhong dai for the use of the mgrep software.", "acknowledgement"),
        ("the funders had no role in study design, data collection and analysis, decision to publish.",
         "acknowledgement"),
        ("<dig> this article has been published as part of bmc bioinformatics volume <dig> supplement <dig> 2016: "
         "selected articles from the ix international conference.", "publication"),
        ("other papers from the meeting have been published as part of bmc genomics volume <dig> supplement <dig>",
         "publication"),
        ("the full contents of the supplement are available online at http://www.biomedcentral.com/bmcgenomics/"
         "supplements/16/s <dig>", "publication"),
        ("publication costs for this article were funded by fiocruz.", "publication"),
        ("the authors declare that they have no competing interests.", "competing_interests"),
        ("we the authors hereby declare that there is no conflict of interests concerning this manuscript.",
         "competing_interests"),
        ("competing interests none.", "competing_interests"),
        ("all authors read and approved the final manuscript.", "contributions"),
        ("sang-bin lee and yunjeong choe contributed equally to this work.", "contributions"),
        ("lw drafted the manuscript.", "contributions"),
        # running text with the same words (the first one the issue's own example)
        ("this work was supported by our earlier finding that the kinase binds dna.", None),
        ("this hypothesis is supported by findings from pammer et al. <cit>.", None),
        ("these data were supported by the national program of field surveys.", None),
        ("initiatives such as the microbial genome sequencing project funded by the gordon and betty moore "
         "foundation provide data.", None),
        ("most of these documents were funded by short term projects specifically geared towards emergency response.",
         None),
        ("thanks to the scalability of structure software, we reduced the computing time to few days.", None),
        ("we acknowledge that scenarios of selection may be more complex than those in this experiment.", None),
        ("it is acknowledged that dna methylation aberrations cause diseases <cit>.", None),
        ("this conflict of interest has to be attenuated by very effective immune responses.", None),
        ("competing models were analyzed using the akaike information criterion.", None),
        ("the contribution of each parameter was evaluated with logistic regression.", None),
        ("both factors contributed equally to the variance of growth.", None),
        ("the hash may be used to validate the files were published as part of this manuscript's dataset.", None),
        ("permission to collect material from the client-owned dogs was granted by the owners.", None),
    ]
    + MEETING_NOTES,
)  # fmt: skip
def test_back_matter_statements(sentence, kind):
    """Judged on the raw sentence and on its tokens (what ``preprocess_document`` asks), alike."""
    assert statement_kind(sentence.lower()) == kind
    tokens = [t for s in split_sentences(sentence) for t in s]
    assert sentence_kind(tokens) == kind


@pytest.mark.parametrize(
    ("heading", "kind"),
    [
        ("acknowledgements", "acknowledgement"),
        (" Acknowledgments and funding", "acknowledgement"),
        ("funding", "acknowledgement"),
        ("competing interests", "competing_interests"),
        ("competing interest and funding", "competing_interests"),
        ("authors’ contributions", "contributions"),
        ("author's contributions", "contributions"),
        ("about this supplement", "publication"),
        ("declarations", "publication"),
        # a paper's own "contributions" (its introduction's list of what it adds) is running text
        ("contributions", None),
        ("contributions of each gene to fitness", None),
        ("phylogenetic conflict", None),
        ("competing endogenous rnas", None),
    ],
)
def test_back_matter_headings(heading, kind):
    assert heading_kind(heading) == kind


BACK_MATTER = (
    "discussion\n"
    "the kinase binds dna in vitro. this work was supported by our earlier finding that it binds rna.\n\n"
    "competing interests\n"
    "the authors declare that they have no competing interests.\n\n"
    "authors' contributions\n"
    "lw initiated and designed the study. lw and ch conducted the data analysis. all authors read and approved "
    "the final manuscript.\n\n"
    "acknowledgment\n"
    "this work is supported by the csrees/usda, under project number sc- <dig> \n\n"
    "this article has been published as part of bmc systems biology volume  <dig> supplement  <dig>  2010: "
    "proceedings of the isibm international joint conferences.  the full contents of the supplement are "
    "available online at http://www.biomedcentral.com/1752-0509/4?issue=s <dig> \n\n"
    "conclusions\n"
    "the kinase is a new target for drugs.\n"
)


def test_back_matter_is_left_out_and_counted():
    """(SumPubMed's sumpubmed-28587, shortened: its funding line lost its period and reads as a heading.)
    Every sentence under a back-matter heading is left out (``lw initiated and designed the study``
    too), counted by its own kind or else the heading's; the heading is no section; running text after
    the next heading is read again, and a statement in running text is judged on its own."""
    doc = preprocess_document(BACK_MATTER)
    assert [" ".join(s[:-1]) for s in doc.sentences] == [
        "the kinase binds dna in vitro .",
        "this work was supported by our earlier finding that it binds rna .",
        "the kinase is a new target for drugs .",
    ]
    assert doc.sections == [("discussion", 0), ("conclusions", 2)]
    # acknowledgement: the funding line, and "issue=s <dig>" (the splitter cuts the URL at its "?"), which
    # is nothing of its own kind and so of its heading's
    assert doc.dropped == {"competing_interests": 1, "contributions": 3, "acknowledgement": 2, "publication": 2}


def test_a_meeting_note_and_its_dates_are_left_out():
    """The note's dates are cut from it as a sentence of their own (``< dig > - < dig > january ####``):
    after a publication statement, a date alone is left out with it; a date in running text stays."""
    text = (
        "results\nthe kinase binds dna in vitro and in vivo in all of the tested cell lines.\n\n"
        "from the fourteenth asia pacific bioinformatics conference san francisco, ca, usa.  <dig> -  <dig> "
        "january 2016\n\n"
        "the kinase binds rna. 12 january 2016. it is a target.\n"
    )
    doc = preprocess_document(text)
    assert [" ".join(s[:-1]) for s in doc.sentences] == [
        "the kinase binds dna in vitro and in vivo in all of the tested cell lines .",
        "the kinase binds rna .",
        "## january #### .",
        "it is a target .",
    ]
    assert doc.dropped == {"publication": 2}


@pytest.mark.real_data(DATA / "pubmed")
def test_the_meeting_note_of_a_real_paper_is_left_out():
    """sumpubmed-29779 (validation): its note and dates are no sentences, and counted."""
    with gzip.open(need_real(DATA / "pubmed" / "val.jsonl.gz"), "rt", encoding="utf-8") as f:
        article = next(d for d in map(json.loads, f) if d["id"] == "sumpubmed-29779")["article"]
    doc = preprocess_document(article)
    text = " ".join(" ".join(s) for s in doc.sentences)
    assert "asia pacific" not in text and "january" not in text
    assert "our work provides a complementary and useful approach" in text  # (the paragraph before it)
    assert doc.dropped["publication"] == 5  # (3 before: the supplement's and the publication fee's statements)


def _substrings(text: str, rng: random.Random) -> list[str]:
    """``text``, every run of its words, and 50 random runs of its characters."""
    words = text.split(" ")
    runs = [" ".join(words[a:b]) for a in range(len(words)) for b in range(a + 1, len(words) + 1)]
    cuts = [sorted(rng.sample(range(len(text) + 1), 2)) for _ in range(50)]
    return [text, *runs, *(text[a:b] for a, b in cuts)]


@pytest.mark.parametrize("rule", RULES, ids=[f"{k}-{rule.kind}-{rule.reads}" for k, rule in enumerate(RULES)])
def test_each_rule_of_the_table_finds_its_examples_and_its_quick_test_admits_all_it_finds(rule: Rule):
    """Issue 50: every rule's real examples, through each classifier the rule serves (a line: ``is_non_running``,
    or ``statement_kind`` for a statement; tokens: ``sentence_kind``, and ``sentence_kinds`` on the example as a
    paragraph); running text is none of the kinds. The rule's quick test (``maybe``) holds wherever the rule
    finds something: on each example, on every run of its words and on random runs of its characters."""
    assert rule.kind in NON_RUNNING and rule.match and rule.no_match
    rng = random.Random(50)
    for example, wanted in [(x, rule.kind) for x in rule.match] + [(x, None) for x in rule.no_match]:
        tokens = [t for s in split_sentences(example) for t in s]
        text = " ".join(tokens)
        line = example.strip()
        if rule.reads in (LINE, BOTH, STATEMENT):
            assert rule.finds(line, line.lower()) == bool(wanted), example
            assert (statement_kind(line.lower()) if rule.reads == STATEMENT else is_non_running(line)) == wanted
            for sub in _substrings(line, rng):
                if rule.found(sub if rule.cased else sub.lower()):
                    assert rule.maybe is None or rule.maybe(sub.lower()), (example, sub)
        if rule.reads in (TOKENS, BOTH, STATEMENT):
            assert rule.finds(text, text, tokens) == bool(wanted), text
            assert sentence_kind(tokens) == wanted, text
            assert sentence_kinds(example, [tokens]) == [wanted], example
            for sub in _substrings(text, rng):
                if rule.found(sub, sub.split(" ")):
                    assert rule.maybe is None or rule.maybe(sub), (text, sub)


def test_the_footnote_is_the_only_rule_of_tokens_without_a_quick_test():
    """(``sentence_kinds`` looks only for footnotes in a paragraph that no quick test admits.)"""
    assert [rule.kind for rule in RULES if rule.reads in (TOKENS, BOTH) and rule.maybe is None] == ["footnote"]
