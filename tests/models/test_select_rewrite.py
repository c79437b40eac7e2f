"""The sentence selector of sentence-level coarse-to-fine (models/select_rewrite.py): its labels, its
rewards, its sentence grid, its pointer decoder, and that a tiny one learns to pick."""

import math

import pytest
import torch

from c2fsum.config import DataConfig
from c2fsum.data.batching import collate, encode_document
from c2fsum.data.sentences import document_sentences, selection_labels, split_sentences
from c2fsum.data.vocab import Vocab
from c2fsum.losses.selection import rouge1_gains, step_rewards
from c2fsum.models.base import Selector, Summarizer
from c2fsum.models.select_rewrite import SentenceSelector
from c2fsum.models.selector_parts import STOP, sentence_grid
from c2fsum.training.objective import nll_units
from tiny import tiny_model


# -- labels ------------------------------------------------------------------------------------
def test_labels_are_the_aligned_sentences_in_abstract_order():
    doc = [
        "we studied mice .".split(),
        "the drug lowered blood pressure in treated mice .".split(),
        "funding came from a grant .".split(),
        "side effects were rare .".split(),
    ]
    abstract = [
        "side effects were rare .".split(),  # doc 3, recall 1
        "the drug lowered blood pressure .".split(),  # doc 1, recall 1
    ]
    assert selection_labels(doc, abstract) == [3, 1]


def test_a_sentence_is_a_label_once_and_a_weak_match_is_none():
    doc = ["a b c d .".split(), "a b x y .".split()]
    # both abstract sentences match doc 0 best; the second takes the best sentence left (doc 1, recall 2/4)
    abstract = ["a b c d".split(), "a b c z".split(), "q r s t".split()]  # the third matches nothing
    assert selection_labels(doc, abstract) == [0, 1]
    # recall 2/4 = 0.5 is below a threshold of 0.6: no label for it
    assert selection_labels(doc, abstract, min_recall=0.6) == [0]
    # a match of 1 word in 5 (recall 0.2) is under the default threshold
    assert selection_labels(["a k .".split()], ["a l m n o".split()]) == []


def test_sentences_cut_alike_from_words_and_from_ids():
    words = "a b </s> <pad> <pad> c </s> d e".split()
    assert split_sentences(words, "</s>", {"<pad>"}) == [["a", "b", "</s>"], ["c", "</s>"], ["d", "e"]]
    assert split_sentences([5, 6, 3, 7, 3], 3) == [[5, 6, 3], [7, 3]]


# -- rewards -----------------------------------------------------------------------------------
def test_rouge1_gains_by_hand():
    sentences = [["a", "b", "."], ["c"], ["a"], ["e", "f"]]
    reference = ["a", "b", "c", "d", "."]  # 4 content words
    # pick 0: a, b (+2/4); pick 1: c (+1/4); pick 2: a again, clipped (+0); stop: F1 of 3 matched of
    # 4 reference and 4 picked words = 0.75
    assert rouge1_gains(sentences, [0, 1, 2], reference) == [0.5, 0.25, 0.0, 0.75]
    # nothing picked: only the stop, F1 0
    assert rouge1_gains(sentences, [], reference) == [0.0]
    # pick 3 matches nothing: its gain is 0 and the stop pays precision 0
    assert rouge1_gains(sentences, [3], reference) == [0.0, 0.0]


# -- the sentence grid -------------------------------------------------------------------------
def _vocab(docs: list[dict]) -> Vocab:
    return Vocab.from_tokens(w for d in docs for s in d["src"] for w in s)


def _doc(i: int, sentences: list[str], abstract: list[str]) -> dict:
    src = [s.split() + ["</s>"] for s in sentences]
    refs = [s.split() for s in abstract]
    return {"id": str(i), "src": src, "refs": refs, "tgt": [w for r in refs for w in r]}


DOCS = [
    _doc(
        0,
        ["alpha beta gamma .", "delta eps .", "zeta eta theta iota .", "kappa ."],
        ["zeta eta theta iota .", "alpha beta ."],
    ),
    _doc(1, ["mu nu .", "xi omicron pi .", "rho sigma tau ."], ["rho sigma tau .", "xi omicron ."]),
    _doc(2, ["phi chi .", "psi omega .", "alpha mu .", "beta nu .", "gamma xi ."], ["gamma xi .", "phi chi ."]),
    _doc(3, ["tau upsilon .", "eta theta .", "kappa lambda mu ."], ["eta theta ."]),
]


@pytest.mark.parametrize("chunking", ["fixed", "sentences"])
def test_the_sentence_grid_holds_the_sentences_the_labels_count(chunking):
    """Two paths that must agree: the sentences the model cuts from the grid's ids, and those the
    labels are aligned on, cut from the example's words."""
    vocab = _vocab(DOCS)
    exs = [
        encode_document(d, vocab, DataConfig(chunks=0, chunk_len=6, max_tgt_len=50, chunking=chunking)) for d in DOCS
    ]
    batch = collate(exs, chunks=0, chunk_len=6)
    sents = sentence_grid(batch.src, batch.src_mask, eos_id=vocab.eos_id, bos_id=vocab.bos_id)
    assert sents.ids.shape[:2] == (4, 5)  # 4 papers, 5 sentences at most
    for b, ex in enumerate(exs):
        words = document_sentences(ex)
        cut = [vocab.decode(sents.ids[b, j][sents.mask[b, j]].tolist()) for j in range(len(words))]
        assert cut == words
        assert sents.words[b, : len(words)].tolist() == [len(s) - 1 for s in words]  # </s> not counted
        assert not sents.real[b, len(words) :].any()


# -- the pointer decoder -----------------------------------------------------------------------
def selection_labels_tensor(sel) -> torch.Tensor:
    """``(B, T)`` a selection as teacher forcing takes it: its picks (sentence j as j + 1), STOP, then -1."""
    labels = torch.full((len(sel.picks), sel.logprob.size(1)), -1)
    for b, picks in enumerate(sel.picks):
        row = [j + 1 for j in picks] + [STOP]
        labels[b, : len(row)] = torch.tensor(row)
    return labels


def _batch():
    vocab = _vocab(DOCS)
    exs = [encode_document(d, vocab, DataConfig(chunks=0, chunk_len=8, max_tgt_len=50)) for d in DOCS]
    return vocab, exs, collate(exs, chunks=0, chunk_len=8)


def test_labels_of_the_batch_end_in_stop_and_pad_with_minus_one():
    vocab, exs, batch = _batch()
    model = tiny_model("select-rewrite", len(vocab))
    labels = model.label_tensor(exs)
    assert labels.tolist() == [[3, 1, STOP], [3, 2, STOP], [5, 1, STOP], [2, STOP, -1]]


def test_teacher_forcing_masks_padding_and_what_was_picked_before():
    vocab, exs, batch = _batch()
    model = tiny_model("select-rewrite", len(vocab))
    memory = model.read(model.sentences(batch.src, batch.src_mask))
    labels = model.label_tensor(exs)
    lp = model.pick_logprobs(memory, labels)  # (B, T, S+1)
    assert lp.shape == (4, 3, 6)
    assert torch.allclose(lp.exp().sum(-1), torch.ones(4, 3), atol=1e-5)
    assert lp[1, :, 4:].eq(-math.inf).all()  # paper 1 has 3 sentences: candidates 4, 5 are padding
    assert lp[0, 1, 3] == -math.inf and lp[0, 2, 3] == -math.inf and lp[0, 2, 1] == -math.inf  # picked before
    assert lp[0, 0, 3] > -math.inf and lp[:, :, STOP].gt(-math.inf).all()


def test_picking_step_by_step_gives_the_teacher_forced_probabilities():
    """Two paths that must agree: the greedy loop (one step at a time) and teacher forcing on its picks."""
    vocab, exs, batch = _batch()
    model = tiny_model("select-rewrite", len(vocab), seed=3)
    memory = model.read(model.sentences(batch.src, batch.src_mask))
    sel = model.greedy(memory)
    labels = selection_labels_tensor(sel)
    lp = model.pick_logprobs(memory, labels)
    forced = lp.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1).masked_fill(labels < 0, 0.0)
    assert torch.allclose(forced, sel.logprob, atol=1e-5)
    assert all(len(set(p)) == len(p) for p in sel.picks)


def test_the_word_budget_and_the_minimum_bound_the_picks():
    vocab, exs, batch = _batch()
    model = tiny_model("select-rewrite", len(vocab), seed=1)
    sents = model.sentences(batch.src, batch.src_mask)
    memory = model.read(sents)
    for budget in (1, 3, 5, 8):
        sel = model.pick(memory, summary_words=budget, sample=True)
        for b, picks in enumerate(sel.picks):
            assert sum(int(sents.words[b, j]) for j in picks) <= budget
    full = model.pick(memory, min_words=100)  # STOP only once nothing is left: every sentence picked
    assert [sorted(p) for p in full.picks] == [list(range(4)), list(range(3)), list(range(5)), list(range(3))]
    assert full.stopped == [False] * 4


def test_every_parameter_but_the_fixed_ones_gets_a_gradient():
    vocab, exs, batch = _batch()
    model = tiny_model("select-rewrite", len(vocab), pos_dim=4).train()
    loss, nll, n, rewards = model.selection_loss(batch.src, batch.src_mask, exs, rl_weight=0.5)
    assert n == 11 and nll > 0
    # the mean returns of the sampled and the greedy selections: sums of ROUGE-1 recall gains (at
    # most 1 together) and a stop reward (an F1, at most 1), discounted: each in [0, 2]
    assert rewards is not None and all(0.0 <= r <= 2.0 for r in rewards)
    assert model.selection_loss(batch.src, batch.src_mask, exs).rewards is None  # labels only: no returns
    loss.backward()
    missing = [k for k, p in model.named_parameters() if p.requires_grad and (p.grad is None or not p.grad.abs().sum())]
    assert missing == []


def test_a_tiny_selector_learns_to_pick_the_labels():
    vocab, exs, batch = _batch()
    torch.manual_seed(0)
    model = tiny_model("select-rewrite", len(vocab), emb_dim=16, hidden=24, chunk_filters=16).train()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(150):
        opt.zero_grad()
        loss = model.selection_loss(batch.src, batch.src_mask, exs).loss
        loss.backward()
        opt.step()
    model.eval()
    sel = model.greedy(model.read(model.sentences(batch.src, batch.src_mask)))
    assert sel.picks == model.labels(exs)
    assert sel.stopped == [True] * 4


def test_a_train_row_counts_what_validation_counts():
    """The trainer's window divides the NLL by :func:`nll_units`: the labels and STOPs that
    validation's perplexity divides by (11 here), not the 4 abstracts' words, so the two rows of
    the learning curve are one quantity (they were 1.2 against 59 on pubmed-rewrite's plot)."""
    vocab, exs, batch = _batch()
    model = tiny_model("select-rewrite", len(vocab))
    _, n = model.selection_nll(batch.src, batch.src_mask, exs)
    assert nll_units(model, exs) == n == 11
    assert sum(len(ex.tgt) + 1 for ex in exs) != n  # what the window counted before


def test_the_selector_is_its_own_kind_of_model_and_writes_no_words():
    model = tiny_model("select-rewrite", 30)
    assert isinstance(model, Selector) and not isinstance(model, Summarizer)
    assert not model.capabilities.copies and not hasattr(model, "step")
    with pytest.raises(NotImplementedError):
        model(torch.zeros(1, 1, 2, dtype=torch.long), torch.ones(1, 1, 2, dtype=torch.bool), torch.zeros(1, 1))
    with pytest.raises(ValueError, match="model.hidden"):
        tiny_model("select-rewrite", 30, hidden=11)
    assert isinstance(model, SentenceSelector)


def _reinforced(model, batch, exs, kind: str, steps: int) -> tuple[float, float]:
    """The greedy selection's summed reward (``kind``, within 8 words) before and after ``steps``
    steps of self-critical REINFORCE alone (Adam, lr 0.02, seed 0)."""

    def greedy_reward() -> float:
        model.eval()
        sel = model.greedy(model.read(model.sentences(batch.src, batch.src_mask)), summary_words=8)
        model.train()
        return float(step_rewards(exs, sel.picks, sel.mask, kind).sum(1).mean())

    before = greedy_reward()
    torch.manual_seed(0)
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    for _ in range(steps):
        opt.zero_grad()
        loss, _, _ = model.reinforce(batch.src, batch.src_mask, exs, summary_words=8)
        loss.backward()
        opt.step()
    return before, greedy_reward()


def test_reinforce_alone_raises_the_reward_of_the_greedy_selection():
    """Self-critical REINFORCE with the ROUGE-1 rewards of rouge1_gains, no labels: the greedy
    selection's summed reward (recall gains + the stop's F1) must rise well above the untrained one."""
    vocab, exs, batch = _batch()
    model = tiny_model("select-rewrite", len(vocab), emb_dim=16, hidden=24, chunk_filters=16, seed=0).train()
    before, after = _reinforced(model, batch, exs, "gains", 60)
    assert after > before + 0.3


def test_the_greedy_baseline_cancels_when_the_draw_is_the_greedy_selection(monkeypatch):
    vocab, exs, batch = _batch()
    model = tiny_model("select-rewrite", len(vocab), seed=0)
    monkeypatch.setattr(torch, "multinomial", lambda p, n: p.argmax(-1, keepdim=True))  # every draw: the argmax
    loss, drawn, greedy = model.reinforce(batch.src, batch.src_mask, exs, summary_words=8)
    assert float(drawn) == pytest.approx(float(greedy)) and float(loss.detach()) == pytest.approx(0.0, abs=1e-6)
    plain, _, _ = model.reinforce(batch.src, batch.src_mask, exs, summary_words=8, baseline=False)
    assert float(plain.detach()) != pytest.approx(0.0, abs=1e-6)


def test_a_paper_reads_the_same_alone_and_in_a_batch_of_longer_ones():
    """Two paths that must agree: padding (sentences of other papers, longer sentences, the
    reversed backward LSTM) changes nothing of a paper's sentence states or its picks' probabilities."""
    vocab, exs, batch = _batch()
    model = tiny_model("select-rewrite", len(vocab), seed=2, pos_dim=3)
    together = model.read(model.sentences(batch.src, batch.src_mask))
    labels = model.label_tensor(exs)
    lp_together = model.pick_logprobs(together, labels)
    for b, ex in enumerate(exs):
        one = collate([ex], chunks=0, chunk_len=8)
        alone = model.read(model.sentences(one.src, one.src_mask))
        S1 = alone.keys.size(1)
        assert torch.allclose(alone.keys[0], together.keys[b, :S1], atol=1e-5)
        assert not together.real[b, S1:].any()
        T = int((labels[b] >= 0).sum())
        lp_alone = model.pick_logprobs(alone, labels[b : b + 1, :T])
        assert torch.allclose(lp_alone[0], lp_together[b, :T, :S1], atol=1e-5)


def test_the_reinforce_budget_is_the_model_s_config_and_old_configs_get_the_old_constants():
    """``model.selector_rl_words`` / ``selector_rl_min_words`` (250 / 100, the constants they
    replace), read by :meth:`SentenceSelector.reinforce` when no budget is given."""
    from c2fsum.config import ModelConfig

    assert (ModelConfig.selector_rl_words, ModelConfig.selector_rl_min_words) == (250, 100)
    vocab, exs, batch = _batch()
    model = tiny_model("select-rewrite", len(vocab), selector_rl_words=8, selector_rl_min_words=0).train()
    assert (model.rl_words, model.rl_min_words) == (8, 0)
    torch.manual_seed(0)
    given = model.reinforce(batch.src, batch.src_mask, exs, summary_words=8, min_words=0)
    torch.manual_seed(0)
    configured = model.reinforce(batch.src, batch.src_mask, exs)
    assert all(torch.equal(a, b) for a, b in zip(given, configured, strict=True))


# -- issue 47: the better-shaped reward and the redundancy loss --------------------------------
def test_the_summary_reward_is_the_whole_selections_rouge_at_its_last_step():
    """``model.selector_reward=summary``: one reward, at the selection's last step (its stop), the
    mean of ROUGE-1 and ROUGE-2 F1 of the picks in the paper's order; 0 at every other step."""
    from c2fsum.losses.selection import summary_rouge

    vocab, exs, batch = _batch()
    # paper 0: "alpha beta gamma ." and "zeta eta theta iota ." against the abstract "zeta eta theta
    # iota . alpha beta .": unigrams 6 of 7 picked, of 6 reference (F1 12/13); bigrams: 4 of the 6
    # picked (alpha beta, zeta eta, eta theta, theta iota), of 5 reference (F1 8/11)
    assert summary_rouge(document_sentences(exs[0]), [2, 0], exs[0].tgt_words) == pytest.approx((12 / 13 + 8 / 11) / 2)
    mask = torch.tensor([[True, True, True], [True, True, False], [True, False, False], [False, False, False]])
    picks = [[2, 0], [2], [], []]
    r = step_rewards(exs, picks, mask, "summary")
    assert r[0, :2].tolist() == [0.0, 0.0] and r[0, 2] == pytest.approx((12 / 13 + 8 / 11) / 2)
    assert r[1, 0] == 0.0 and r[1, 1] > 0 and r[1, 2] == 0.0
    assert r[2].tolist() == [0.0, 0.0, 0.0] and r[3].tolist() == [0.0, 0.0, 0.0]  # nothing picked: 0


def test_reinforce_on_the_summary_reward_raises_the_greedy_selections_rouge():
    """Self-critical REINFORCE on the whole selection's ROUGE alone (no labels) learns to pick."""
    vocab, exs, batch = _batch()
    model = tiny_model(
        "select-rewrite", len(vocab), emb_dim=16, hidden=24, chunk_filters=16, seed=2, selector_reward="summary"
    ).train()
    before, after = _reinforced(model, batch, exs, "summary", 100)
    # the best selections within 8 words score 0.849 on average (all subsets tried): the untrained
    # greedy one 0.30, the trained one within 0.15 of the best
    assert after > before + 0.3


def test_the_redundancy_loss_is_each_sentences_probability_times_what_the_labels_before_hold():
    """Two paths that must agree: the loss's redundancy term and its definition summed by hand from
    the teacher-forced probabilities and the papers' words; it is off (0) at weight 0 and in eval mode."""
    from c2fsum.models.select_rewrite import picked_before

    docs = [  # sentences sharing words: after "alpha beta gamma" is picked, "alpha beta delta" is 2/3 held
        _doc(
            0,
            ["alpha beta gamma .", "alpha beta delta .", "eps zeta .", "gamma eps eta ."],
            ["alpha beta gamma .", "eps zeta ."],
        ),
        _doc(1, ["mu nu xi .", "omicron pi .", "mu pi rho ."], ["omicron pi .", "mu nu xi ."]),
    ]
    vocab = _vocab(docs)
    exs = [encode_document(d, vocab, DataConfig(chunks=0, chunk_len=8, max_tgt_len=50)) for d in docs]
    batch = collate(exs, chunks=0, chunk_len=8)
    model = tiny_model("select-rewrite", len(vocab), seed=4, selector_redundancy=2.0).train()
    torch.manual_seed(0)
    nll, n, redundant = model._label_loss(batch.src, batch.src_mask, exs)
    memory = model.read(model.sentences(batch.src, batch.src_mask), exs)
    labels = model.label_tensor(exs)
    lp = model.pick_logprobs(memory, labels).detach()
    before = picked_before(labels, memory.keys.size(1))
    expected = 0.0
    for b, ex in enumerate(exs):
        sentences = [set(w for w in s if w not in (".", "</s>")) for s in document_sentences(ex)]
        for t in range(labels.size(1)):
            if labels[b, t] < 0:
                continue
            held = set().union(*(sentences[j - 1] for j in range(1, len(sentences) + 1) if before[b, t, j]))
            for j, words in enumerate(sentences, start=1):
                expected += float(lp[b, t, j].exp()) * len(words & held) / len(words)
    assert expected > 0.1  # each label holds words of sentences not picked yet
    assert float(redundant.detach()) == pytest.approx(expected, rel=1e-4)
    loss = model.selection_loss(batch.src, batch.src_mask, exs).loss
    assert float(loss.detach()) == pytest.approx(float(nll.detach()) + 2.0 * expected, rel=1e-4)
    off = tiny_model("select-rewrite", len(vocab), seed=4).train()
    assert float(off._label_loss(batch.src, batch.src_mask, exs)[2]) == 0.0
    assert float(model.eval()._label_loss(batch.src, batch.src_mask, exs)[2]) == 0.0
