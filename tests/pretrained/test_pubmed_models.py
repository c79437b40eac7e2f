"""The shipped PubMed models load by name and decode as they did when shipped (docs/results.md,
"PubMed: MODEL 0 against MODEL 3"). Golden outputs were written by the committed weights on a
made-up 1,840-word paper; MODEL 3 reads all of it, 3 chunks per step.

What is pinned is what the arithmetic decides on every CPU: the text, its length, the grid, and
bounds on MODEL 3's ``fine_fraction``. Not its value: the paper repeats one section 20 times, so
many of its chunks hold the same words and get exactly equal chunk scores, and which of the tied
chunks a top-3 picks (for the kept hypothesis and for the beam's dropped ones, whose chunks are
encoded too) depends on the top-k kernel of the instruction set. Measured on one Xeon: 0.618 when
the test was written, 0.564 with AVX-512 and AVX2, 0.582 with ATEN_CPU_CAPABILITY=default; the
text was the same each time (tied chunks hold the same words, so the summary reads the same).
"""

from __future__ import annotations

import pytest
import torch

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
        "the tol# transposon transposon reporter expression of the cell type with ## % of the reporter-positive "
        "cells . the results of the tol# was measured in human cells . in addition , the number of stable "
        "expression of stable clones in cell lines . in human , mouse cells is a fundamental technique for "
        "understanding gene function in gene function . stable transgenesis is an important technique for gene "
        "function function in cell cycle . we present this study to investigate the expression of tol# clones "
        "with a fluorescent reporter reporter <unk> with the <unk> transposon . the tol# <unk>"
    ),
    "pubmed-model3": (  # 91 tokens: it may stop after its 40-token minimum (it did at 100, the old minimum)
        "in this study , we identified the tol# transposon transposon expression of the cell type in cell lines . "
        "in addition of the system of the type of cell lines in the reporter-positive cells . the system is an "
        "important role in the cell lines of cell type . in this paper , we found that the system with a "
        "fundamental technique for the system for the cell function of the reporter-positive type . the results "
        "suggest that tol# is a fundamental role in gene function in cell cells . in"
    ),
}
TEXT = {  # what a reader gets (Summary.text): spelled as the paper, the cut last sentence left out
    "pubmed-model0": (
        "The Tol2 transposon transposon reporter expression of the cell type with 30% of the reporter-positive "
        "cells. The results of the Tol2 was measured in human cells. In addition, the number of stable expression "
        "of stable clones in cell lines. In human, mouse cells is a fundamental technique for understanding gene "
        "function in gene function. Stable transgenesis is an important technique for gene function function in "
        "cell cycle. We present this study to investigate the expression of Tol2 clones with a fluorescent reporter "
        "reporter reporter with the cell transposon."
    ),
    "pubmed-model3": (
        "In this study, we identified the Tol2 transposon transposon expression of the cell type in cell lines. "
        "In addition of the system of the type of cell lines in the reporter-positive cells. The system is an "
        "important role in the cell lines of cell type. In this paper, we found that the system with a fundamental "
        "technique for the system for the cell function of the reporter-positive type. The results suggest that "
        "Tol2 is a fundamental role in gene function in cell cells."
    ),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_summary_of_a_paper(name):
    model = c2fsum.load(name)
    family = model.config.model.family
    out = model.summarize([PAPER], max_words=400 if family == "model0" else None)[0]
    assert " ".join(out.tokens) == GOLDEN[name]
    assert out.text == TEXT[name]
    assert 40 <= len(out.tokens) <= 100  # trained on the first 100 tokens of each abstract; minimum 40
    T, M, N = out.attention.shape
    if family == "model0":  # the first 400 words, every one through the word-level encoder
        assert (M, N) == (10, 40) and out.fine_fraction == 1.0 and out.fine_chunks is None
    else:  # the whole paper in 40-word chunks, 3 read per step
        assert (M, N) == (-(-len(out.source) // 40), 40) and M == 55
        assert model.config.decode.read_chunks == 3
        read = out.attention.sum(-1) > 0  # (T, M): the chunks each step of the summary read
        assert read.sum(-1).tolist() == [3] * T
        # every chunk the summary read went through the word encoder, and perhaps others that dropped
        # hypotheses read: the share of words is at least the summary's own chunks' share, at most 1
        words = torch.zeros(M * N)
        words[: len(out.source)] = 1.0
        per_chunk = words.view(M, N).sum(-1)  # (M,)
        own = float((per_chunk * read.any(0)).sum() / per_chunk.sum())
        assert own - 1e-6 <= out.fine_fraction <= 1.0  # 1e-6: two float32 divisions of counts < 2^24
        # fine_chunks names them: those the summary read among them, and their words are fine_fraction
        assert out.fine_chunks is not None and set(read.any(0).nonzero().squeeze(1).tolist()) <= set(out.fine_chunks)
        assert float(per_chunk[out.fine_chunks].sum() / per_chunk.sum()) == pytest.approx(out.fine_fraction, abs=1e-6)
