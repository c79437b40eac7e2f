"""The shipped PubMed models load by name and decode as they did when shipped (docs/results.md,
"PubMed: MODEL 0 against MODEL 3"). Golden outputs were written by the committed weights on a
made-up 1,840-word paper; MODEL 3 reads all of it and encodes about a quarter of it at the fine level.
"""

from __future__ import annotations

import pytest

import c2fsum

PAPER = " ".join(
    f"Section {k}. "
    + " ".join(
        [
            "Background: transgenesis is a fundamental technique for understanding gene function in cell lines.",
            "Retroviral vectors are laborious to handle and depend on cellular receptors.",
            "We combined the Tol2 transposon with a fluorescent reporter to select transfected cells.",
            "Stable expression was measured in human, mouse and chicken cells over 30 days.",
            "The transposase increased the number of stable clones tenfold compared with plasmid alone.",
            "Flow cytometry sorted the reporter-positive cells with a purity above 95 percent.",
            "These results show that the system allows stable transgene expression independent of the cell type.",
        ]
    )
    for k in range(1, 21)
)
GOLDEN = {
    "pubmed-model0": (
        "the results of this study was to investigate the number of gene function in cell lines . we found that "
        "stable expression of the cell type with a fluorescent reporter cells with the cell lines of the <unk> "
        "cells . the tol# of the fluorescent reporter reporter expression of a cell type of the type . section "
        "expression of stable cells were found to be associated in cell type and chicken cells . in addition , we "
        "have identified the <unk> of a fluorescent fluorescent reporter expression in a . section of the tol# "
        "cells with a reporter reporter reporter"
    ),
    "pubmed-model3": (
        "the aim of this study was to investigate the system of the cell lines of the type . we have developed a "
        "novel approach for the system for the cell type . the system and the cell level of cell lines , we "
        "identified < dig > < dig . and < dig < dig was were identified . in this study , we propose a novel "
        "method for gene gene expression in cell lines in the lines of a cell lines . in addition , we found that "
        "the system < dig measured to the cell acid type ,"
    ),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_summary_of_a_paper(name):
    model = c2fsum.load(name)
    family = model.config.model.family
    out = model.summarize([PAPER], max_words=400 if family == "model0" else None)[0]
    assert out.text.replace("\n", " ") == GOLDEN[name]
    assert len(out.tokens) == 100 and not out.eos  # trained on the first 100 tokens of each abstract
    T, M, N = out.attention.shape
    if family == "model0":  # the first 400 words, every one through the word-level encoder
        assert (M, N) == (10, 40) and out.fine_fraction == 1.0
    else:  # the whole paper in 40-word chunks, a quarter of it encoded at the fine level
        assert (M, N) == (-(-len(out.source) // 40), 40) and M == 55
        assert out.fine_fraction == pytest.approx(0.2364, abs=1e-3)
