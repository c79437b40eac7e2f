"""Decoding sentence-level coarse-to-fine (decoding/selection.py): the summary a selector's picks make,
copied or rewritten, its attention on the paper's cells and its fine fraction."""

import torch

from c2fsum.config import Config, DataConfig
from c2fsum.data.batching import encode_document
from c2fsum.data.vocab import Vocab
from c2fsum.decoding.documents import Decoded
from c2fsum.decoding.hypothesis import Hypothesis
from c2fsum.decoding.options import DecodeOptions
from c2fsum.decoding.selection import compose, decode_selected, sentence_cells
from tiny import tiny_model

DOC = {
    "id": "p",
    "src": [
        s.split() + ["</s>"] for s in ["we used old mice .", "the drug worked very well .", "it was quite cheap ."]
    ],
    "tgt": [],
    "refs": [],
}


def _example(chunking="fixed"):
    words = [
        "we",
        "used",
        "old",
        "the",
        "drug",
        "worked",
        "very",
        "well",
        "it",
        "was",
        "quite",
        ".",
        "indeed",
        "helped",
    ]
    vocab = Vocab.from_tokens(words)  # no "mice", "cheap"
    return vocab, encode_document(DOC, vocab, DataConfig(chunks=0, chunk_len=4, max_tgt_len=10, chunking=chunking))


def test_sentence_cells_skip_padding_and_end_after_each_mark():
    assert sentence_cells("a b </s> <pad> c </s> d".split()) == [[0, 1, 2], [4, 5], [6]]


def test_picked_sentences_copied_in_pick_order_with_one_hot_attention():
    vocab, ex = _example("sentences")  # rows: [we used old mice] [. </s> ...]: padding cells inside the grid
    M = ex.n_chunks(4)
    d = compose(ex, [2, 0], vocab, (M, 4))
    assert d.words == "it was quite cheap . we used old mice .".split()
    assert d.sentences == [2, 0]
    cells = sentence_cells(ex.words)
    att = d.hypothesis.attn.flatten(1)  # (T, M*N)
    assert att.shape == (10, M * 4) and torch.equal(att.sum(1), torch.ones(10))
    pointed = att.argmax(1).tolist()
    assert pointed == cells[2][:-1] + cells[0][:-1]  # each word points at its own cell (not at </s>)
    assert [ex.words[c] for c in pointed] == d.words
    # document-only words keep their own extended ids ("cheap", "mice")
    assert d.hypothesis.tokens[3] == len(vocab) + ex.oovs.index("cheap")
    assert d.fine_fraction == 10 / 16  # 10 of the paper's 16 words (sentence marks not counted)


def _rewrite(ex, text: str, n_cells: int) -> Decoded:
    """A rewriter's output of ``text`` over a sentence of ``n_cells`` cells (uniform attention)."""
    words = text.split()
    attn = torch.full((len(words) + 1, 1, n_cells), 1 / n_cells)
    return Decoded(example=ex, hypothesis=Hypothesis(tokens=[], score=0.0, norm_score=0.0, attn=attn), words=words)


def test_a_rewrite_that_repeats_a_trigram_of_the_summary_gives_way_to_the_copy_or_is_left_out():
    vocab, ex = _example()
    M = ex.n_chunks(4)
    cells = sentence_cells(ex.words)
    assert len(cells[1]) == 7  # "the drug worked very well . </s>"
    rewritten = [_rewrite(ex, "the drug worked well .", 7), _rewrite(ex, "so the drug worked .", 6)]
    d = compose(ex, [1, 0], vocab, (M, 4), rewritten)
    assert d.words == "the drug worked well . we used old mice .".split()  # the 2nd rewrite repeats "the drug worked"
    att = d.hypothesis.attn.flatten(1)
    assert torch.allclose(att[:5, cells[1]].sum(1), torch.ones(5))  # on the rewritten sentence's cells only
    assert att[5:].argmax(1).tolist() == cells[0][:-1]  # the copy points at its own cells
    assert d.sentences == [1, 0] and d.written == ["the drug worked well .".split(), "we used old mice .".split()]
    # a copy that mostly repeats the summary is left out: 3 of the 4 content trigrams of "the drug
    # worked very well ." (the drug worked, drug worked very, worked very well; not: very well .) are in
    # the summary already, more than REDUNDANT = 0.5 of them
    first, second = _rewrite(ex, "the drug worked very well indeed .", 7), _rewrite(ex, "so the drug worked .", 7)
    twice = compose(ex, [1, 1], vocab, (M, 4), [first, second])
    assert twice.words == "the drug worked very well indeed .".split() and twice.sentences == [1]
    assert twice.fine_fraction == 6 / 16  # the sentence read (6 of 16 words)


def test_a_copy_that_shares_one_phrase_with_the_summary_is_kept():
    vocab, ex = _example()
    M = ex.n_chunks(4)
    # "we used old mice ." copied after a rewrite that holds "old mice .": 1 of its 3 content trigrams
    # (we used old, used old mice, old mice .); the 2nd rewrite repeats "old mice ." and gives way to it
    first, second = _rewrite(ex, "the drug helped old mice .", 7), _rewrite(ex, "we saw old mice .", 6)
    d = compose(ex, [1, 0], vocab, (M, 4), [first, second])
    assert d.words == "the drug helped old mice . we used old mice .".split() and d.sentences == [1, 0]


def test_no_picks_make_an_empty_summary():
    vocab, ex = _example()
    d = compose(ex, [], vocab, (ex.n_chunks(4), 4))
    assert d.words == [] and d.hypothesis.attn.shape == (0, ex.n_chunks(4), 4) and d.fine_fraction == 0.0


def test_a_sentence_past_the_budget_is_left_out_and_the_next_may_still_fit():
    vocab, ex = _example()  # sentences of 5, 6 and 5 tokens
    M = ex.n_chunks(4)
    both = compose(ex, [0, 1, 2], vocab, (M, 4), budget=11)
    assert both.words == "we used old mice . the drug worked very well .".split()
    d = compose(ex, [0, 1, 2], vocab, (M, 4), budget=10)
    assert d.words == "we used old mice . it was quite cheap .".split() and d.sentences == [0, 2]


def test_a_rewrite_shorter_than_the_share_is_not_used_the_sentence_is_copied():
    vocab, ex = _example()
    M = ex.n_chunks(4)
    rewritten = [_rewrite(ex, "drug worked very well .", 7), None]  # 5 of the sentence's 6 tokens; none for the 2nd
    used = compose(ex, [1, 2], vocab, (M, 4), rewritten, min_share=0.83)  # 5 >= 0.83 x 6 = 4.98
    assert used.words == "drug worked very well . it was quite cheap .".split()
    copied = compose(ex, [1, 2], vocab, (M, 4), rewritten, min_share=0.84)  # 5 < 5.04
    assert copied.words == "the drug worked very well . it was quite cheap .".split()
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
    """A selector that picks every sentence it may: copied, three sentences fill a budget of 27;
    rewritten to about half, the room they leave is filled again from the next picks, and the
    summary stays within the budget."""
    sentences = [" ".join(f"{c}{i}" for c in "abcdefgh") + " ." for i in range(10)]  # 10 sentences of 9 tokens
    doc = {"id": "p", "src": [s.split() + ["</s>"] for s in sentences], "tgt": [], "refs": []}
    vocab = Vocab.from_tokens(w for s in sentences for w in s.split())
    ex = encode_document(doc, vocab, DataConfig(chunks=0, chunk_len=8, max_tgt_len=10))
    model = tiny_model("select-rewrite", len(vocab), seed=3).eval()
    cfg = Config()
    options = DecodeOptions(max_len=27, min_len=27, batch_size=1)
    copied = decode_selected(model, vocab, [ex], cfg, options)[0]
    assert len(copied.words) == 27 and len(copied.sentences) == 3
    rewriter = _HalvingRewriter(ex)
    rewritten = decode_selected(model, vocab, [ex], cfg, options, rewriter=rewriter)[0]
    # the 3 picks rewritten: 3 x 5 tokens ("a0 b0 c0 d0 ."), room 12; filled from the next picks that
    # fit it (1 sentence of 9), rewritten: 20 tokens, room 7; no next pick of 9 fits 7: done
    assert rewriter.calls == [3, 1]
    assert len(rewritten.words) == 20 and len(rewritten.sentences) == 4
    assert rewritten.sentences[:3] == copied.sentences  # the first picks come first, then the refill
    assert rewritten.fine_fraction == 36 / 90  # 4 sentences of 9 tokens read at the word level, of 90


def test_trigrams_without_a_content_word_are_no_repeat():
    from c2fsum.decoding.selection import _trigrams

    assert _trigrams("of < dig > mice".split()) == {("dig", ">", "mice")}  # only the one with "mice"
    assert _trigrams("the dig site".split()) == {("the", "dig", "site")}  # "dig" as a word is one
    assert _trigrams(", and the".split()) == set()


def test_a_fragment_is_left_out_and_a_doubled_word_is_copied_once():
    """Left out: a sentence without a sentence end, and one of fewer than 4 words (what is left of
    "e. coli" split after "e.", sumpubmed-26250's "Were. Coli. Temp.")."""
    sentences = [
        "three things were measured :",
        "it works in in vitro .",
        "coli .",
        "so it does .",
        "so it does work .",
    ]
    doc = {"id": "q", "src": [s.split() + ["</s>"] for s in sentences], "tgt": [], "refs": []}
    vocab = Vocab.from_tokens(w for s in doc["src"] for w in s)
    ex = encode_document(doc, vocab, DataConfig(chunks=0, chunk_len=4, max_tgt_len=10))
    d = compose(ex, [0, 1, 2, 3, 4], vocab, (ex.n_chunks(4), 4))
    assert d.words == "it works in vitro . so it does work .".split() and d.sentences == [1, 4]
    att = d.hypothesis.attn.flatten(1)
    assert [ex.words[c] for c in att.argmax(1).tolist()] == d.words  # each copied word points at its cell


def test_a_rewrite_with_a_number_its_sentence_does_not_hold_gives_way_to_the_copy():
    sentence = "we used ## old mice here ."
    doc = {"id": "n", "src": [sentence.split() + ["</s>"]], "tgt": [], "refs": []}
    vocab = Vocab.from_tokens(sentence.split())
    ex = encode_document(doc, vocab, DataConfig(chunks=0, chunk_len=8, max_tgt_len=10))
    shape = (ex.n_chunks(8), 8)
    kept = compose(ex, [0], vocab, shape, [_rewrite(ex, "we used ## old mice .", 8)])
    assert kept.words == "we used ## old mice .".split()  # its number is the sentence's
    invented = compose(ex, [0], vocab, shape, [_rewrite(ex, "we used ### old mice .", 8)])
    assert invented.words == sentence.split()  # ### is not in the sentence: the copy


def test_a_rewrite_is_cut_after_its_sentence_and_one_with_unk_gives_way_to_the_copy():
    """What sumpubmed-26250's rewriter wrote for "equine eyes were obtained from several
    slaughterhouses .": the sentence, then "<unk> . coli ." (rendered "Were. Coli.")."""
    sentence = "equine eyes were obtained from several slaughterhouses ."
    doc = {"id": "u", "src": [sentence.split() + ["</s>"], "so it does work . it does .".split() + ["</s>"]]}
    doc |= {"tgt": [], "refs": []}
    vocab = Vocab.from_tokens(w for s in doc["src"] for w in s)
    ex = encode_document(doc, vocab, DataConfig(chunks=0, chunk_len=8, max_tgt_len=10))
    shape = (ex.n_chunks(8), 8)
    on = compose(ex, [0], vocab, shape, [_rewrite(ex, "eyes were obtained from slaughterhouses . <unk> . coli .", 9)])
    assert on.words == "eyes were obtained from slaughterhouses .".split()
    unk = compose(ex, [0], vocab, shape, [_rewrite(ex, "eyes were obtained from <unk> .", 9)])
    assert unk.words == sentence.split()  # the copy
    # a sentence that holds two sentence ends keeps two in its rewrite
    two = compose(ex, [1], vocab, shape, [_rewrite(ex, "so it does work . it does . and more .", 9)])
    assert two.words == "so it does work . it does .".split()


def test_a_rewrite_that_says_a_phrase_more_often_than_its_sentence_gives_way_to_the_copy():
    """What the rewriter wrote on validation: "scn field populations are genetically variable , but not
    genetically variable ." for a sentence that says it once; a sentence that repeats itself is copied."""
    sentence = "scn field populations are genetically variable in the region ."
    twice = "the tool worked and the tool was very cheap ."
    doc = {"id": "r", "src": [sentence.split() + ["</s>"], twice.split() + ["</s>"]], "tgt": [], "refs": []}
    vocab = Vocab.from_tokens(w for s in doc["src"] for w in s)
    ex = encode_document(doc, vocab, DataConfig(chunks=0, chunk_len=8, max_tgt_len=10))
    shape = (ex.n_chunks(8), 8)
    n0, n1 = (len(c) for c in sentence_cells(ex.words))
    kept = compose(ex, [0], vocab, shape, [_rewrite(ex, "scn field populations are genetically variable .", n0)])
    assert kept.words == "scn field populations are genetically variable .".split()
    doubled = "scn field populations are genetically variable , but not genetically variable ."
    assert compose(ex, [0], vocab, shape, [_rewrite(ex, doubled, n0)]).words == sentence.split()  # the copy
    # "variable" and "variably" are one stem: said twice where the sentence says it once
    stems = "populations are genetically variable and genetically variably distributed ."
    assert compose(ex, [0], vocab, shape, [_rewrite(ex, stems, n0)]).words == sentence.split()
    # "the tool" twice in a sentence that has it twice: the rewrite may keep both
    same = "the tool worked and the tool was good ."
    assert compose(ex, [1], vocab, shape, [_rewrite(ex, same, n1)]).words == same.split()
