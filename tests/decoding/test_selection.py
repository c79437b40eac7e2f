"""Decoding sentence-level coarse-to-fine (decoding/selection.py): the summary a selector's picks make,
copied or rewritten, its attention on the paper's cells and its fine fraction."""

import torch

from c2fsum.data.batching import encode_example
from c2fsum.data.vocab import Vocab
from c2fsum.decoding.documents import Decoded
from c2fsum.decoding.hypothesis import Hypothesis
from c2fsum.decoding.selection import compose, sentence_cells

DOC = {
    "id": "p",
    "src": [s.split() + ["</s>"] for s in ["we used mice .", "the drug worked well .", "it was cheap ."]],
    "tgt": [],
    "refs": [],
}


def _example(chunking="fixed"):
    vocab = Vocab.from_tokens(["we", "used", "the", "drug", "worked", "well", "it", "was", "."])  # no "mice", "cheap"
    return vocab, encode_example(DOC, vocab, chunks=0, chunk_len=4, max_tgt_len=10, chunking=chunking)


def test_sentence_cells_skip_padding_and_end_after_each_mark():
    assert sentence_cells("a b </s> <pad> c </s> d".split()) == [[0, 1, 2], [4, 5], [6]]


def test_picked_sentences_copied_in_pick_order_with_one_hot_attention():
    vocab, ex = _example("sentences")  # rows: [we used mice .] [</s> ...]: padding cells inside the grid
    M = ex.n_chunks(4)
    d = compose(ex, [2, 0], vocab, (M, 4))
    assert d.words == "it was cheap . we used mice .".split()
    assert d.sentences == [2, 0]
    cells = sentence_cells(ex.words)
    att = d.hypothesis.attn.flatten(1)  # (T, M*N)
    assert att.shape == (8, M * 4) and torch.equal(att.sum(1), torch.ones(8))
    pointed = att.argmax(1).tolist()
    assert pointed == cells[2][:-1] + cells[0][:-1]  # each word points at its own cell (not at </s>)
    assert [ex.words[c] for c in pointed] == d.words
    # document-only words keep their own extended ids ("cheap", "mice")
    assert d.hypothesis.tokens[2] == len(vocab) + ex.oovs.index("cheap")
    assert d.fine_fraction == 8 / 13  # 8 of the paper's 13 words (sentence marks not counted)


def test_a_rewrite_that_repeats_a_trigram_of_the_summary_is_left_out():
    vocab, ex = _example()
    M = ex.n_chunks(4)

    def rewrite(words, n_cells):
        T = len(words)
        return Decoded(
            example=ex,
            hypothesis=Hypothesis(
                tokens=[], score=0.0, norm_score=0.0, attn=torch.full((T + 1, 1, n_cells), 1 / n_cells)
            ),
            words=words,
        )

    rewritten = [rewrite("the drug worked .".split(), 6), rewrite("so the drug worked .".split(), 5)]
    d = compose(ex, [1, 0], vocab, (M, 4), rewritten)
    assert d.words == "the drug worked .".split()  # the second repeats "the drug worked"
    att = d.hypothesis.attn.flatten(1)
    cells = sentence_cells(ex.words)
    assert torch.allclose(att[:, cells[1]].sum(1), torch.ones(4))  # on the rewritten sentence's cells only
    assert d.sentences == [1, 0]


def test_no_picks_make_an_empty_summary():
    vocab, ex = _example()
    d = compose(ex, [], vocab, (ex.n_chunks(4), 4))
    assert d.words == [] and d.hypothesis.attn.shape == (0, ex.n_chunks(4), 4) and d.fine_fraction == 0.0
