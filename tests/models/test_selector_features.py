"""Issue 47's selector: sections and places, the extraction history, the pick rules, and the warm
start that adds them to a selector trained without them."""

import pytest
import torch
from test_select_rewrite import _batch, selection_labels_tensor

from c2fsum.config import Config, DataConfig, ModelConfig
from c2fsum.data.batching import collate, encode_document
from c2fsum.data.vocab import Vocab
from c2fsum.models.checkpoint import warm_start, write_manifest, write_model_files
from c2fsum.models.selector_parts import (
    SECTION_KINDS,
    PickRules,
    content_matrix,
    content_sets,
    section_kind,
    sentence_places,
)
from tiny import tiny_model


def test_section_kinds_by_hand():
    kinds = {h: SECTION_KINDS[section_kind(h)] for h in ("BACKGROUND", "Introduction", "RESULTS AND DISCUSSION")}
    assert kinds == {"BACKGROUND": "background", "Introduction": "background", "RESULTS AND DISCUSSION": "results"}
    assert SECTION_KINDS[section_kind("Materials and Methods")] == "methods"
    assert SECTION_KINDS[section_kind("CONCLUSIONS")] == "conclusions"
    assert SECTION_KINDS[section_kind("multi-step pipelines")] == "other"


def test_places_of_a_paper_with_sub_headings_by_hand():
    """Ten sentences: BACKGROUND 0-2, a sub-heading at 3 (keeps "background"), RESULTS 5-8, CONCLUSIONS 9."""
    sections = [("BACKGROUND", 0), ("implementation", 3), ("RESULTS", 5), ("CONCLUSIONS", 9)]
    places = sentence_places(10, sections)
    assert [k for k, _, _ in places] == [1, 1, 1, 1, 1, 3, 3, 3, 3, 5]
    assert [p for _, p, _ in places] == list(range(10))  # tenths of a ten-sentence paper
    assert [i for _, _, i in places] == [0, 1, 2, 0, 2, 0, 1, 1, 2, 3]
    assert sentence_places(3, None) == [(0, 0, 0), (0, 3, 1), (0, 6, 2)]  # no headings (news): one section
    assert sentence_places(2, [("RESULTS", 5)]) == [(0, 0, 0), (0, 5, 2)]  # a heading past the paper is none


def test_content_matrix_and_coverage_by_hand():
    papers = [content_sets([["the", "drug", "worked", "."], ["the", "drug", "failed", "."], ["."]])]
    assert papers[0] == [{"drug", "worked"}, {"drug", "failed"}, set()]
    x = content_matrix(papers, 3)  # (1, 4, 3): STOP's row empty; words drug, failed, worked
    assert x.tolist() == [[[0, 0, 0], [1, 0, 1], [1, 1, 0], [0, 0, 0]]]


def _with_features(vocab, **kw):
    return tiny_model("select-rewrite", len(vocab), seed=3, selector_features="sections,history", **kw)


def test_a_warm_start_without_the_features_picks_as_before(tmp_path):
    """The features' weights start at zero: a selector trained without them, loaded into one with
    them (train.init_from), gives the same probabilities on the same papers."""
    vocab, exs, batch = _batch()
    old = tiny_model("select-rewrite", len(vocab), seed=3)
    new = _with_features(vocab)
    write_model_files(tmp_path, model=old, config=Config(model=ModelConfig(family="select-rewrite")), vocab=vocab)
    write_manifest(tmp_path)
    line = warm_start(new, tmp_path)
    assert "history_w" in line and "section_emb.weight" in line
    labels = old.label_tensor(exs)
    before = old.pick_logprobs(old.read(old.sentences(batch.src, batch.src_mask), exs), labels)
    after = new.pick_logprobs(new.read(new.sentences(batch.src, batch.src_mask), exs), labels)
    assert torch.allclose(before, after, atol=1e-6)


def test_with_history_picking_step_by_step_gives_the_teacher_forced_probabilities():
    """Two paths that must agree with the history on: the greedy loop and teacher forcing on its picks."""
    vocab, exs, batch = _batch()
    model = _with_features(vocab)
    with torch.no_grad():  # weights away from zero, so the features count
        model.history_w.copy_(torch.tensor([-2.0, 1.0]))
        model.stop_w.copy_(torch.tensor([0.5, -0.3]))
        model.section_emb.weight.normal_()
        model.place_emb.weight.normal_()
    memory = model.read(model.sentences(batch.src, batch.src_mask), exs)
    sel = model.greedy(memory)
    labels = selection_labels_tensor(sel)
    lp = model.pick_logprobs(memory, labels)
    forced = lp.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1).masked_fill(labels < 0, 0.0)
    assert torch.allclose(forced, sel.logprob, atol=1e-5)


def test_every_feature_weight_gets_a_gradient():
    """On papers whose sentences share words (the history is not zero) and that have headings."""
    sentences = ["alpha beta gamma .", "beta gamma delta .", "eps zeta .", "alpha zeta eta ."]
    docs = [
        {
            "id": str(k),
            "src": [x.split() + ["</s>"] for x in sentences[k:] + sentences[:k]],
            "refs": [sentences[2].split(), sentences[0].split()],
            "tgt": sentences[2].split() + sentences[0].split(),
            "sections": [["BACKGROUND", 0], ["RESULTS", 2]],
        }
        for k in range(2)
    ]
    vocab = Vocab.from_tokens(w for d in docs for x in d["src"] for w in x)
    exs = [encode_document(d, vocab, DataConfig(chunks=0, chunk_len=8, max_tgt_len=50)) for d in docs]
    assert exs[0].sections == [("BACKGROUND", 0), ("RESULTS", 2)]
    batch = collate(exs, chunks=0, chunk_len=8)
    model = _with_features(vocab).train()
    model.selection_loss(batch.src, batch.src_mask, exs).loss.backward()
    for name in ("history_w", "stop_w", "section_emb.weight", "place_emb.weight", "inner_emb.weight"):
        grad = dict(model.named_parameters())[name].grad
        assert grad is not None and grad.abs().sum() > 0, name


def test_the_rules_block_bring_the_antecedent_and_cap_the_overlap():
    vocab, exs, batch = _batch()
    model = tiny_model("select-rewrite", len(vocab), seed=3)
    memory = model.read(model.sentences(batch.src, batch.src_mask), exs)
    B, S1 = memory.real.shape
    free = model.pick(memory, min_words=100)  # every sentence, in the model's order
    blocked = torch.zeros(B, S1, dtype=torch.bool)
    blocked[:, 1] = True  # sentence 0 never
    antecedent = torch.full((B, S1), -1)
    antecedent[:, 3] = 2  # sentence 2 (candidate 3) comes with sentence 1 (candidate 2), just before it
    sel = model.pick(memory, min_words=100, rules=PickRules(blocked=blocked, antecedent=antecedent))
    for b, picks in enumerate(sel.picks):
        assert 0 not in picks and sorted(picks) == sorted(set(free.picks[b]) - {0})
        assert picks.index(1) == picks.index(2) - 1  # the antecedent right before
    none = PickRules(blocked=torch.zeros_like(blocked), antecedent=torch.full_like(antecedent, -1), max_overlap=0.0)
    capped = model.pick(memory, min_words=100, rules=none)
    assert len(memory.said) == 2  # decoding: content words and all words
    for b, picks in enumerate(capped.picks):  # no two picks share a word, content or not
        for sets in memory.said:
            words = sets.matrix.to_dense().view(B, S1, -1)
            rows = words[b, [j + 1 for j in picks]]
            assert (rows.sum(0) <= 1).all()


def test_overlap_is_the_larger_share_of_content_words_and_of_all_words_by_hand():
    """Sentences "the drug worked in mice ." (a) and "the drug failed in rats ." (b): content words
    {drug, worked, mice} and {drug, failed, rats} share 1 of 3; all words {the, drug, worked, in,
    mice} and {the, drug, failed, in, rats} share 3 of 5 = 0.6; "in mice the drug worked" (c)
    shares 3 of 3 content words with a."""
    from c2fsum.models.selector_parts import SelectorMemory, WordSets, word_sets

    paper = [s.split() for s in ("the drug worked in mice .", "the drug failed in rats .", "in mice the drug worked")]
    content = WordSets.of([content_sets(paper)], 3)
    letters = WordSets.of([word_sets(paper)], 3)
    assert letters.sizes.tolist() == [[0, 5, 5, 5]]
    memory = SelectorMemory(*[torch.zeros(1)] * 5, state=(torch.zeros(1), torch.zeros(1)), said=(content,))
    a = torch.tensor([1])  # candidate 1: sentence a
    assert [round(v, 4) for v in memory.overlap(a)[0].tolist()] == [0.0, 1.0, round(1 / 3, 4), 1.0]
    memory.said = (content, letters)
    assert [round(v, 4) for v in memory.overlap(a)[0].tolist()] == [0.0, 1.0, 0.6, 1.0]


def test_sparse_word_sets_share_what_dense_sets_share_on_a_batch():
    """Two papers of unequal length in one batch (columns of each its own, padding rows empty): each
    share is |A & B| / min(|A|, |B|) counted with Python sets."""
    import random

    from c2fsum.models.selector_parts import WordSets

    rng = random.Random(4)
    papers = [[{f"w{rng.randrange(12)}" for _ in range(rng.randint(0, 6))} for _ in range(n)] for n in (5, 3)]
    sets = WordSets.of(papers, 5)
    for k in range(6):
        got = sets.shared(torch.tensor([k, min(k, 3)]))
        for b, paper in enumerate(papers):
            rows = [set(), *paper, *[set()] * (5 - len(paper))]
            pick = rows[k if b == 0 else min(k, 3)]
            want = [len(r & pick) / max(1, min(len(r), len(pick))) for r in rows]
            assert got[b].tolist() == pytest.approx(want, abs=1e-6)


def test_episode_labels_draw_among_the_best_selections_in_training_and_take_the_best_in_eval():
    """``model.selector_labels=episodes``: each example's labels are one of its oracle episodes (in
    pick order), drawn in training mode (all of them turn up over draws), the first in eval mode."""
    from c2fsum.data.align import oracle_episodes
    from c2fsum.data.sentences import document_sentences, sentence_words
    from c2fsum.data.vocab import BOS, EOS

    vocab, exs, _ = _batch()
    model = tiny_model("select-rewrite", len(vocab), seed=3, selector_labels="episodes", selector_label_words=6)
    episodes = []
    for ex in exs:
        doc = document_sentences(ex)
        size = [sentence_words(s, {EOS, BOS}) for s in doc]
        episodes.append([list(e.picks) for e in oracle_episodes(doc, ex.refs, budget=6, beam=4, lengths=size)])
    assert all(episodes) and sum(len(e) > 1 for e in episodes) == 2  # at 6 words: two papers with two episodes
    model.eval()
    assert model.labels(exs) == [e[0] for e in episodes]
    model.train()
    torch.manual_seed(0)
    seen = [set() for _ in exs]
    for _ in range(60):  # P(an episode of 4 never drawn in 60) = 4 * (3/4)^60 < 1e-7
        for s, lab in zip(seen, model.labels(exs), strict=True):
            s.add(tuple(lab))
    assert seen == [{tuple(p) for p in e} for e in episodes]
    rows = model.label_tensor(exs).tolist()  # sentence j as j + 1, then STOP (0)
    assert all(r[: r.index(0)] in [[j + 1 for j in p] for p in e] for r, e in zip(rows, episodes, strict=True))
