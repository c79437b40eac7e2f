"""SumPubMed's licence and funding lines stay out of the targets, and their words out of the
PubMed models' summaries (issue 39: "the author 1950", "The author% of c females")."""

from __future__ import annotations

from c2fsum.data.prepare import process_document
from c2fsum.data.readers import RawDocument
from c2fsum.data.residue import is_licence_line, without_licence
from c2fsum.decoding.hypothesis import markup_ids
from c2fsum.pretrained.registry import PRETRAINED_DIR

ABSTRACT = (  # a SumPubMed abstract as the data gives it: one highlight, a sentence a line
    "aah and humbug expression were significantly increased in response to insulin.\n"
    "amlrunx1tchromosomal translocationmyeloid cell differentiationepigenetic control"
    "issue-copyright-statement\u00a9 the author 2015\n"
    "mitochondrial dnaindian subcontinentgenome-widey chromosomehttp://dx.doi.org/ <dig> /501100001871"
    "funda\u00e7\u00e3o para a ci\u00eancia e a tecnologia\n"
    "these results show that the corresponding author can be reached at the address below."
)


def test_licence_and_funding_lines_are_recognised_and_sentences_are_not():
    lines = ABSTRACT.split("\n")
    assert [is_licence_line(x) for x in lines] == [False, True, True, False]
    assert not is_licence_line("the software is freely available at http://dx.doi.org/ <dig> /journal.pone")
    assert without_licence([ABSTRACT]) == ("\n".join([lines[0], lines[3]]),)
    assert without_licence(["the gene was found.", "issue-copyright-statement\u00a9 the author 2014"]) == (
        "the gene was found.",
    )


def test_prepare_keeps_them_out_of_the_targets_and_references():
    doc = RawDocument(id="d", article="We measured the gene. It was high.", highlights=(ABSTRACT,), where="x:1")
    rec = process_document(doc, all_highlights=True)
    assert isinstance(rec, dict)
    text = " ".join(rec["tgt"])
    assert "author" in text  # the sentence about the corresponding author stays
    assert "the author ####" not in text and "copyright" not in text and "doi" not in text
    assert all("copyright" not in " ".join(r) for r in rec["refs"])


def test_the_pubmed_models_never_write_the_licence_words_and_news_models_may():
    def banned(name: str) -> set[str]:
        words = [line.split("\t")[0] for line in (PRETRAINED_DIR / name / "vocab.txt").read_text().splitlines()]
        return {words[i] for i in markup_ids(words)}

    for name in ("pubmed-model0", "pubmed-model3"):
        assert {"author", "issue-copyright-statement\u00a9"} <= banned(name)
        assert "authors" not in banned(name)  # "the authors conducted ..." is an abstract's sentence
    assert "author" not in banned("cnndm-small")  # news has authors
