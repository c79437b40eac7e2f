"""Beam search over a selector's picks (decoding/pick_beam.py): one kept is the greedy picking,
more find selections at least as probable, and the overlap rule's word sets copied per selection
keep each copy to itself."""

import pytest
import torch

from c2fsum.config import DataConfig
from c2fsum.data.batching import collate, encode_document
from c2fsum.data.vocab import Vocab
from c2fsum.decoding.pick_beam import beam_pick
from c2fsum.decoding.selection import pick_rules
from c2fsum.models.selector_parts import STOP, WordSets
from tiny import tiny_model

PAPERS = [
    ["alpha beta gamma .", "delta eps .", "zeta eta theta iota .", "kappa .", "alpha beta delta ."],
    ["mu nu .", "xi omicron pi .", "rho sigma tau .", "mu nu rho ."],
    ["phi chi .", "psi omega .", "alpha mu .", "beta nu .", "gamma xi .", "phi psi ."],
]


def _setup(seed: int):
    docs = [{"id": str(i), "src": [s.split() + ["</s>"] for s in p], "tgt": ["a"]} for i, p in enumerate(PAPERS)]
    vocab = Vocab.from_tokens(w for d in docs for s in d["src"] for w in s)
    exs = [encode_document(d, vocab, DataConfig(chunks=0, chunk_len=8, max_tgt_len=10)) for d in docs]
    batch = collate(exs, chunks=0, chunk_len=8)
    model = tiny_model("select-rewrite", len(vocab), seed=seed)
    memory = model.read(model.sentences(batch.src, batch.src_mask), exs)  # eval mode: with the overlap rule's sets
    return model, memory, exs


def _summed_logprob(model, memory, picks) -> torch.Tensor:
    """Teacher-forced log p of each paper's picks and its STOP, summed ``(B,)``."""
    T = max(len(p) for p in picks) + 1
    labels = torch.full((len(picks), T), -1)
    for b, p in enumerate(picks):
        labels[b, : len(p) + 1] = torch.tensor([j + 1 for j in p] + [STOP])
    lp = model.pick_logprobs(memory, labels)
    return lp.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1).masked_fill(labels < 0, 0.0).sum(1)


def test_one_kept_is_the_greedy_picking_under_the_rules_and_the_budget():
    for seed in range(4):
        model, memory, exs = _setup(seed)
        rules = pick_rules(exs, memory.real.size(1) - 1)
        for words, least in ((0, 0), (6, 0), (8, 8)):
            greedy = model.greedy(memory, summary_words=words, min_words=least, rules=rules).picks
            assert beam_pick(model, memory, k=1, rules=rules, summary_words=words, min_words=least) == greedy


def test_a_wider_beam_finds_selections_at_least_as_probable_as_greedy():
    """Without rules or budget, teacher forcing gives each selection's log-probability (tested in
    tests/models/test_select_rewrite.py): the beam's best is never below the greedy selection's,
    and above it for some paper."""
    better = 0
    for seed in range(6):
        model, memory, _ = _setup(seed)
        greedy = model.greedy(memory).picks
        wide = beam_pick(model, memory, k=6)
        g, w = _summed_logprob(model, memory, greedy), _summed_logprob(model, memory, wide)
        assert (w >= g - 1e-5).all(), (seed, g, w)
        better += int((w > g + 1e-5).sum())
        assert all(len(set(p)) == len(p) for p in wide)
    assert better > 0


def test_word_sets_copied_per_selection_keep_each_copy_to_itself():
    papers = [[{"a", "b"}, {"b", "c"}, {"d"}], [{"x"}, {"x", "y"}]]
    sets = WordSets.of(papers, 3)
    rows = torch.tensor([0, 0, 1, 0])
    copies = sets.rows(rows)
    j = torch.tensor([1, 3, 2, 2])  # each copy's own pick: candidates 1, 3, 2, 2 (sentence j - 1)
    out = copies.shared(j)
    for n, b in enumerate(rows.tolist()):
        alone = sets.shared(torch.tensor([j[n] if i == b else 0 for i in range(2)]))[b]
        assert torch.equal(out[n], alone)
    assert out[0].tolist() == [0.0, 1.0, 0.5, 0.0] and out[1].tolist() == [0.0, 0.0, 0.0, 1.0]


def test_the_overlap_rule_counts_a_sentence_as_a_summary_may_write_it_without_its_connective():
    """After test paper 10600: "thus , amino acid sequence composition is correlated with
    temperature ." shares 4 of its 7 content words with the longer sentence (0.57, under the cap),
    but written first, without "thus ,", 4 of 6 (0.67): the rule counts the words a summary may write."""
    paper = [
        "thus , amino acid sequence composition is correlated with temperature .".split(),
        "we show the erk measure of amino acid composition is a strong correlate of growth temperature .".split(),
    ]
    content, _ = WordSets.kinds([paper], 2, "cpu")
    shares = content.shared(torch.tensor([2]))[0]  # each candidate against sentence 1 (candidate 2)
    assert shares[1] == pytest.approx(4 / 6) and shares[1] > 0.6
