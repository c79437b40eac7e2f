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
             what is left of the word budget.

Training (:meth:`SentenceSelector.selection_loss`): teacher-forced cross-entropy on the labels
(:func:`selection_labels`: the aligned source sentences in abstract order, then STOP); with
``train.objective=mixed`` also REINFORCE with a ROUGE reward per pick and for the stop and the
greedy selection as baseline (self-critical), weighted by ``train.rl_weight``.

Letters: B papers, S sentences (of the longest paper in the batch), L words per sentence (at most
:data:`SENTENCE_WORDS`), T picks (STOP included), H hidden size, A attention size (= H).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypeVar, cast

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from c2fsum.config import ModelConfig
from c2fsum.data.align import align, content, oracle_episodes
from c2fsum.data.batching import Example
from c2fsum.data.grid import PAD
from c2fsum.data.vocab import BOS, EOS
from c2fsum.losses.reinforce import discounted_returns, reinforce_loss
from c2fsum.metrics.output_stats import is_content_word
from c2fsum.models.base import Capabilities, ForwardOutput, Summarizer
from c2fsum.models.parts import init_uniform
from c2fsum.modules.chunk_encoders import ChunkEncoder

STOP = 0
"""The candidate index of STOP; sentence ``j`` of the paper is candidate ``j + 1``."""
SENTENCE_WORDS = 80
"""Words of a sentence the sentence encoder reads (a longer one is cut for the encoder only; its
length for the word budget stays whole). SumPubMed sentences average about 25 tokens."""
SENTENCE_GROUP = 256
"""Sentences the chunk encoder reads at once (:meth:`SentenceSelector.sentence_vectors`)."""
MIN_RECALL = 0.3
"""An abstract sentence whose best source sentence recalls less than this share of its content
words (ROUGE-L recall) gets no label: no sentence of the paper says it, and teaching the selector
to pick the best of bad matches teaches it noise. SumPubMed abstracts are abstractive: on the first 200
validation papers of the 20,000-paper set (1,810 abstract sentences) the best match's recall has
median 0.39, and 99% of the sentences reach 0.2, 80% 0.3, 50% 0.4, 30% 0.5; 0.3 keeps most
sentences and drops the weakest fifth."""
OVERLAP_WORDS = True
"""Decoding's overlap rule counts all words as well as content words (``bench/select_steps.py``
turns it off to measure it)."""

LABELS = ("align", "episodes")
"""The values of ``model.selector_labels``."""

EPISODES = 4
"""``selector_labels=episodes``: how many high-ROUGE selections of each paper a step draws from."""

RL_WORDS = 250
"""The word budget of the selections drawn for REINFORCE: about a SumPubMed abstract (the budget
``c2fsum extract`` gives ILP and LEAD by default)."""

RL_MIN_WORDS = 100
"""No STOP before the selections drawn for REINFORCE hold this many words: decoding's ``min_len``
of the presets."""

T_ = TypeVar("T_", bound=Hashable)


SECTION_KINDS = ("none", "background", "methods", "results", "discussion", "conclusions", "other")
"""The kinds of section a sentence can sit in (:func:`section_kind`); ``none``: before any heading."""

SECTION_WORDS = (
    ("background", ("background", "introduction", "motivation", "overview")),
    ("methods", ("method", "material", "procedure", "experimental", "design", "patients", "participants")),
    ("results", ("result", "finding")),
    ("discussion", ("discussion",)),
    ("conclusions", ("conclusion", "summary", "concluding", "outlook", "implication")),
)
"""Words of a heading that name its kind (the first kind whose word the heading holds)."""

PLACE_BUCKETS = 10
"""A sentence's place in its paper, in tenths (sentence positions past the position table's last
row, 100, are otherwise all one)."""

HISTORY_SCALE = 200
"""Picked words for STOP's history feature are counted in units of this (about an abstract)."""

FEATURES = frozenset({"sections", "history"})
"""The values ``model.selector_features`` may list."""


def section_kind(heading: str) -> int:
    """The index in :data:`SECTION_KINDS` of a heading ("RESULTS AND DISCUSSION" is results).

    >>> [SECTION_KINDS[section_kind(h)] for h in ("BACKGROUND", "Materials and methods", "Acknowledgements")]
    ['background', 'methods', 'other']
    """
    low = heading.lower()
    for kind, words in SECTION_WORDS:
        if any(w in low for w in words):
            return SECTION_KINDS.index(kind)
    return SECTION_KINDS.index("other")


def sentence_places(n: int, sections: Sequence[tuple[str, int]] | None) -> list[tuple[int, int, int]]:
    """Per sentence of a paper of ``n`` sentences: its section's kind (:func:`section_kind`), its
    place in the paper in tenths, and its place in its section (0 the first, 1 inside, 2 the last,
    3 the only sentence).

    A heading of no known kind ("implementation") is a sub-heading: its sentences keep the kind of
    the section around it and are a section of their own for the place in it.

    >>> sentence_places(4, [("BACKGROUND", 0), ("RESULTS", 1)])
    [(1, 0, 3), (3, 2, 0), (3, 5, 1), (3, 7, 2)]
    >>> sentence_places(3, [("BACKGROUND", 0), ("implementation", 1), ("pipelines", 1)])
    [(1, 0, 3), (1, 3, 0), (1, 6, 2)]
    """
    kinds: dict[int, int] = {}  # a section's first sentence -> its kind
    kind = 0
    for title, k in sections or []:
        own = section_kind(title)
        kind = kind if own == SECTION_KINDS.index("other") and kind else own  # a sub-heading: its section's kind
        if 0 <= k < n:
            kinds[k] = kind
    bounds = [0, *sorted(k for k in kinds if k > 0), n]
    out = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        kind = kinds.get(a, 0)
        for j in range(a, b):
            place = 3 if b - a == 1 else 0 if j == a else 2 if j == b - 1 else 1
            out.append((kind, PLACE_BUCKETS * j // max(n, 1), place))
    return out


def content_sets(sentences: Sequence[Sequence[str]]) -> list[set[str]]:
    """The content words of each sentence (:func:`~c2fsum.metrics.output_stats.is_content_word`)."""
    return [{w for w in s if is_content_word(w)} for s in sentences]


def word_sets(sentences: Sequence[Sequence[str]]) -> list[set[str]]:
    """The words of each sentence as a reader counts them: its tokens holding a letter, lowercased
    (what issue 47's overlap target counts, ``bench/summary_overlap.py``)."""
    return [{w.lower() for w in s if any(c.isalpha() for c in w)} for s in sentences]


def content_matrix(papers: Sequence[Sequence[set[str]]], S: int) -> Tensor:
    """``(B, S+1, U)`` 0/1: row ``j + 1`` marks the content words of sentence ``j`` of each paper
    among the paper's U words (STOP's row and padding are empty)."""
    index = [{w: k for k, w in enumerate(sorted(set().union(*p)))} if p else {} for p in papers]
    U = max(1, max(len(i) for i in index))
    out = torch.zeros(len(papers), S + 1, U)
    for b, (p, idx) in enumerate(zip(papers, index, strict=True)):
        for j, words in enumerate(p[:S]):
            if words:
                out[b, j + 1, [idx[w] for w in words]] = 1.0
    return out


@dataclass
class WordSets:
    """Each candidate's set of words, for the overlap rule: a sparse 0/1 matrix ``(B*(S+1), W)``
    (row ``b*(S+1) + k`` is candidate k of paper b, STOP's row and padding empty; each paper's words
    in columns of their own), its rows' columns as ``crow`` ``(B*(S+1)+1,)`` and ``col`` ``(nnz,)``
    (row r's are ``col[crow[r]:crow[r+1]]``), and ``sizes`` ``(B, S+1)`` the sets' sizes. Sparse
    because a 100,000-word paper's dense ``(S+1, U)`` matrix took 150-200 MB per kind of words."""

    matrix: Tensor
    crow: Tensor
    col: Tensor
    sizes: Tensor

    @classmethod
    def of(cls, papers: Sequence[Sequence[set[str]]], S: int, device: torch.device | str = "cpu") -> WordSets:
        """The word sets of each paper's first ``S`` sentences (:func:`content_sets`, :func:`word_sets`)."""
        crow, cols = [0], []
        sizes = torch.zeros(len(papers), S + 1)
        base = 0
        for b, paper in enumerate(papers):
            index: dict[str, int] = {}
            crow.append(crow[-1])  # STOP
            for j in range(S):
                words = paper[j] if j < len(paper) else set()
                cols.extend(sorted(base + index.setdefault(w, len(index)) for w in words))
                crow.append(len(cols))
                sizes[b, j + 1] = len(words)
            base += len(index)
        crow_t, col_t = torch.tensor(crow, dtype=torch.long), torch.tensor(cols, dtype=torch.long)
        row_t = torch.repeat_interleave(torch.arange(len(crow) - 1), crow_t.diff())
        size = (len(papers) * (S + 1), max(base, 1))
        matrix = torch.sparse_coo_tensor(
            torch.stack([row_t, col_t]), torch.ones(len(cols)), size, is_coalesced=True, check_invariants=True
        )
        return cls(matrix=matrix.to(device), crow=crow_t, col=col_t, sizes=sizes.to(device))

    def shared(self, j: Tensor) -> Tensor:
        """``(B, S+1)``: the words each candidate shares with candidate ``j`` ``(B,)`` of its paper,
        over the smaller of the two sets (1: one says all the other says)."""
        B, S1 = self.sizes.shape
        rows = (torch.arange(B) * S1 + j.cpu()).tolist()
        cols = torch.cat([self.col[self.crow[r] : self.crow[r + 1]] for r in rows])  # each paper's are its own
        picked = torch.zeros(self.matrix.size(1), 1, device=self.sizes.device)
        picked[cols.to(picked.device)] = 1.0
        shared = torch.sparse.mm(self.matrix, picked).view(B, S1)
        least = torch.minimum(self.sizes, self.sizes.gather(1, j.view(-1, 1))).clamp(min=1)
        return shared / least


# -- sentences and labels (plain lists) ---------------------------------------------------------
def sentence_spans(tokens: Sequence[T_], end: T_, skip: frozenset | set = frozenset()) -> list[list[int]]:
    """The positions of each sentence of a prepared document's cells: each ends after an ``end``
    (``</s>``), a trailing piece without one is a sentence too; ``skip`` cells (``<pad>`` of
    sentence chunking) belong to none.

    >>> sentence_spans("a b </s> <pad> c </s> d".split(), "</s>", {"<pad>"})
    [[0, 1, 2], [4, 5], [6]]
    """
    kept = [i for i, t in enumerate(tokens) if t not in skip] if skip else list(range(len(tokens)))
    cuts = [k + 1 for k, i in enumerate(kept) if tokens[i] == end]  # each sentence ends after its `end`
    starts = [0, *cuts]
    return [kept[a:b] for a, b in zip(starts, [*cuts, len(kept)], strict=True) if a < b]


def split_sentences(tokens: Sequence[T_], end: T_, skip: frozenset | set = frozenset()) -> list[list[T_]]:
    """Cut a prepared document's cells into its sentences (:func:`sentence_spans`). The same function
    cuts words (``end="</s>"``) and ids (``end=eos_id``), so the labels made from words and the
    sentence grid made from ids count the same sentences.

    >>> split_sentences("a b </s> c </s> d".split(), "</s>")
    [['a', 'b', '</s>'], ['c', '</s>'], ['d']]
    """
    return [[tokens[i] for i in span] for span in sentence_spans(tokens, end, skip)]


def document_sentences(example: Example) -> list[list[str]]:
    """The sentences of the grid the example was encoded on (its cells cut after each ``</s>``)."""
    return split_sentences(example.words, EOS, frozenset({PAD}))


def selection_labels(
    document: Sequence[Sequence[str]], summary: Sequence[Sequence[str]], *, min_recall: float = MIN_RECALL
) -> list[int]:
    """What the selector learns to pick: for each summary sentence in order, the document sentence
    of highest ROUGE-L recall (:func:`c2fsum.data.align.align`, each sentence at most once), left
    out when that recall is below ``min_recall`` or nothing matches. STOP is not in the list (the
    model appends it).

    >>> selection_labels([["the", "cat", "sat"], ["a", "dog", "ran"]], [["dog", "ran"], ["cat"]])
    [1, 0]
    """
    return [a.source for a in align(document, summary) if a.source >= 0 and a.recall >= min_recall]


def sentence_words(sentence: Sequence[T_], marks: frozenset | set) -> int:
    """Words of a sentence as a length budget counts them: its tokens but the sentence marks."""
    return sum(1 for t in sentence if t not in marks)


# -- rewards (plain lists) ----------------------------------------------------------------------
def rouge1_gains(sentences: Sequence[Sequence[str]], picks: Sequence[int], reference: Sequence[str]) -> list[float]:
    """The reward of each pick and of the stop, for REINFORCE.

    Pick t earns the gain in ROUGE-1 recall of the reference (content words, clipped counts) from
    adding sentence ``picks[t]`` to those picked before; the stop earns the ROUGE-1 F1 of the whole
    selection against the reference (Chen & Bansal's stop reward), so a selection that piles up
    sentences for recall pays for it in precision at the end. Returns ``len(picks) + 1`` floats.

    >>> [round(r, 3) for r in rouge1_gains([["a", "b"], ["c"], ["a"]], [0, 2], ["a", "b", "c", "d"])]
    [0.5, 0.0, 0.571]
    """
    ref = Counter(content(reference))
    total = sum(ref.values())
    have: Counter[str] = Counter()
    matched, words, out = 0, 0, []
    for j in picks:
        sent = content(sentences[j])
        words += len(sent)
        before = matched
        have.update(sent)
        matched = sum(min(n, have[w]) for w, n in ref.items())
        out.append((matched - before) / total if total else 0.0)
    recall = matched / total if total else 0.0
    precision = matched / words if words else 0.0
    out.append(2 * recall * precision / (recall + precision) if recall + precision > 0 else 0.0)
    return out


# -- tensors ------------------------------------------------------------------------------------
@dataclass
class Sentences:
    """A batch of papers as sentences.

    Attributes:
        ids: ``(B, S, L)`` vocabulary ids of each sentence's first :data:`SENTENCE_WORDS` tokens, 0 on padding.
        mask: ``(B, S, L)`` bool, True on real tokens.
        words: ``(B, S)`` long: each sentence's whole length in words (sentence marks not counted), 0 on padding.
        real: ``(B, S)`` bool: a sentence holding at least one word.
    """

    ids: Tensor
    mask: Tensor
    words: Tensor
    real: Tensor


def sentence_grid(
    src: Tensor, src_mask: Tensor, *, eos_id: int, bos_id: int, max_words: int = SENTENCE_WORDS
) -> Sentences:
    """Cut each paper of a grid ``(B, M, N)`` into its sentences (:func:`split_sentences` on ids)."""
    docs = []
    for b in range(src.size(0)):
        flat = src[b][src_mask[b]].tolist()
        docs.append(split_sentences(flat, eos_id))
    B = len(docs)
    S = max(1, max(len(d) for d in docs))
    L = max(1, min(max_words, max((len(s) for d in docs for s in d), default=1)))
    ids = torch.zeros(B, S, L, dtype=torch.long)
    words = torch.zeros(B, S, dtype=torch.long)
    marks = {eos_id, bos_id}
    for b, d in enumerate(docs):
        for j, s in enumerate(d):
            cut = s[:L]
            ids[b, j, : len(cut)] = torch.tensor(cut, dtype=torch.long)
            words[b, j] = sentence_words(s, marks)
    device = src.device
    ids = ids.to(device)
    words = words.to(device)
    return Sentences(ids=ids, mask=ids != 0, words=words, real=words > 0)


@dataclass
class SelectorMemory:
    """What the selector read, fixed while it picks.

    Attributes:
        keys: ``(B, S+1, H)`` candidates: STOP, then the sentences' states h_j.
        glimpse_keys: ``(B, S+1, A)`` W_g1 k_j; pointer_keys: ``(B, S+1, A)`` W_p1 k_j.
        real: ``(B, S+1)`` bool: STOP and the real sentences.
        words: ``(B, S)`` each sentence's length in words.
        state: the decoder's first ``(h, c)``, each ``(layers, B, H)``.
        content: ``(B, S+1, U)`` 0/1, each candidate's content words (:func:`content_matrix`), for
            the extraction history (``selector_features=history``), else None.
        said: at decoding (the papers' words given), each candidate's content words and, with
            :data:`OVERLAP_WORDS`, all its words, as :class:`WordSets` (the overlap rule).
    """

    keys: Tensor
    glimpse_keys: Tensor
    pointer_keys: Tensor
    real: Tensor
    words: Tensor
    state: tuple[Tensor, Tensor]
    content: Tensor | None = None
    said: tuple[WordSets, ...] = ()

    def coverage(self, have: Tensor) -> Tensor:
        """``(B, T, S+1)``: the share of each candidate's content words among ``have`` ``(B, T, U)``
        (0/1, the words the picks before each step hold); 0 for STOP and empty sentences."""
        assert self.content is not None
        sizes = self.content.sum(-1).clamp(min=1)  # (B, S+1)
        return (have @ self.content.transpose(1, 2)) / sizes.unsqueeze(1)

    def overlap(self, j: Tensor) -> Tensor:
        """``(B, S+1)``: the words each candidate shares with candidate ``j`` ``(B,)``, over the
        smaller of the two sentences' (1: one says all the other says): the largest such share over
        the kinds of words in ``said`` (content words; all words)."""
        assert self.said, "the overlap rule reads the papers' words: read(sents, examples) in eval mode"
        out = self.said[0].shared(j)
        for more in self.said[1:]:
            out = torch.maximum(out, more.shared(j))
        return out


@dataclass
class PickRules:
    """What decoding allows beyond the budget (:func:`c2fsum.decoding.selection.pick_rules`).

    Attributes:
        blocked: ``(B, S+1)`` bool: sentences never picked (they point elsewhere or report earlier work).
        antecedent: ``(B, S+1)`` long: the candidate a sentence refers back to ("These results ..."),
            picked with it, just before it, when not picked already; -1: none.
        max_overlap: a sentence sharing more than this share of its content words with a pick (of
            the smaller sentence's) is not picked (1.0: no rule; needs ``SelectorMemory.said``).
    """

    blocked: Tensor
    antecedent: Tensor
    max_overlap: float = 1.0


@dataclass
class Selection:
    """Picks of a batch, step by step.

    Attributes:
        picks: per paper, the picked sentence indices in order (STOP not included).
        logprob: ``(B, T)`` log p of each pick and of the stop (0 after the stop).
        mask: ``(B, T)`` bool: the real steps (the picks and the stop, if reached).
        stopped: per paper, whether it chose STOP (False: the budget or the sentences ran out).
    """

    picks: list[list[int]]
    logprob: Tensor
    mask: Tensor
    stopped: list[bool]


# -- the model -----------------------------------------------------------------------------------
class SelectionLoss(NamedTuple):
    """What :meth:`SentenceSelector.selection_loss` returns for a batch."""

    loss: Tensor
    """The training loss, summed over the batch."""
    nll: Tensor
    """Its cross-entropy part: -log p of the labelled picks, summed."""
    labels: int
    """How many labelled picks (and STOPs) the cross-entropy sums over."""
    rewards: tuple[float, float] | None
    """With REINFORCE: the mean return of the sampled and of the greedy selections; else None."""


class SentenceSelector(Summarizer):
    """The coarse level of sentence-level coarse-to-fine: picks sentences, or STOP (module docstring).

    ``model.*`` fields it reads: ``emb_dim``, ``hidden`` (H), ``enc_layers`` (of the sentence-level
    BiLSTM), ``dec_layers``, ``dropout``, ``init_range``, ``chunk_encoder`` (cnn/bow),
    ``chunk_filters``, ``chunk_width``, ``pos_dim`` (+POS: the sentence's index), ``pretrained_emb``
    (through the trainer: the word embedding and a BOW encoder's fixed table).
    """

    def __init__(self, cfg: ModelConfig, vocab_size: int, max_chunks: int = 10):
        """``max_chunks`` is unused (sentence positions: ``UNBOUNDED_POSITIONS`` rows, chunk_encoders)."""
        super().__init__()
        if cfg.hidden % 2:
            raise ValueError(f"model.hidden: the selector's BiLSTM needs an even size, got {cfg.hidden}")
        self.vocab_size = vocab_size
        self.hidden = H = cfg.hidden
        self.capabilities = Capabilities(selects=True)
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
        self.features = {f.strip() for f in cfg.selector_features.split(",") if f.strip()}
        if self.features - FEATURES:
            raise ValueError(
                f"model.selector_features: unknown {sorted(self.features - FEATURES)}, "
                f"expected some of {sorted(FEATURES)}"
            )
        if "sections" in self.features:  # added to each h_j (zero at first: a warm start reads as before)
            self.section_emb = nn.Embedding(len(SECTION_KINDS), H)
            self.place_emb = nn.Embedding(PLACE_BUCKETS, H)
            self.inner_emb = nn.Embedding(4, H)
        if "history" in self.features:  # score += w . [c, c^2] (c: share already picked); STOP's += v . [f, f^2]
            self.history_w = nn.Parameter(torch.zeros(2))
            self.stop_w = nn.Parameter(torch.zeros(2))
        init_uniform(self, cfg.init_range)
        with torch.no_grad():
            self.src_emb.weight[self.pad_id].zero_()
            for name in self.NEW_WEIGHTS:
                weight = getattr(self, name, None)
                if isinstance(weight, nn.Embedding):
                    weight.weight.zero_()
                elif weight is not None:
                    weight.zero_()
        if cfg.selector_labels not in LABELS:
            raise ValueError(f"model.selector_labels: got {cfg.selector_labels!r}, expected one of {', '.join(LABELS)}")
        self.label_kind, self.label_words = cfg.selector_labels, cfg.selector_label_words
        self._labels: dict[tuple, list[list[int]]] = {}

    NEW_WEIGHTS = ("section_emb", "place_emb", "inner_emb", "history_w", "stop_w")
    """Weights of ``model.selector_features``: zero at first, so a selector trained without them
    starts from its own picks (``train.init_from``, :func:`c2fsum.models.checkpoint.warm_start`)."""

    @property
    def tgt_emb(self) -> nn.Embedding:
        """The one word embedding (the trainer fills ``src_emb`` and ``tgt_emb`` from ``c2fsum vectors``)."""
        return self.src_emb

    # -- reading --------------------------------------------------------------------------------
    def sentences(self, src: Tensor, src_mask: Tensor) -> Sentences:
        """The grid ``(B, M, N)`` as sentences (:func:`sentence_grid`)."""
        return sentence_grid(src, src_mask, eos_id=self.eos_id, bos_id=self.bos_id)

    def sentence_vectors(self, sents: Sentences) -> Tensor:
        """``(B, S, L)`` -> ``(B, S, Hc)``: the chunk encoder over the real sentences only, in groups
        of :data:`SENTENCE_GROUP` of similar length (a batch's (B, S, L) grid is mostly padding:
        papers of fewer sentences, sentences shorter than the longest), then +POS, the
        sentence's index in its paper; zero for padding."""
        B, S, L = sents.ids.shape
        ids, mask = sents.ids.view(B * S, L), sents.mask.view(B * S, L)
        n_words = mask.sum(1)  # (B*S,)
        rows = sents.real.view(-1).nonzero().squeeze(1)
        rows = rows[n_words[rows].argsort(stable=True)]  # by length
        encoder = self.chunk_encoder
        dim = cast(int, encoder.body.out_dim)
        out = torch.zeros(B * S, dim, device=ids.device, dtype=self.src_emb.weight.dtype)
        for part in rows.split(SENTENCE_GROUP):
            width = int(n_words[part].max())
            i, m = ids[part, :width].unsqueeze(0), mask[part, :width].unsqueeze(0)  # (1, P, width)
            emb = self.src_emb(i) if encoder.kind == "cnn" else None  # (1, P, width, E)
            out = out.index_copy(0, part, encoder._body(i, emb, m)[0].to(out.dtype))  # (P, Hc); autocast gives bf16
        h = out.view(B, S, -1)
        if encoder.pos is not None:  # +POS: the sentence's index (the last row for sentences past the table)
            index = torch.arange(S, device=ids.device).clamp(max=encoder.positions - 1)
            h = torch.cat([h, encoder.pos(index).unsqueeze(0).expand(B, S, -1)], -1)
        return h

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
            if "history" in self.features:
                content = content_matrix([content_sets(p) for p in papers], S).to(h.device)
            if not self.training:  # decoding's overlap rule
                kinds = (content_sets, word_sets) if OVERLAP_WORDS else (content_sets,)
                said = tuple(WordSets.of([kind(p) for p in papers], S, h.device) for kind in kinds)
            if "sections" in self.features:
                places = torch.zeros(B, S, 3, dtype=torch.long)
                for b, (ex, p) in enumerate(zip(examples, papers, strict=True)):
                    rows = sentence_places(len(p), ex.sections)[:S]
                    if rows:
                        places[b, : len(rows)] = torch.tensor(rows, dtype=torch.long)
                places = places.to(h.device)
                kind, place, inner = places.unbind(-1)
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

    def uses_history(self, memory: SelectorMemory) -> bool:
        """Whether the pointer reads the extraction history (and the papers' words were given)."""
        return "history" in self.features and memory.content is not None

    def pick_logprobs(self, memory: SelectorMemory, labels: Tensor) -> Tensor:
        """Log-probabilities ``(B, T, S+1)`` of every step given the labels ``(B, T)`` (candidate
        indices, STOP last, -1 on padding): step t sees the labels before it picked and may pick
        neither them nor padding."""
        B, T = labels.shape
        previous = torch.cat([labels.new_full((B, 1), -1), labels[:, :-1]], 1)  # (B, T)
        picked = F.one_hot(labels.clamp(min=0), memory.keys.size(1)) * (labels >= 0).unsqueeze(-1)  # (B, T, S+1)
        before = (picked.cumsum(1) - picked) > 0  # picked at an earlier step
        before[..., STOP] = False
        allowed = memory.real.unsqueeze(1) & ~before
        history = None
        if self.uses_history(memory):
            assert memory.content is not None
            have = ((before.to(memory.content.dtype) @ memory.content) > 0).to(memory.content.dtype)  # (B, T, U)
            words = torch.cat([memory.words.new_zeros(B, 1), memory.words], 1)  # (B, S+1)
            used = (before.to(words.dtype) * words.unsqueeze(1)).sum(-1)  # (B, T)
            history = (memory.coverage(have), used)
        lp, _ = self.steps(memory, previous, allowed, history=history)
        return lp

    @torch.no_grad()
    def greedy(self, memory: SelectorMemory, **kw) -> Selection:
        """The most probable pick at each step (:meth:`pick`)."""
        return self.pick(memory, sample=False, **kw)

    def pick(
        self,
        memory: SelectorMemory,
        *,
        sample: bool = False,
        max_words: int = 0,
        min_words: int = 0,
        max_picks: int = 0,
        rules: PickRules | None = None,
    ) -> Selection:
        """Pick sentences one at a time until STOP, the budget or the sentences run out.

        ``max_words`` > 0: only sentences that fit what is left of the budget may be picked (and
        none fits: stop). ``min_words``: STOP is not allowed before the picks hold that many words
        (while a sentence still fits). ``max_picks`` > 0: stop after that many. ``sample``: draw
        from the policy (REINFORCE) instead of its argmax. ``rules`` (decoding, :class:`PickRules`):
        sentences never picked, sentences picked with the one they refer back to (it goes into
        ``picks`` just before them, and its words count), no pick repeating another.
        """
        B, S1 = memory.real.shape
        device = memory.keys.device
        words = torch.cat([torch.zeros(B, 1, dtype=torch.long, device=device), memory.words], 1)  # (B, S+1)
        taken = torch.zeros(B, S1, dtype=torch.bool, device=device)
        used = torch.zeros(B, dtype=torch.long, device=device)
        done = torch.zeros(B, dtype=torch.bool, device=device)
        previous = torch.full((B, 1), -1, dtype=torch.long, device=device)
        history = self.uses_history(memory)
        have = memory.content.new_zeros(B, memory.content.size(-1)) if memory.content is not None else None  # (B, U)
        overlap = torch.zeros(B, S1, device=device)  # the most each candidate shares with a pick
        state = memory.state
        picks: list[list[int]] = [[] for _ in range(B)]
        stopped = [False] * B
        lps, masks = [], []
        limit = max_picks if max_picks > 0 else S1 - 1
        rows = torch.arange(B, device=device)
        for step in range(limit + 1):
            allowed = memory.real & ~taken
            allowed[:, STOP] = False
            need = words
            if rules is not None:
                allowed &= ~rules.blocked & (overlap <= rules.max_overlap)
                ante = rules.antecedent.clamp(min=0)
                bring = (rules.antecedent >= 0) & ~taken.gather(1, ante)  # (B, S+1): comes with its antecedent
                need = words + torch.where(bring, words.gather(1, ante), 0)
                allowed &= ~bring | ((overlap.gather(1, ante) <= rules.max_overlap) & ~rules.blocked.gather(1, ante))
            if max_words > 0:
                allowed &= need <= (max_words - used).unsqueeze(1)
            can_pick = allowed.any(1)
            allowed[:, STOP] = ~can_pick | (used >= min_words)
            if step == limit:  # the last step a row can reach: only STOP
                allowed[:, 1:] = False
                allowed[:, STOP] = True
            seen = None
            if history:
                assert have is not None
                seen = (memory.coverage(have.unsqueeze(1)), used.unsqueeze(1))
            lp, state = self.steps(memory, previous, allowed.unsqueeze(1), state, seen)
            lp = lp.squeeze(1)  # (B, S+1)
            choice = torch.multinomial(lp.exp(), 1).squeeze(1) if sample else lp.argmax(-1)  # (B,)
            choice = choice.masked_fill(done, STOP)
            lps.append(lp.gather(1, choice.unsqueeze(1)).squeeze(1).masked_fill(done, 0.0))
            masks.append(~done)
            chosen = [choice]
            if rules is not None:  # the antecedent a choice brings, picked first
                a = rules.antecedent.gather(1, choice.unsqueeze(1)).squeeze(1)
                brought = (a >= 0) & ~taken.gather(1, a.clamp(min=0).unsqueeze(1)).squeeze(1) & (choice != STOP) & ~done
                chosen = [torch.where(brought, a, -1), choice]
            for b in range(B):
                if done[b]:
                    continue
                if int(choice[b]) == STOP:
                    stopped[b] = bool(can_pick[b])
                    continue
                picks[b].extend(int(x[b]) - 1 for x in chosen if int(x[b]) > 0)
            for pick in chosen:
                real = (pick > 0) & ~done
                idx = pick.clamp(min=0)
                taken[rows[real], idx[real]] = True
                used = used + torch.where(real, words.gather(1, idx.unsqueeze(1)).squeeze(1), 0)
                if memory.content is not None and have is not None:
                    row = memory.content[rows, idx]  # (B, U)
                    have = torch.where(real.unsqueeze(1), torch.maximum(have, row), have)
                if rules is not None and rules.max_overlap < 1.0 and memory.said and bool(real.any()):
                    overlap = torch.where(real.unsqueeze(1), torch.maximum(overlap, memory.overlap(idx)), overlap)
            done = done | (choice == STOP)
            previous = choice.unsqueeze(1)
            if bool(done.all()):
                break
        return Selection(picks=picks, logprob=torch.stack(lps, 1), mask=torch.stack(masks, 1), stopped=stopped)

    # -- training -------------------------------------------------------------------------------
    def labels(self, examples: Sequence[Example]) -> list[list[int]]:
        """Each example's picks to learn (computed once per example and kept): its
        :func:`selection_labels` (``align``), or one of its :func:`oracle_episodes` (``episodes``:
        drawn with torch's generator in training mode, the best one in eval mode)."""
        out = []
        for ex in examples:
            key = (ex.id, len(ex.words), len(ex.refs), sum(len(r) for r in ex.refs))
            if key not in self._labels:
                doc = document_sentences(ex)
                if self.label_kind == "episodes":
                    size = [sentence_words(s, {EOS, BOS}) for s in doc]
                    eps = oracle_episodes(doc, ex.refs, budget=self.label_words, beam=EPISODES, lengths=size)
                    self._labels[key] = [list(e.picks) for e in eps] or [[]]
                else:
                    self._labels[key] = [selection_labels(doc, ex.refs)]
            choices = self._labels[key]
            i = int(torch.randint(len(choices), ())) if self.training and len(choices) > 1 else 0
            out.append(choices[i])
        return out

    def label_tensor(self, examples: Sequence[Example], device: torch.device | str = "cpu") -> Tensor:
        """``(B, T)`` candidate indices: the labels (sentence j as j + 1), STOP, then -1."""
        rows = [[j + 1 for j in lab] + [STOP] for lab in self.labels(examples)]
        T = max(len(r) for r in rows)
        out = torch.full((len(rows), T), -1, dtype=torch.long)
        for b, r in enumerate(rows):
            out[b, : len(r)] = torch.tensor(r, dtype=torch.long)
        return out.to(device)

    def selection_nll(self, src: Tensor, src_mask: Tensor, examples: Sequence[Example]) -> tuple[Tensor, int]:
        """Summed cross-entropy of the labels' picks and stops over a batch, and their number."""
        memory = self.read(self.sentences(src, src_mask), examples)
        labels = self.label_tensor(examples, src.device)  # (B, T)
        labels = labels.masked_fill(labels > memory.keys.size(1) - 1, -1)  # a label cut off with the grid
        lp = self.pick_logprobs(memory, labels)  # (B, T, S+1)
        real = labels >= 0
        picked = lp.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)  # (B, T)
        return -(picked.masked_fill(~real, 0.0)).sum(), int(real.sum())

    def reinforce(
        self,
        src: Tensor,
        src_mask: Tensor,
        examples: Sequence[Example],
        *,
        gamma: float = 0.95,
        max_words: int = RL_WORDS,
        min_words: int = RL_MIN_WORDS,
        baseline: bool = True,
    ) -> tuple[Tensor, Tensor, Tensor]:
        """Self-critical REINFORCE over the picks (summed over the batch) and the mean return of the
        sampled and of the greedy selections.

        A selection is drawn from the policy (training mode); each pick earns its ROUGE-1 recall gain
        and the stop the selection's ROUGE-1 F1 (:func:`rouge1_gains`); R_t = sum_{s>=t} gamma^(s-t) r_s;
        the baseline of step t is the greedy selection's R_t (0 past its end), which does not depend
        on the drawn picks, so the gradient stays unbiased (``baseline=False``: none, plain
        REINFORCE; ``bench/select_reinforce_variance.py`` compares the two). ``max_words``: the
        selections' word budget (0: none); ``min_words``: no STOP before that many words, as
        decoding's ``min_len`` (a greedy selection that stops at once is a baseline of 0).
        """
        memory = self.read(self.sentences(src, src_mask), examples)
        drawn = self.pick(memory, sample=True, max_words=max_words, min_words=min_words)
        was = self.training
        self.eval()
        with torch.no_grad():
            again = self.read(self.sentences(src, src_mask), examples)
            greedy = self.greedy(again, max_words=max_words, min_words=min_words)
        self.train(was)
        T = drawn.logprob.size(1)
        ret = discounted_returns(self.step_rewards(examples, drawn).to(src.device), drawn.mask, gamma)  # (B, T)
        base = discounted_returns(self.step_rewards(examples, greedy).to(src.device), greedy.mask, gamma)
        base = pad_steps(base, T) if baseline else torch.zeros_like(ret)  # the greedy selection's R_t, 0 past its end
        zero = torch.zeros(ret.size(1), device=src.device)
        loss = reinforce_loss(drawn.logprob, ret - base, zero, drawn.mask, 1.0)
        return loss, ret[:, 0].mean(), base[:, 0].mean()

    @staticmethod
    def step_rewards(examples: Sequence[Example], selection: Selection) -> Tensor:
        """``(B, T)`` the reward of each step of ``selection`` (:func:`rouge1_gains`: its picks, then
        its last step, the stop, chosen or forced by the budget), 0 past its end."""
        out = torch.zeros(selection.mask.shape)
        for b, ex in enumerate(examples):
            r = rouge1_gains(document_sentences(ex), selection.picks[b], ex.tgt_words)
            out[b, : len(r)] = torch.tensor(r)
        return out

    def selection_loss(
        self,
        src: Tensor,
        src_mask: Tensor,
        examples: Sequence[Example],
        *,
        rl_weight: float = 0.0,
        max_words: int = RL_WORDS,
    ) -> SelectionLoss:
        """The training loss summed over the batch: cross-entropy on the labels, mixed with
        self-critical REINFORCE when ``rl_weight`` > 0 (loss = rl_weight * L_rl + (1 - rl_weight) *
        L_ml, as Paulus eq. 16); with its cross-entropy part, the number of labels and, with
        REINFORCE, the mean return of the sampled and of the greedy selections (what the trainer logs
        as ``reward_sample`` and ``reward_greedy``)."""
        nll, n = self.selection_nll(src, src_mask, examples)
        if rl_weight <= 0:
            return SelectionLoss(nll, nll, n, None)
        rl, sampled, greedy = self.reinforce(src, src_mask, examples, max_words=max_words)
        return SelectionLoss(rl_weight * rl + (1 - rl_weight) * nll, nll, n, (float(sampled), float(greedy)))

    # -- the word-level seam does not apply ---------------------------------------------------------
    def forward(self, *args, **kwargs) -> ForwardOutput:
        raise TypeError(
            "SentenceSelector picks sentences, it writes no words: train it through selection_loss "
            "(the trainer does) and decode it with c2fsum.decoding.selection"
        )


def reverse_within(real: Tensor) -> Tensor:
    """``(B, S)`` indices that reverse each row's first n_b positions (n_b: up to its last real
    sentence) and leave the padding after them in place; its own inverse.

    >>> reverse_within(torch.tensor([[True, True, False, True, False]])).tolist()
    [[3, 2, 1, 0, 4]]
    """
    B, S = real.shape
    pos = torch.arange(S, device=real.device).expand(B, S)
    n = torch.where(real, pos + 1, 0).amax(1, keepdim=True)  # (B, 1): one past the last real sentence
    return torch.where(pos < n, n - 1 - pos, pos)


def gather_rows(x: Tensor, index: Tensor) -> Tensor:
    """``x`` ``(B, S, D)`` with its positions reordered by ``index`` ``(B, S)``."""
    return x.gather(1, index.unsqueeze(-1).expand(-1, -1, x.size(-1)))


def pad_steps(x: Tensor, T: int) -> Tensor:
    """``(B, T')`` -> ``(B, T)``: cut, or padded with zeros."""
    if x.size(1) >= T:
        return x[:, :T]
    return torch.cat([x, x.new_zeros(x.size(0), T - x.size(1))], 1)
