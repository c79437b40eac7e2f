"""Sentence-level coarse-to-fine (issue 37): a selector picks whole sentences of the paper, one per
summary sentence (a hard coarse attention that chooses once per sentence, not once per word); the
fine level (a rewriter, a pointer-generator :class:`~c2fsum.models.flat.Flat` run trained on
aligned sentence pairs) rewrites each picked sentence (:mod:`c2fsum.decoding.selection`).

After Chen & Bansal (2018, *Fast Abstractive Summarization with Reinforce-Selected Sentence
Rewriting*: a pointer-network extractor on ROUGE-L-recall labels, then reinforced with a reward per
pick and for the stop) and Gu et al. (2022, *MemSum*: the extractor sees its extraction history and
never picks a sentence twice). Our code; their ideas::

    grid (B, M, N) --split after each </s>--> sentences (B, S, L)             [sentence_grid]
      --embedding + chunk encoder (CNN or BOW, +POS; the sentences are the chunks)--> s_j (B, S, Hc)
      --bidirectional LSTM over the paper's sentences-----------------------------> h_j (B, S, H)
    candidates  k_0 = STOP (a learned vector), k_j = h_{j-1}                          (B, S+1, H)
    step t:  z_t = LSTM(x_t, z_{t-1}),  x_0 = START (learned), x_t = h of pick t-1      (B, H)
             glimpse  a_j = softmax_j v_g^T tanh(W_g1 k_j + W_g2 z_t);  g_t = sum_j a_j W_g1 k_j
             pointer  u_j = v_p^T tanh(W_p1 k_j + W_p2 g_t)             (Chen & Bansal eq. 2-4)
             p(pick_t = j) = softmax over the allowed j: STOP and the real sentences not yet
             picked (MemSum: the history masks them); at test time also only sentences that fit
             what is left of the summary's word budget (:func:`~c2fsum.models.selector_parts.fits`).

Training (:meth:`SentenceSelector.selection_loss`): teacher-forced cross-entropy on the labels
(:func:`c2fsum.data.sentences.selection_labels`: the aligned source sentences in abstract order,
then STOP); with ``train.objective=mixed`` also REINFORCE with a ROUGE reward per pick and for the
stop and the greedy selection as baseline (self-critical, :mod:`c2fsum.losses.selection`), weighted
by ``train.rl_weight``, on selections of ``model.selector_rl_words`` words.

The selector is a :class:`~c2fsum.models.base.Selector`; its tensors and their helpers are
:mod:`c2fsum.models.selector_parts`. Letters: B papers, S sentences (of the longest paper in the
batch), L words per sentence, T picks (STOP included), H hidden size, A attention size (= H).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from c2fsum.config import ModelConfig
from c2fsum.data.batching import Example
from c2fsum.data.sentences import LabelCache, document_sentences, example_labels, label_kind, label_tensor
from c2fsum.losses.selection import self_critical_selection_loss, step_rewards
from c2fsum.models.base import Selector
from c2fsum.models.parts import init_uniform
from c2fsum.models.selector_parts import (
    PLACE_BUCKETS,
    SECTION_KINDS,
    STOP,
    PickRules,
    PickState,
    Selection,
    SelectionLoss,
    SelectorMemory,
    Sentences,
    WordSets,
    content_matrix,
    content_sets,
    gather_rows,
    place_grid,
    reverse_within,
    selector_features,
    sentence_grid,
    sentence_vectors,
    zero_weights,
)
from c2fsum.modules.chunk_encoders import ChunkEncoder

SENTENCE_GROUP = 256
"""Sentences the chunk encoder reads at once (:func:`~c2fsum.models.selector_parts.sentence_vectors`)."""
OVERLAP_WORDS = True
"""Decoding's overlap rule counts all words as well as content words (``bench/select_steps.py``
turns it off to measure it)."""
HISTORY_SCALE = 200
"""Picked words for STOP's history feature are counted in units of this (about an abstract)."""


class SentenceSelector(Selector):
    """The coarse level of sentence-level coarse-to-fine: picks sentences, or STOP (module docstring).

    ``model.*`` fields it reads: ``emb_dim``, ``hidden`` (H), ``enc_layers`` (of the sentence-level
    BiLSTM), ``dec_layers``, ``dropout``, ``init_range``, ``chunk_encoder`` (cnn/bow),
    ``chunk_filters``, ``chunk_width``, ``pos_dim`` (+POS: the sentence's index), ``pretrained_emb``
    (through the trainer: the word embedding and a BOW encoder's fixed table), ``selector_*``.
    """

    def __init__(self, cfg: ModelConfig, vocab_size: int, max_chunks: int = 10):
        """``max_chunks`` is unused (sentence positions: ``UNBOUNDED_POSITIONS`` rows, chunk_encoders)."""
        super().__init__()
        if cfg.hidden % 2:
            raise ValueError(f"model.hidden: the selector's BiLSTM needs an even size, got {cfg.hidden}")
        self.vocab_size = vocab_size
        self.hidden = H = cfg.hidden
        self.src_emb = nn.Embedding(vocab_size, cfg.emb_dim, padding_idx=self.pad_id)
        self.chunk_encoder = ChunkEncoder(  # named as the other families' (its lr, its fixed vectors)
            kind=cfg.chunk_encoder,
            vocab_size=vocab_size,
            emb_dim=cfg.emb_dim,
            max_chunks=0,
            filters=cfg.chunk_filters,
            width=cfg.chunk_width,
            pos_dim=cfg.pos_dim,
            init_range=cfg.init_range,
        )
        layers = max(1, cfg.enc_layers)
        # the sentence-level BiLSTM as two LSTMs, the backward one over each paper reversed: no
        # packed sequence (whose backward pass costs O(S^2) on CPU, a slice per step)
        self.doc_forward, self.doc_backward = (
            nn.LSTM(
                self.chunk_encoder.out_dim,
                H // 2,
                num_layers=layers,
                batch_first=True,
                dropout=cfg.dropout if layers > 1 else 0.0,
            )
            for _ in range(2)
        )
        self.dec_layers = max(1, cfg.dec_layers)
        self.bridge = nn.Linear(H, 2 * self.dec_layers * H)
        self.decoder = nn.LSTM(
            H, H, num_layers=self.dec_layers, batch_first=True, dropout=cfg.dropout if self.dec_layers > 1 else 0.0
        )
        self.start = nn.Parameter(torch.empty(H))
        self.stop = nn.Parameter(torch.empty(H))
        self.glimpse_key = nn.Linear(H, H, bias=False)  # W_g1
        self.glimpse_query = nn.Linear(H, H)  # W_g2
        self.glimpse_v = nn.Linear(H, 1, bias=False)  # v_g
        self.pointer_key = nn.Linear(H, H, bias=False)  # W_p1
        self.pointer_query = nn.Linear(H, H)  # W_p2
        self.pointer_v = nn.Linear(H, 1, bias=False)  # v_p
        self.dropout = nn.Dropout(cfg.dropout)
        self.features = selector_features(cfg.selector_features)
        if "sections" in self.features:  # added to each h_j (zero at first: a warm start reads as before)
            self.section_emb = nn.Embedding(len(SECTION_KINDS), H)
            self.place_emb = nn.Embedding(PLACE_BUCKETS, H)
            self.inner_emb = nn.Embedding(4, H)
        if "history" in self.features:  # score += w . [c, c^2] (c: share already picked); STOP's += v . [f, f^2]
            self.history_w = nn.Parameter(torch.zeros(2))
            self.stop_w = nn.Parameter(torch.zeros(2))
        init_uniform(self, cfg.init_range)
        zero_weights(self, self.NEW_WEIGHTS)
        with torch.no_grad():
            self.src_emb.weight[self.pad_id].zero_()
        self.label_kind, self.label_words = label_kind(cfg.selector_labels), cfg.selector_label_words
        self.label_cache = LabelCache(partial(example_labels, kind=self.label_kind, words=self.label_words))
        self.rl_words, self.rl_min_words = cfg.selector_rl_words, cfg.selector_rl_min_words
        self.reward_kind, self.redundancy = cfg.selector_reward, cfg.selector_redundancy

    NEW_WEIGHTS = ("section_emb", "place_emb", "inner_emb", "history_w", "stop_w")
    """Weights of ``model.selector_features``: zero at first, so a selector trained without them
    starts from its own picks (``train.init_from``, :func:`c2fsum.models.checkpoint.warm_start`)."""

    @property
    def tgt_emb(self) -> nn.Embedding:
        """The one word embedding (the trainer fills ``src_emb`` and ``tgt_emb`` from ``c2fsum vectors``)."""
        return self.src_emb

    # -- reading --------------------------------------------------------------------------------
    def sentences(self, src: Tensor, src_mask: Tensor) -> Sentences:
        """The grid ``(B, M, N)`` as sentences (:func:`~c2fsum.models.selector_parts.sentence_grid`)."""
        return sentence_grid(src, src_mask, eos_id=self.eos_id, bos_id=self.bos_id)

    def sentence_vectors(self, sents: Sentences) -> Tensor:
        """``(B, S, L)`` -> ``(B, S, Hc)`` (:func:`~c2fsum.models.selector_parts.sentence_vectors`)."""
        return sentence_vectors(self.chunk_encoder, self.src_emb, sents, group=SENTENCE_GROUP)

    def read(self, sents: Sentences, examples: Sequence[Example] | None = None) -> SelectorMemory:
        """Sentences ``(B, S, L)`` -> candidates ``(B, S+1, H)`` and the decoder's first state;
        ``examples`` (the papers' words and sections) give the content words of each sentence
        (history, the overlap rule) and, with ``sections``, its section and place."""
        s = self.sentence_vectors(sents)  # (B, S, Hc)
        s = self.dropout(s)
        flip = reverse_within(sents.real)  # (B, S): each paper's sentences in reverse, padding in place
        back = self.doc_backward(gather_rows(s, flip))[0]  # (B, S, H/2), read last sentence first
        h = torch.cat([self.doc_forward(s)[0], gather_rows(back, flip)], -1)  # (B, S, H)
        B, S = h.size(0), h.size(1)
        content = None
        said: tuple[WordSets, ...] = ()
        if examples is not None:
            papers = [document_sentences(ex) for ex in examples]
            if "history" in self.features or (self.training and self.redundancy > 0):
                content = content_matrix([content_sets(p) for p in papers], S).to(h.device)
            if not self.training:  # decoding's overlap rule
                said = WordSets.kinds(papers, S, h.device, all_words=OVERLAP_WORDS)
            if "sections" in self.features:
                kind, place, inner = place_grid(examples, papers, S).to(h.device).unbind(-1)
                h = h + self.section_emb(kind) + self.place_emb(place) + self.inner_emb(inner)
        elif "sections" in self.features or "history" in self.features:
            raise ValueError("this selector reads each paper's words and sections: call read(sents, examples)")
        keys = torch.cat([self.stop.expand(B, 1, -1), h], 1)  # (B, S+1, H)
        real = torch.cat([torch.ones(B, 1, dtype=torch.bool, device=h.device), sents.real], 1)  # (B, S+1)
        r = sents.real.unsqueeze(-1).to(h.dtype)
        mean = (h * r).sum(1) / r.sum(1).clamp(min=1)  # (B, H)
        hc = torch.tanh(self.bridge(mean)).view(B, 2, self.dec_layers, self.hidden)  # (B, 2, layers, H)
        state = (hc[:, 0].transpose(0, 1).contiguous(), hc[:, 1].transpose(0, 1).contiguous())
        return SelectorMemory(
            keys=keys,
            glimpse_keys=self.glimpse_key(keys),
            pointer_keys=self.pointer_key(keys),
            real=real,
            words=sents.words,
            state=state,
            content=content,
            said=said,
        )

    # -- picking --------------------------------------------------------------------------------
    def inputs(self, memory: SelectorMemory, previous: Tensor) -> Tensor:
        """Decoder inputs ``(B, T, H)``: START where ``previous`` ``(B, T)`` is -1, else the state of
        the candidate picked before (its extraction history)."""
        B, T = previous.shape
        idx = previous.clamp(min=0).unsqueeze(-1).expand(B, T, self.hidden)
        x = memory.keys.gather(1, idx)  # (B, T, H)
        return torch.where((previous < 0).unsqueeze(-1), self.start.expand(B, T, -1), x)

    def scores(
        self, memory: SelectorMemory, z: Tensor, allowed: Tensor, history: tuple[Tensor, Tensor] | None = None
    ) -> Tensor:
        """Log-probabilities ``(B, T, S+1)`` of each candidate at each step from the decoder outputs
        ``z`` ``(B, T, H)``; -inf where ``allowed`` ``(B, T, S+1)`` is False (Chen & Bansal eq. 2-4).
        ``history`` (with ``history`` among the features): the share of each candidate's content
        words the picks before each step hold ``(B, T, S+1)`` and their words ``(B, T)``."""
        q = self.glimpse_query(z).unsqueeze(2)  # (B, T, 1, A)
        e = self.glimpse_v(torch.tanh(memory.glimpse_keys.unsqueeze(1) + q)).squeeze(-1)  # (B, T, S+1)
        a = torch.softmax(e.masked_fill(~allowed, float("-inf")), -1)  # glimpse weights
        g = a @ memory.glimpse_keys  # (B, T, A)
        p = self.pointer_query(g).unsqueeze(2)  # (B, T, 1, A)
        u = self.pointer_v(torch.tanh(memory.pointer_keys.unsqueeze(1) + p)).squeeze(-1)  # (B, T, S+1)
        if history is not None and "history" in self.features:
            c, used = history
            f = (used.to(u.dtype) / HISTORY_SCALE).unsqueeze(-1)  # (B, T, 1)
            u = u + self.history_w[0] * c + self.history_w[1] * c * c
            stop = self.stop_w[0] * f + self.stop_w[1] * f * f  # (B, T, 1)
            u = u + torch.cat([stop, torch.zeros_like(u[..., 1:])], -1)
        return torch.log_softmax(u.masked_fill(~allowed, float("-inf")), -1)

    def steps(
        self,
        memory: SelectorMemory,
        previous: Tensor,
        allowed: Tensor,
        state: tuple[Tensor, Tensor] | None = None,
        history: tuple[Tensor, Tensor] | None = None,
    ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """T steps at once (teacher forcing) or one (T=1, picking): ``previous`` ``(B, T)`` the
        candidate picked before each step (-1: none yet), ``allowed`` ``(B, T, S+1)``, ``history``
        as :meth:`scores` takes it -> log-probabilities ``(B, T, S+1)`` and the decoder state after
        the last step."""
        z, state = self.decoder(self.dropout(self.inputs(memory, previous)), state or memory.state)
        return self.scores(memory, self.dropout(z), allowed, history), state

    def next_step(
        self,
        memory: SelectorMemory,
        at: PickState,
        previous: Tensor,
        allowed: Tensor,
        state: tuple[Tensor, Tensor],
        *,
        last: bool,
    ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """One picking step from where ``at`` stands: ``previous`` ``(B, 1)`` the candidate picked
        before, ``allowed`` ``(B, S+1)`` (:meth:`PickState.allowed`; ``last``: only STOP, the last
        step a row can reach) -> log-probabilities ``(B, S+1)`` and the decoder's state (greedy and
        sampled picking, :func:`~c2fsum.decoding.pick_beam.beam_pick`)."""
        if last:
            allowed[:, 1:] = False
            allowed[:, STOP] = True
        seen = None
        if self.uses_history(memory):
            assert at.have is not None
            seen = (memory.coverage(at.have.unsqueeze(1)), at.used.unsqueeze(1))
        lp, state = self.steps(memory, previous, allowed.unsqueeze(1), state, seen)
        return lp.squeeze(1), state

    def uses_history(self, memory: SelectorMemory) -> bool:
        """Whether the pointer reads the extraction history (and the papers' words were given)."""
        return "history" in self.features and memory.content is not None

    def pick_logprobs(self, memory: SelectorMemory, labels: Tensor) -> Tensor:
        """Log-probabilities ``(B, T, S+1)`` of every step given the labels ``(B, T)`` (candidate
        indices, STOP last, -1 on padding): step t sees the labels before it picked and may pick
        neither them nor padding."""
        B, T = labels.shape
        previous = torch.cat([labels.new_full((B, 1), -1), labels[:, :-1]], 1)  # (B, T)
        before = picked_before(labels, memory.keys.size(1))
        allowed = memory.real.unsqueeze(1) & ~before
        history = None
        if self.uses_history(memory):
            words = torch.cat([memory.words.new_zeros(B, 1), memory.words], 1)  # (B, S+1)
            used = (before.to(words.dtype) * words.unsqueeze(1)).sum(-1)  # (B, T)
            history = (label_coverage(memory, before), used)
        lp, _ = self.steps(memory, previous, allowed, history=history)
        return lp

    def pick(
        self,
        memory: SelectorMemory,
        *,
        sample: bool = False,
        summary_words: int = 0,
        min_words: int = 0,
        max_picks: int = 0,
        rules: PickRules | None = None,
    ) -> Selection:
        """Pick sentences one at a time until STOP, the budget or the sentences run out.

        ``summary_words`` > 0: only sentences that fit what is left of the summary's budget may be
        picked (and none fits: stop). ``min_words``: STOP is not allowed before the picks hold that
        many words (while a sentence still fits). ``max_picks`` > 0: stop after that many.
        ``sample``: draw from the policy (REINFORCE) instead of its argmax. ``rules`` (decoding,
        :class:`~c2fsum.models.selector_parts.PickRules`): sentences never picked, sentences picked
        with the one they refer back to (it goes into ``picks`` just before them, and its words
        count), no pick repeating another (:meth:`~c2fsum.models.selector_parts.PickState.allowed`).
        """
        at = PickState.start(memory)
        previous = torch.full((len(at.picks), 1), -1, dtype=torch.long, device=memory.keys.device)
        state, lps, masks = memory.state, [], []
        limit = max_picks if max_picks > 0 else memory.real.size(1) - 1
        for step in range(limit + 1):
            allowed, can_pick = at.allowed(memory, rules, summary_words, min_words)
            lp, state = self.next_step(memory, at, previous, allowed, state, last=step == limit)
            choice = torch.multinomial(lp.exp(), 1).squeeze(1) if sample else lp.argmax(-1)  # (B,)
            choice = choice.masked_fill(at.done, STOP)
            lps.append(lp.gather(1, choice.unsqueeze(1)).squeeze(1).masked_fill(at.done, 0.0))
            masks.append(~at.done)
            at.take(memory, choice, can_pick, rules)
            previous = choice.unsqueeze(1)
            if bool(at.done.all()):
                break
        return Selection(picks=at.picks, logprob=torch.stack(lps, 1), mask=torch.stack(masks, 1), stopped=at.stopped)

    # -- training -------------------------------------------------------------------------------
    def labels(self, examples: Sequence[Example]) -> list[list[int]]:
        """Each example's picks to learn (kept by :attr:`label_cache`): its
        :func:`~c2fsum.data.sentences.selection_labels` (``align``), or one of its oracle episodes
        (``episodes``: drawn with torch's generator in training mode, the best one in eval mode)."""
        out = []
        for ex in examples:
            choices = self.label_cache(ex)
            i = int(torch.randint(len(choices), ())) if self.training and len(choices) > 1 else 0
            out.append(choices[i])
        return out

    def label_tensor(self, examples: Sequence[Example], device: torch.device | str = "cpu") -> Tensor:
        """``(B, T)`` candidate indices: the labels (sentence j as j + 1), STOP, then -1."""
        return label_tensor(self.labels(examples), STOP).to(device)

    def selection_nll(self, src: Tensor, src_mask: Tensor, examples: Sequence[Example]) -> tuple[Tensor, int]:
        """Summed cross-entropy of the labels' picks and stops over a batch, and their number."""
        nll, n, _ = self._label_loss(src, src_mask, examples)
        return nll, n

    def _label_loss(self, src: Tensor, src_mask: Tensor, examples: Sequence[Example]) -> tuple[Tensor, int, Tensor]:
        """:meth:`selection_nll`'s two values and the redundancy loss (summed over the labelled
        steps: the probability of each sentence times the share of its content words the labels
        before hold, :func:`label_coverage`; 0 without ``model.selector_redundancy`` in training)."""
        memory = self.read(self.sentences(src, src_mask), examples)
        labels = self.label_tensor(examples, src.device)  # (B, T)
        labels = labels.masked_fill(labels > memory.keys.size(1) - 1, -1)  # a label cut off with the grid
        lp = self.pick_logprobs(memory, labels)  # (B, T, S+1)
        real = labels >= 0
        picked = lp.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)  # (B, T)
        redundant = lp.new_zeros(())
        if self.training and self.redundancy > 0 and memory.content is not None:
            covered = label_coverage(memory, picked_before(labels, memory.keys.size(1)))  # (B, T, S+1)
            redundant = (lp.exp() * covered).sum(-1).masked_fill(~real, 0.0).sum()
        return -(picked.masked_fill(~real, 0.0)).sum(), int(real.sum()), redundant

    def reinforce(
        self,
        src: Tensor,
        src_mask: Tensor,
        examples: Sequence[Example],
        *,
        gamma: float = 0.95,
        summary_words: int | None = None,
        min_words: int | None = None,
        baseline: bool = True,
    ) -> tuple[Tensor, Tensor, Tensor]:
        """Self-critical REINFORCE over the picks (summed over the batch) and the mean return of the
        sampled and of the greedy selections (:func:`~c2fsum.losses.selection.self_critical_selection_loss`).

        A selection is drawn from the policy (training mode) and one picked greedily (eval mode, the
        baseline; ``baseline=False``: none, plain REINFORCE; ``bench/select_reinforce_variance.py``
        compares the two), each within ``summary_words`` words (0: no budget; default
        ``model.selector_rl_words``) and with no STOP before ``min_words`` (default
        ``model.selector_rl_min_words``, as decoding's ``min_len``: a greedy selection that stops at
        once is a baseline of 0).
        """
        words = self.rl_words if summary_words is None else summary_words
        least = self.rl_min_words if min_words is None else min_words
        memory = self.read(self.sentences(src, src_mask), examples)
        drawn = self.pick(memory, sample=True, summary_words=words, min_words=least)
        was = self.training
        self.eval()
        with torch.no_grad():
            again = self.read(self.sentences(src, src_mask), examples)
            greedy = self.greedy(again, summary_words=words, min_words=least)
        self.train(was)
        rewards = step_rewards(examples, drawn.picks, drawn.mask, self.reward_kind).to(src.device)
        base = step_rewards(examples, greedy.picks, greedy.mask, self.reward_kind).to(src.device)
        if self.reward_kind == "summary":
            gamma = 1.0  # one reward at the end: every step's return is the whole selection's worth
        return self_critical_selection_loss(
            drawn.logprob, drawn.mask, rewards, base, greedy.mask, gamma=gamma, baseline=baseline
        )

    def selection_loss(
        self, src: Tensor, src_mask: Tensor, examples: Sequence[Example], *, rl_weight: float = 0.0
    ) -> SelectionLoss:
        """The training loss summed over the batch: cross-entropy on the labels, mixed with
        self-critical REINFORCE (:meth:`reinforce`) when ``rl_weight`` > 0 (loss = rl_weight * L_rl +
        (1 - rl_weight) * L_ml, as Paulus eq. 16); with its cross-entropy part, the number of labels
        and, with REINFORCE, the mean return of the sampled and of the greedy selections (what the
        trainer logs as ``reward_sample`` and ``reward_greedy``)."""
        nll, n, redundant = self._label_loss(src, src_mask, examples)
        ml = nll + self.redundancy * redundant
        if rl_weight <= 0:
            return SelectionLoss(ml, nll, n, None)
        rl, sampled, greedy = self.reinforce(src, src_mask, examples)
        return SelectionLoss(rl_weight * rl + (1 - rl_weight) * ml, nll, n, (float(sampled), float(greedy)))


def picked_before(labels: Tensor, candidates: int) -> Tensor:
    """``(B, T, S+1)`` bool: the candidates the ``labels`` ``(B, T)`` (-1: padding) picked before
    each step; STOP never."""
    picked = F.one_hot(labels.clamp(min=0), candidates) * (labels >= 0).unsqueeze(-1)  # (B, T, S+1)
    before = (picked.cumsum(1) - picked) > 0
    before[..., STOP] = False
    return before


def label_coverage(memory: SelectorMemory, before: Tensor) -> Tensor:
    """``(B, T, S+1)``: the share of each candidate's content words the candidates picked before
    each step (``before``, :func:`picked_before`) hold (:meth:`SelectorMemory.coverage`)."""
    assert memory.content is not None
    have = ((before.to(memory.content.dtype) @ memory.content) > 0).to(memory.content.dtype)  # (B, T, U)
    return memory.coverage(have)
