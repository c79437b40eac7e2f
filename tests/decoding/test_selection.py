"""Decoding sentence-level coarse-to-fine (decoding/selection.py): the summary a selector's picks make,
copied or rewritten, its attention on the paper's cells and its fine fraction."""

import torch

from c2fsum.config import Config
from c2fsum.data.batching import encode_example
from c2fsum.data.vocab import Vocab
from c2fsum.decoding.documents import Decoded
from c2fsum.decoding.hypothesis import Hypothesis
from c2fsum.decoding.options import DecodeOptions
from c2fsum.decoding.selection import compose, decode_selected, sentence_cells
from tiny import tiny_model

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


def _rewrite(ex, text: str, n_cells: int) -> Decoded:
    """A rewriter's output of ``text`` over a sentence of ``n_cells`` cells (uniform attention)."""
    words = text.split()
    attn = torch.full((len(words) + 1, 1, n_cells), 1 / n_cells)
    return Decoded(example=ex, hypothesis=Hypothesis(tokens=[], score=0.0, norm_score=0.0, attn=attn), words=words)


def test_a_rewrite_that_repeats_a_trigram_of_the_summary_gives_way_to_the_copy_or_is_left_out():
    vocab, ex = _example()
    M = ex.n_chunks(4)
    cells = sentence_cells(ex.words)
    rewritten = [_rewrite(ex, "the drug worked .", 6), _rewrite(ex, "so the drug worked .", 5)]
    d = compose(ex, [1, 0], vocab, (M, 4), rewritten)
    assert d.words == "the drug worked . we used mice .".split()  # the 2nd rewrite repeats "the drug worked"
    att = d.hypothesis.attn.flatten(1)
    assert torch.allclose(att[:4, cells[1]].sum(1), torch.ones(4))  # on the rewritten sentence's cells only
    assert att[4:].argmax(1).tolist() == cells[0][:-1]  # the copy points at its own cells
    assert d.sentences == [1, 0] and d.written == ["the drug worked .".split(), "we used mice .".split()]
    # a copy that mostly repeats the summary is left out: 2 of the 3 content trigrams of "the drug
    # worked well ." (the drug worked, drug worked well, worked well .) are in the summary already
    twice = compose(
        ex, [1, 1], vocab, (M, 4), [_rewrite(ex, "the drug worked well .", 6), _rewrite(ex, "so the drug worked .", 6)]
    )
    assert twice.words == "the drug worked well .".split() and twice.sentences == [1]
    assert twice.fine_fraction == 5 / 13  # the sentence read (5 of 13 words)


def test_a_copy_that_shares_one_phrase_with_the_summary_is_kept():
    vocab, ex = _example()
    M = ex.n_chunks(4)
    # "we used mice ." copied after a rewrite that holds "used mice .": 1 of its 2 content trigrams
    d = compose(
        ex, [1, 0], vocab, (M, 4), [_rewrite(ex, "the drug used mice .", 6), _rewrite(ex, "mice used mice .", 5)]
    )
    assert d.words == "the drug used mice . we used mice .".split() and d.sentences == [1, 0]


def test_no_picks_make_an_empty_summary():
    vocab, ex = _example()
    d = compose(ex, [], vocab, (ex.n_chunks(4), 4))
    assert d.words == [] and d.hypothesis.attn.shape == (0, ex.n_chunks(4), 4) and d.fine_fraction == 0.0


def test_a_sentence_past_the_budget_is_left_out_and_the_next_may_still_fit():
    vocab, ex = _example()  # sentences of 4, 5 and 4 words
    M = ex.n_chunks(4)
    assert compose(ex, [0, 1, 2], vocab, (M, 4), budget=9).words == "we used mice . the drug worked well .".split()
    d = compose(ex, [0, 1, 2], vocab, (M, 4), budget=8)
    assert d.words == "we used mice . it was cheap .".split() and d.sentences == [0, 2]


def test_a_rewrite_shorter_than_the_share_is_not_used_the_sentence_is_copied():
    vocab, ex = _example()
    M = ex.n_chunks(4)
    rewritten = [_rewrite(ex, "drug worked .", 6), None]  # 3 of the sentence's 5 words; nothing for the 2nd
    used = compose(ex, [1, 2], vocab, (M, 4), rewritten, min_share=0.6)
    assert used.words == "drug worked . it was cheap .".split()
    copied = compose(ex, [1, 2], vocab, (M, 4), rewritten, min_share=0.61)
    assert copied.words == "the drug worked well . it was cheap .".split()
    att = copied.hypothesis.attn.flatten(1)
    assert [ex.words[c] for c in att.argmax(1).tolist()] == copied.words  # a copy points at its own cells


class _HalvingRewriter:
    """Rewrites a sentence as the first half of its words and its end: what a compressing rewriter does."""

    def __init__(self, example):
        self.example, self.calls = example, []

    def rewrite(self, sentences, options=None, *, progress=False):
        self.calls.append(len(sentences))
        return [_rewrite(self.example, " ".join(s[: max(1, (len(s) - 1) // 2)] + ["."]), len(s) + 1) for s in sentences]


def test_the_budget_holds_the_rewritten_words_and_the_room_is_filled_again():
    """A selector that picks every sentence it may: copied, three sentences fill a budget of 15;
    rewritten to about half, the room they leave is filled again from the next picks, and the
    summary stays within the budget."""
    sentences = [f"w{i} x{i} y{i} z{i} ." for i in range(10)]  # 10 sentences of 5 tokens
    doc = {"id": "p", "src": [s.split() + ["</s>"] for s in sentences], "tgt": [], "refs": []}
    vocab = Vocab.from_tokens(w for s in sentences for w in s.split())
    ex = encode_example(doc, vocab, chunks=0, chunk_len=8, max_tgt_len=10)
    model = tiny_model("select-rewrite", len(vocab), seed=3).eval()
    cfg = Config()
    options = DecodeOptions(max_len=15, min_len=15, batch_size=1)
    copied = decode_selected(model, vocab, [ex], cfg, options)[0]
    assert len(copied.words) == 15 and len(copied.sentences) == 3
    rewriter = _HalvingRewriter(ex)
    rewritten = decode_selected(model, vocab, [ex], cfg, options, rewriter=rewriter)[0]
    # the 3 picks rewritten: 3 x 3 words ("w0 x0 ."), room 6; filled from the next picks of at most
    # 6 / 0.5 = 12 words (2 sentences of 5), rewritten: 15 words, no room left
    assert rewriter.calls == [3, 2]
    assert len(rewritten.words) == 15 and len(rewritten.sentences) == 5
    assert rewritten.sentences[:3] == copied.sentences  # the first picks come first, then the refill
    assert rewritten.fine_fraction == 25 / 50  # 5 sentences of 5 words read at the word level, of 50


def test_trigrams_without_a_content_word_are_no_repeat():
    from c2fsum.decoding.selection import _trigrams

    assert _trigrams("of < dig > mice".split()) == {("dig", ">", "mice")}  # only the one with "mice"
    assert _trigrams("the dig site".split()) == {("the", "dig", "site")}  # "dig" as a word is one
    assert _trigrams(", and the".split()) == set()


def test_a_fragment_is_left_out_and_a_doubled_word_is_copied_once():
    doc = {
        "id": "q",
        "src": [
            s.split() + ["</s>"] for s in ["three things were measured :", "it works in in vitro .", "so it does ."]
        ],
        "tgt": [],
        "refs": [],
    }
    vocab = Vocab.from_tokens(w for s in doc["src"] for w in s)
    ex = encode_example(doc, vocab, chunks=0, chunk_len=4, max_tgt_len=10)
    d = compose(ex, [0, 1, 2], vocab, (ex.n_chunks(4), 4))
    assert d.words == "it works in vitro . so it does .".split() and d.sentences == [1, 2]
    att = d.hypothesis.attn.flatten(1)
    assert [ex.words[c] for c in att.argmax(1).tolist()] == d.words  # each copied word points at its cell


def test_a_rewrite_with_a_number_its_sentence_does_not_hold_gives_way_to_the_copy():
    doc = {"id": "n", "src": [["we", "used", "##", "mice", ".", "</s>"]], "tgt": [], "refs": []}
    vocab = Vocab.from_tokens(["we", "used", "##", "mice", "."])
    ex = encode_example(doc, vocab, chunks=0, chunk_len=8, max_tgt_len=10)
    shape = (ex.n_chunks(8), 8)
    assert compose(ex, [0], vocab, shape, [_rewrite(ex, "we used ## mice .", 6)]).words == "we used ## mice .".split()
    kept = compose(ex, [0], vocab, shape, [_rewrite(ex, "## mice .", 6)])
    assert kept.words == "## mice .".split()  # its number is the sentence's
    invented = compose(ex, [0], vocab, shape, [_rewrite(ex, "### mice .", 6)])
    assert invented.words == "we used ## mice .".split()  # ### is not in the sentence: the copy
