"""The shipped PubMed models load by name and decode as they did when shipped (docs/results.md,
"PubMed, whole abstracts: the shipped models"). Golden outputs were written by the committed weights
on a made-up paper; MODEL 0 reads its first 400 words, MODEL 3 all of it, 2 chunks per step within a
28% reading budget.

What is pinned is what the arithmetic decides on every CPU: the text, its length, the grid, and
bounds on MODEL 3's ``fine_fraction``. Not its value: the paper repeats one section 20 times, so
many of its chunks hold the same words and get exactly equal chunk scores, and which of the tied
chunks a top-k picks (for the kept hypothesis and for the beam's dropped ones, whose chunks are
encoded too, and so count towards the reading budget) depends on the top-k kernel of the
instruction set. For the previous weights (top-3 reading) one Xeon measured 0.618, 0.564 with
AVX-512 and AVX2, 0.582 with ATEN_CPU_CAPABILITY=default, and the same text each time (tied chunks
hold the same words, so the summary reads the same). `make test-portability` checks it.
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
        "these results suggest that transgenesis is a fundamental technique for understanding gene function "
        "in cell lines . we found that stable expression was measured in chicken and chicken cells over ## "
        "days . flow cytometry was performed using a fluorescent reporter assay to select transfected cells ."
        " the results show that the expression of stable clones was significantly increased in the cell type "
        ". the expression patterns of the transposase genes were significantly higher in the mouse and "
        "chicken tissues . in this study , we investigated the expression profiles of the tol# genes in human"
        " and chicken and mouse cells . in addition , the expression levels of the <unk> genes was "
        "significantly higher than in mouse and mouse tissues . we also found that the <unk> transposon "
        "expression was significantly lower in human tissues than in human , mouse , and chicken , and in the"
        " <unk> cells . our results demonstrate that transgenesis may be a useful tool for studying gene "
        "regulation in cell type # . the system is a technique to select stable clones with a purity above ##"
        " % . the tol# transposon with a <unk> fluorescent reporter was significantly reduced in human cells "
        "."
    ),
    "pubmed-model3": (
        "in human cells , and chicken cells , mouse cells . we combined the tol# transposon . we found a "
        "fluorescent expression in human expression of a fluorescent reporter expression in the fluorescent "
        "expression . in human transposon , and a fluorescent number of expression function in the "
        "transposase . the system of the fluorescent transposon function . the results show that the "
        "expression of < dig stable in human , mouse and chicken , and the number of chicken cells . the tol#"
        " <unk> transposon was found to be measured to handle transfected cells . these results suggest that "
        "the cell lines . we identified a fluorescent transposon was identified in the tol# reporter . we "
        "present the tol# with a fluorescent tol# transposon , with the fluorescent cells , with a number of "
        "transposon . stable expression function with the transposase reporter in human and chicken and mouse"
        " cells , chicken and chicken . we show that < dig be to be laborious to be a fundamental tool for "
        "understanding gene expression function . in the cell type function . we have identified the "
        "fluorescent reporter function in a fluorescent transposase . we developed the tol# fluorescent "
        "transposon ."
    ),
}
TEXT = {  # what a reader gets (Summary.text): spelled as the paper, whole sentences
    "pubmed-model0": (
        "These results suggest that transgenesis is a fundamental technique for understanding gene function "
        "in cell lines. We found that stable expression was measured in chicken and chicken cells over 30 "
        "days. Flow cytometry was performed using a fluorescent reporter assay to select transfected cells. "
        "The results show that the expression of stable clones was significantly increased in the cell type. "
        "The expression patterns of the transposase genes were significantly higher in the mouse and chicken "
        "tissues. In this study, we investigated the expression profiles of the Tol2 genes in human and "
        "chicken and mouse cells. In addition, the expression levels of the transposase genes was "
        "significantly higher than in mouse and mouse tissues. We also found that the system transposon "
        "expression was significantly lower in human tissues than in human, mouse, and chicken, and in the "
        "cell cells. Our results demonstrate that transgenesis may be a useful tool for studying gene "
        "regulation in cell type 1. The system is a technique to select stable clones with a purity above "
        "95%. The Tol2 transposon with a purity fluorescent reporter was significantly reduced in human "
        "cells."
    ),
    "pubmed-model3": (
        "In human cells, and chicken cells, mouse cells. We combined the Tol2 transposon. We found a "
        "fluorescent expression in human expression of a fluorescent reporter expression in the fluorescent "
        "expression. In human transposon, and a fluorescent number of expression function in the transposase."
        " The system of the fluorescent transposon function. The results show that the expression of N stable"
        " in human, mouse and chicken, and the number of chicken cells. The Tol2 reporter transposon was "
        "found to be measured to handle transfected cells. These results suggest that the cell lines. We "
        "identified a fluorescent transposon was identified in the Tol2 reporter. We present the Tol2 with a "
        "fluorescent Tol2 transposon, with the fluorescent cells, with a number of transposon. Stable "
        "expression function with the transposase reporter in human and chicken and mouse cells, chicken and "
        "chicken. We show that N be to be laborious to be a fundamental tool for understanding gene "
        "expression function. In the cell type function. We have identified the fluorescent reporter function"
        " in a fluorescent transposase. We developed the Tol2 fluorescent transposon."
    ),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_summary_of_a_paper(name):
    model = c2fsum.load(name)
    family = model.config.model.family
    out = model.summarize([PAPER], max_words=400 if family == "model0" else None)[0]
    assert " ".join(out.tokens) == GOLDEN[name]
    assert out.text == TEXT[name]
    assert 200 <= len(out.tokens) <= 300  # the models' decode.min_len and max_len
    T, M, N = out.attention.shape
    if family == "model0":  # the first 400 words, every one through the word-level encoder
        assert (M, N) == (10, 40) and out.fine_fraction == 1.0 and out.fine_chunks is None
    else:  # the whole paper in 40-word chunks, 2 read per step within a reading budget
        assert (M, N) == (-(-len(out.source) // 40), 40) and M == 55
        assert (model.config.decode.read_chunks, model.config.decode.read_budget) == (2, 0.28)
        read = out.attention.sum(-1) > 0  # (T, M): the chunks each step of the summary read
        assert read.sum(-1).tolist() == [2] * T
        # every chunk the summary read went through the word encoder, and perhaps others that dropped
        # hypotheses read: the share of words is at least the summary's own chunks' share; at most the
        # budget plus what one step of the beam adds once below it (4 beams x 2 chunks x 40 words)
        words = torch.zeros(M * N)
        words[: len(out.source)] = 1.0
        per_chunk = words.view(M, N).sum(-1)  # (M,)
        own = float((per_chunk * read.any(0)).sum() / per_chunk.sum())
        step_max = 4 * 2 * 40 / len(out.source)
        assert own - 1e-6 <= out.fine_fraction <= 0.28 + step_max + 1e-6  # 1e-6: float32 divisions of counts < 2^24
        # fine_chunks names them: those the summary read among them, and their words are fine_fraction
        assert out.fine_chunks is not None and set(read.any(0).nonzero().squeeze(1).tolist()) <= set(out.fine_chunks)
        assert float(per_chunk[out.fine_chunks].sum() / per_chunk.sum()) == pytest.approx(out.fine_fraction, abs=1e-6)
