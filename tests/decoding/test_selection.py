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


def test_picked_sentences_copied_in_the_papers_order_with_one_hot_attention_and_the_pick_order_kept():
    vocab, ex = _example("sentences")  # rows: [we used old mice] [. </s> ...]: padding cells inside the grid
    M = ex.n_chunks(4)
    d = compose(ex, [2, 0], vocab, (M, 4))
    assert d.words == "we used old mice . it was quite cheap .".split()  # the paper's order (issue 47)
    assert d.sentences == [0, 2] and d.picked == [2, 0]
    assert d.written == [["we", "used", "old", "mice", "."], ["it", "was", "quite", "cheap", "."]]
    cells = sentence_cells(ex.words)
    att = d.hypothesis.attn.flatten(1)  # (T, M*N)
    assert att.shape == (10, M * 4) and torch.equal(att.sum(1), torch.ones(10))
    pointed = att.argmax(1).tolist()
    assert pointed == cells[0][:-1] + cells[2][:-1]  # each word points at its own cell (not at </s>)
    assert [ex.words[c] for c in pointed] == d.words
    # document-only words keep their own extended ids ("cheap", "mice")
    assert d.hypothesis.tokens[8] == len(vocab) + ex.oovs.index("cheap")
    assert d.fine_fraction == 10 / 16  # 10 of the paper's 16 words (sentence marks not counted)


def _rewrite(ex, text: str, n_cells: int) -> Decoded:
    """A rewriter's output of ``text`` over a sentence of ``n_cells`` cells (uniform attention)."""
    words = text.split()
    attn = torch.full((len(words) + 1, 1, n_cells), 1 / n_cells)
    return Decoded(example=ex, hypothesis=Hypothesis(tokens=[], score=0.0, norm_score=0.0, attn=attn), words=words)


def test_a_copy_that_mostly_repeats_the_summary_is_left_out():
    """3 of the 4 content trigrams of "the drug worked very well ." (the drug worked, drug worked very,
    worked very well; not: very well .) in the summary already: more than REDUNDANT = 0.5 of them."""
    vocab, ex = _example()
    M = ex.n_chunks(4)
    first, second = _rewrite(ex, "the drug worked very well .", 7), _rewrite(ex, "so the drug worked .", 7)
    twice = compose(ex, [1, 1], vocab, (M, 4), [first, second])
    assert twice.words == "the drug worked very well .".split() and twice.sentences == [1]
    assert twice.fine_fraction == 6 / 16  # the sentence read (6 of 16 words)


def test_a_rewrite_only_decides_which_safe_spans_go_the_words_are_the_papers():
    """Issue 47: a rewrite is used only as far as it leaves out an opener, a bracketed aside, a
    citation or a list marker; whatever else it changes (a word the paper does not say there, a lost
    verb) never reaches the summary."""
    sentence = "in this study , the drug worked very well -lrb- p < # -rrb- < cit > ."
    doc = {"id": "s", "src": [sentence.split() + ["</s>"]], "tgt": [], "refs": []}
    vocab = Vocab.from_tokens(sentence.split())
    ex = encode_document(doc, vocab, DataConfig(chunks=0, chunk_len=8, max_tgt_len=10))
    shape, n = (ex.n_chunks(8), 8), len(sentence_cells(ex.words)[0])
    short = compose(ex, [0], vocab, shape, [_rewrite(ex, "the drug worked very well .", n)])
    assert short.words == "the drug worked very well .".split()
    att = short.hypothesis.attn.flatten(1)
    assert [ex.words[c] for c in att.argmax(1).tolist()] == short.words  # each word on its own cell
    wrong = compose(ex, [0], vocab, shape, [_rewrite(ex, "the drug activated the receptor .", n)])
    assert wrong.words == "the drug worked very well .".split()  # its deletions, the paper's words
    kept = compose(ex, [0], vocab, shape, [_rewrite(ex, "in this study , the drug worked well -lrb- p < # -rrb- .", n)])
    # only the citation went
    assert kept.words == "in this study , the drug worked very well -lrb- p < # -rrb- .".split()


def test_the_faulty_rewrites_read_on_unseen_papers_never_reach_the_summary():
    """The rewrites issue 47 quotes (a lost subject, a false paraphrase, a garbled clause, a dropped
    qualifier), each against a source sentence as the paper words it: the summary is the source, or
    the source without safe spans, never a word or an order the source does not have."""
    cases = [
        (
            "the allergoid , through the production of cytokines involved in th # and treg response , "
            "is able to induce igg-blocking antibodies < cit > .",
            "the production of cytokines involved in th # and treg response , is able to induce the "
            "activation of igg-blocking antibodies .",
        ),
        (
            "we predict that male bed bugs are able to detect their pheromone , and nymphs would experience "
            "a higher rate of mating .",
            "we predict that male bed bugs are able to emit their pheromone , nymphs , would experience a "
            "higher rate of mating .",
        ),
        (
            "the molecular mechanisms remain to be elucidated .",
            "the molecular mechanisms remain to be elucidated to be to elucidated .",
        ),
        (
            "thirteen novel mature mirnas were also discovered -lrb- table # -rrb- .",
            "thirteen distinct mirnas were also discovered .",
        ),
        ("previously , we showed that x binds y .", "we showed that x binds y ."),
    ]
    for source, rewrite in cases:
        doc = {"id": "f", "src": [source.split() + ["</s>"]], "tgt": [], "refs": []}
        vocab = Vocab.from_tokens(source.split() + rewrite.split())
        ex = encode_document(doc, vocab, DataConfig(chunks=0, chunk_len=8, max_tgt_len=10))
        n = len(sentence_cells(ex.words)[0])
        out = compose(ex, [0], vocab, (ex.n_chunks(8), 8), [_rewrite(ex, rewrite, n)]).words
        src = source.split()
        it = iter(src)
        assert all(w in it for w in out), (source, out)  # a subsequence of the source
        assert {"activation", "emit", "distinct"}.isdisjoint(out)
        for must in ("allergoid", "detect", "novel", "previously", "elucidated"):
            assert must not in src or must in out, (must, out)  # its subject, verb and qualifiers stay
    assert out == "previously , we showed that x binds y .".split()  # "previously ," is no safe opener


def test_no_picks_make_an_empty_summary():
    vocab, ex = _example()
    d = compose(ex, [], vocab, (ex.n_chunks(4), 4))
    assert d.words == [] and d.hypothesis.attn.shape == (0, ex.n_chunks(4), 4) and d.fine_fraction == 0.0


def test_a_sentence_past_the_budget_is_left_out_and_the_next_may_still_fit():
    vocab, ex = _example()  # sentences of 5, 6 and 5 tokens
    M = ex.n_chunks(4)
    both = compose(ex, [0, 1, 2], vocab, (M, 4), summary_words=11)
    assert both.words == "we used old mice . the drug worked very well .".split()
    d = compose(ex, [0, 1, 2], vocab, (M, 4), summary_words=10)
    assert d.words == "we used old mice . it was quite cheap .".split() and d.sentences == [0, 2]


def test_a_shortened_sentence_below_the_share_is_not_used_the_sentence_is_copied():
    sentence = "here , the drug worked very well ."  # "here ," goes only in a rewrite (no connective)
    doc = {"id": "m", "src": [sentence.split() + ["</s>"]], "tgt": [], "refs": []}
    vocab = Vocab.from_tokens(sentence.split())
    ex = encode_document(doc, vocab, DataConfig(chunks=0, chunk_len=8, max_tgt_len=10))
    shape, n = (ex.n_chunks(8), 8), len(sentence_cells(ex.words)[0])
    rewritten = [_rewrite(ex, "the drug worked very well .", n)]  # 6 of the sentence's 8 tokens
    used = compose(ex, [0], vocab, shape, rewritten, min_share=0.75)  # 6 >= 0.75 x 8
    assert used.words == "the drug worked very well .".split()
    copied = compose(ex, [0], vocab, shape, rewritten, min_share=0.76)  # 6 < 6.08
    assert copied.words == sentence.split()


class _CitationRewriter:
    """Leaves out each sentence's citation: the safe kind of rewrite (issue 47)."""

    def __init__(self, example):
        self.example, self.calls = example, []

    def rewrite(self, sentences, options=None, *, progress=False):
        self.calls.append(len(sentences))
        return [
            _rewrite(self.example, " ".join(w for w in s if w not in ("<", "cit", ">")), len(s) + 1) for s in sentences
        ]


def test_the_budget_holds_the_shortened_words_and_the_room_is_filled_again():
    """A selector that picks every sentence it may: copied, three sentences of 12 tokens fit a budget
    of 40; without their citations (9 tokens each) the room they leave (13) is filled again from the
    next picks, and the summary stays within the budget."""
    sentences = [" ".join(f"{c}{i}" for c in "abcdefgh") + " < cit > ." for i in range(10)]  # 10 sentences of 12 tokens
    doc = {"id": "p", "src": [s.split() + ["</s>"] for s in sentences], "tgt": [], "refs": []}
    vocab = Vocab.from_tokens(w for s in sentences for w in s.split())
    ex = encode_document(doc, vocab, DataConfig(chunks=0, chunk_len=8, max_tgt_len=10))
    model = tiny_model("select-rewrite", len(vocab), seed=3).eval()
    cfg = Config()
    options = DecodeOptions(max_len=40, min_len=40, batch_size=1)
    copied = decode_selected(model, vocab, [ex], cfg, options)[0]
    assert len(copied.words) == 36 and len(copied.sentences) == 3
    rewriter = _CitationRewriter(ex)
    shortened = decode_selected(model, vocab, [ex], cfg, options, rewriter=rewriter)[0]
    # the 3 picks shortened: 3 x 9 tokens, room 13; filled from the next pick that fits it (12),
    # shortened: 36 tokens, room 4; no next pick of 12 fits 4: done
    assert rewriter.calls == [3, 1]
    assert len(shortened.words) == 36 and len(shortened.sentences) == 4
    assert shortened.picked[:3] == copied.picked  # the first picks come first, then the refill
    assert shortened.sentences == sorted(shortened.picked)  # written in the paper's order
    assert shortened.fine_fraction == 48 / 120  # 4 sentences of 12 tokens read at the word level, of 120


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


def test_the_sentence_rules_on_the_sentences_read_on_unseen_papers():
    """Issue 47's cases: a sentence that only points at a file or figure, the authors' earlier work
    given as a finding, a sentence opening on what the one before said."""
    from c2fsum.decoding.selection import sentence_rule

    cases = {
        "complete results are available in additional file < dig > .": "points",
        "the primers used are listed in table < dig > .": "points",
        "previously we showed that the allergoid induces igg-blocking antibodies .": "earlier",
        "in our previous study , we identified < dig > loci .": "earlier",
        "we have previously reported that x binds y .": "earlier",
        "interestingly , our recent study has shown a role of mtmr < dig > in muscle .": "earlier",  # val 20245
        "for the most part , these model organism studies relied on backcrossing .": "refers",  # val 19845
        "these two methods consistently outperform the others .": "refers",
        "taken together , these results suggest a role for x .": "refers",
        "rather , the exact conservation of the introns argues for independent evolution .": "refers",
        "this study shows that x binds y .": "",
        "x increased threefold -lrb- figure < dig > -rrb- .": "",  # a finding that names its figure
        "we identified < dig > novel mature mirnas .": "",
        # what SumPubMed broke (sumpubmed-519, -275 of the test split): an address removed, a period lost
        "all statistical analysises have been performed with the r statistical package freely available on .": "broken",
        "oscillations were observed in the strain by < dig > we have subsequently used the resources .": "broken",
        "hares in germany between < dig > and < dig > several typing markers were selected .": "broken",  # -251
        "oscillations occur in strain by < dig > the nadh-mediated pattern is similar to that of x .": "broken",
        "the cells were grown at < dig > degrees for two days .": "",
        "the mean distance was < dig > for the fpin and < dig > for the epin .": "",
    }
    assert {text: sentence_rule(text.split()) for text in cases} == cases


def test_pick_rules_block_point_and_earlier_sentences_and_give_a_reference_back_its_antecedent():
    from c2fsum.decoding.selection import pick_rules

    sentences = [
        "these data were noisy .",  # refers back, but opens the paper: blocked
        "we measured x in mice .",
        "these results show that x matters .",  # comes with sentence 1
        "details are given in additional file < dig > .",  # points elsewhere
        "we previously showed that y binds x .",  # earlier work
        "lastly , there remains the rav family .",  # refers back: comes with sentence 4 (blocked, so never)
        "based on this knowledge , we mapped x .",  # refers back to a sentence that refers back: blocked
    ]
    doc = {"id": "r", "src": [s.split() + ["</s>"] for s in sentences], "tgt": [], "refs": []}
    vocab = Vocab.from_tokens(w for s in doc["src"] for w in s)
    ex = encode_document(doc, vocab, DataConfig(chunks=0, chunk_len=8, max_tgt_len=10))
    rules = pick_rules([ex], 7)
    assert rules.blocked[0].tolist() == [False, True, False, False, True, True, False, True]  # STOP, sentences 0-6
    assert rules.antecedent[0].tolist() == [-1, -1, -1, 2, -1, -1, 5, -1]  # candidate 3 (sentence 2) brings 2


def test_a_reference_back_that_repeats_its_antecedent_is_never_picked():
    """Test paper 3629: "accordingly , ..." refers back to a sentence it shares 7 of the other's 11
    content words with (0.64 > 0.6): picked with it, the summary would say one thing twice."""
    from c2fsum.decoding.selection import pick_rules

    sentences = [
        "there is an immense possibility to identify and functionally characterize new marine actinobacteria"
        " to identify novel bioactive compounds .",
        "accordingly , the present study at port blair bay aimed to isolate and functionally characterize the"
        " marine actinobacteria of industrial interest with the objective of discovering novel bioactive compounds .",
        "we sampled sediments .",
        "these sediments held many strains .",  # refers back, shares little: comes with sentence 2
    ]
    doc = {"id": "o", "src": [s.split() + ["</s>"] for s in sentences], "tgt": [], "refs": []}
    vocab = Vocab.from_tokens(w for s in doc["src"] for w in s)
    ex = encode_document(doc, vocab, DataConfig(chunks=0, chunk_len=8, max_tgt_len=10))
    rules = pick_rules([ex], 4)
    assert rules.blocked[0].tolist() == [False, False, True, False, False]
    assert rules.antecedent[0].tolist() == [-1, -1, -1, -1, 3]


def test_the_summarys_first_sentence_opens_on_no_connective_the_others_keep_theirs():
    """A summary's first sentence follows nothing: "moreover , ..." there reads as a fault, so the
    connective and its comma go (words and their cells alike); a later sentence keeps its own."""
    doc = {
        "id": "c",
        "src": [s.split() + ["</s>"] for s in ["moreover , the drug worked well .", "however , it was cheap ."]],
        "tgt": [],
        "refs": [],
    }
    vocab = Vocab.from_tokens(w for s in doc["src"] for w in s)
    ex = encode_document(doc, vocab, DataConfig(chunks=0, chunk_len=4, max_tgt_len=10))
    d = compose(ex, [1, 0], vocab, (ex.n_chunks(4), 4))
    assert d.words == "the drug worked well . however , it was cheap .".split()
    assert d.written[0] == "the drug worked well .".split()
    pointed = d.hypothesis.attn.flatten(1).argmax(1).tolist()
    assert [ex.words[c] for c in pointed] == d.words  # each word still on its own cell
    alone = compose(ex, [1], vocab, (ex.n_chunks(4), 4))
    assert alone.words == "it was cheap .".split()
