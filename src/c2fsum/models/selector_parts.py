"""The parts of a sentence selector (:mod:`c2fsum.models.select_rewrite`): a batch of papers as
sentences (:class:`Sentences`), what the selector read (:class:`SelectorMemory`), the word sets of
the overlap rule (:class:`WordSets`), the rules decoding adds (:class:`PickRules`), a batch's picks
(:class:`Selection`), the sentence features (sections, places, content words) and the one test of
a word budget (:func:`fits`).

Letters: B papers, S sentences (of the longest paper in the batch), L words per sentence (at most
:data:`SENTENCE_WORDS`), T picks (STOP included), H hidden size, A attention size (= H), U the
words of a paper.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypeVar, cast

import torch
from torch import Tensor, nn

from c2fsum.data.batching import Example
from c2fsum.data.sentences import opening_connective, sentence_words, split_sentences
from c2fsum.metrics.output_stats import is_content_word
from c2fsum.modules.chunk_encoders import ChunkEncoder

N_ = TypeVar("N_", int, Tensor)

STOP = 0
"""The candidate index of STOP; sentence ``j`` of the paper is candidate ``j + 1``."""


SENTENCE_WORDS = 80
"""Words of a sentence the sentence encoder reads (a longer one is cut for the encoder only; its
length for the word budget stays whole). SumPubMed sentences average about 25 tokens."""

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

FEATURES = frozenset({"sections", "history"})
"""The values ``model.selector_features`` may list."""


def selector_features(text: str) -> set[str]:
    """The features ``model.selector_features`` (comma-separated) names; ValueError for an unknown one."""
    features = {f.strip() for f in text.split(",") if f.strip()}
    if features - FEATURES:
        raise ValueError(
            f"model.selector_features: unknown {sorted(features - FEATURES)}, expected some of {sorted(FEATURES)}"
        )
    return features


PLACE_BUCKETS = 10
"""A sentence's place in its paper, in tenths (sentence positions past the position table's last
row, 100, are otherwise all one)."""


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
        return cls._built(crow_t, col_t, max(base, 1), sizes.to(device))

    @classmethod
    def _built(cls, crow: Tensor, col: Tensor, width: int, sizes: Tensor) -> WordSets:
        """The sets of rows ``crow``/``col`` (as the attributes) over ``width`` columns."""
        row = torch.repeat_interleave(torch.arange(len(crow) - 1), crow.diff())
        size = (len(crow) - 1, width)
        matrix = torch.sparse_coo_tensor(
            torch.stack([row, col]), torch.ones(len(col)), size, is_coalesced=True, check_invariants=True
        )
        return cls(matrix=matrix.to(sizes.device), crow=crow, col=col, sizes=sizes)

    def rows(self, papers: Tensor) -> WordSets:
        """The sets of papers ``papers`` ``(R,)`` (indices, repeats allowed: a paper once per
        selection a beam search keeps), each copy in columns of its own."""
        B, S1 = self.sizes.shape
        width = self.matrix.size(1)
        crow, cols = [0], []
        for n, b in enumerate(papers.tolist()):
            lo, hi = int(self.crow[b * S1]), int(self.crow[(b + 1) * S1])
            cols.append(self.col[lo:hi] + n * width)
            crow.extend((self.crow[b * S1 + 1 : (b + 1) * S1 + 1] - lo + crow[-1]).tolist())
        col = torch.cat(cols) if cols else torch.zeros(0, dtype=torch.long)
        return self._built(torch.tensor(crow, dtype=torch.long), col, width * max(len(papers), 1), self.sizes[papers])

    @classmethod
    def kinds(
        cls, papers: Sequence[Sequence[Sequence[str]]], S: int, device: torch.device | str, *, all_words: bool = True
    ) -> tuple[WordSets, ...]:
        """The word sets of the overlap rule: each sentence's content words (:func:`content_sets`)
        and, with ``all_words``, all its words (:func:`word_sets`); without an opening connective
        (:func:`~c2fsum.data.sentences.opening_connective`: a summary's first sentence is written
        without it, and a shorter sentence shares a larger part of itself)."""
        kinds = (content_sets, word_sets) if all_words else (content_sets,)
        papers = [[s[opening_connective(s) :] for s in p] for p in papers]  # as a summary writes them first
        return tuple(cls.of([kind(p) for p in papers], S, device) for kind in kinds)

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
    src: Tensor, src_mask: Tensor, *, eos_id: int, bos_id: int, read_len: int = SENTENCE_WORDS
) -> Sentences:
    """Cut each paper of a grid ``(B, M, N)`` into its sentences (:func:`split_sentences` on ids),
    each read up to ``read_len`` words."""
    docs = []
    for b in range(src.size(0)):
        flat = src[b][src_mask[b]].tolist()
        docs.append(split_sentences(flat, eos_id))
    B = len(docs)
    S = max(1, max(len(d) for d in docs))
    L = max(1, min(read_len, max((len(s) for d in docs for s in d), default=1)))
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
            :data:`~c2fsum.models.select_rewrite.OVERLAP_WORDS`, all its words, as :class:`WordSets` (the overlap rule).
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


class SelectionLoss(NamedTuple):
    """What :meth:`~c2fsum.models.select_rewrite.SentenceSelector.selection_loss` returns for a batch."""

    loss: Tensor
    """The training loss, summed over the batch."""
    nll: Tensor
    """Its cross-entropy part: -log p of the labelled picks, summed."""
    labels: int
    """How many labelled picks (and STOPs) the cross-entropy sums over."""
    rewards: tuple[float, float] | None
    """With REINFORCE: the mean return of the sampled and of the greedy selections; else None."""


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


def fits(used: N_, words: N_, budget: int) -> bool | N_:
    """Whether a sentence of ``words`` words fits a summary that holds ``used`` words within a
    budget of ``budget`` words (0: no budget): the one test of the picks (:meth:`PickState.allowed`,
    elementwise on tensors), of the summary (:func:`c2fsum.decoding.selection.compose`) and of the
    refill (:func:`c2fsum.decoding.selection.decode_selected`).

    >>> fits(200, 7, 207), fits(200, 8, 207), fits(10_000, 8, 0)
    (True, False, True)
    """
    return budget <= 0 or used + words <= budget


def place_grid(examples: Sequence[Example], papers: Sequence[Sequence[Sequence[str]]], S: int) -> Tensor:
    """``(B, S, 3)`` long: each sentence's :func:`sentence_places` (section kind, place in the paper,
    place in its section), 0 on padding."""
    places = torch.zeros(len(papers), S, 3, dtype=torch.long)
    for b, (ex, p) in enumerate(zip(examples, papers, strict=True)):
        rows = sentence_places(len(p), ex.sections)[:S]
        if rows:
            places[b, : len(rows)] = torch.tensor(rows, dtype=torch.long)
    return places


@dataclass
class PickState:
    """Where a batch's picking stands (:meth:`~c2fsum.models.select_rewrite.SentenceSelector.pick`).

    Attributes:
        words: ``(B, S+1)`` each candidate's words (STOP's 0).
        taken: ``(B, S+1)`` bool: picked already. used: ``(B,)`` the picks' words.
        done: ``(B,)`` bool: stopped. have: ``(B, U)`` the picks' content words (None without
            ``SelectorMemory.content``). overlap: ``(B, S+1)`` the most each candidate shares with a pick.
        picks, stopped: as :class:`Selection`'s.
    """

    words: Tensor
    taken: Tensor
    used: Tensor
    done: Tensor
    have: Tensor | None
    overlap: Tensor
    picks: list[list[int]]
    stopped: list[bool]

    @classmethod
    def start(cls, memory: SelectorMemory) -> PickState:
        """Nothing picked yet."""
        B, S1 = memory.real.shape
        device = memory.keys.device
        content = memory.content
        return cls(
            words=torch.cat([torch.zeros(B, 1, dtype=torch.long, device=device), memory.words], 1),
            taken=torch.zeros(B, S1, dtype=torch.bool, device=device),
            used=torch.zeros(B, dtype=torch.long, device=device),
            done=torch.zeros(B, dtype=torch.bool, device=device),
            have=content.new_zeros(B, content.size(-1)) if content is not None else None,
            overlap=torch.zeros(B, S1, device=device),
            picks=[[] for _ in range(B)],
            stopped=[False] * B,
        )

    def allowed(
        self, memory: SelectorMemory, rules: PickRules | None, summary_words: int, min_words: int
    ) -> tuple[Tensor, Tensor]:
        """``(B, S+1)`` the candidates the next step may pick: real sentences not taken, under the
        ``rules`` (a sentence that brings its antecedent needs room for both) and that :func:`fits`
        the summary's ``summary_words``; STOP once nothing fits or the picks hold ``min_words``.
        And ``(B,)`` whether a sentence may be picked."""
        allowed = memory.real & ~self.taken
        allowed[:, STOP] = False
        need = self.words
        if rules is not None:
            allowed &= ~rules.blocked & (self.overlap <= rules.max_overlap)
            ante = rules.antecedent.clamp(min=0)
            bring = (rules.antecedent >= 0) & ~self.taken.gather(1, ante)  # (B, S+1): comes with its antecedent
            need = self.words + torch.where(bring, self.words.gather(1, ante), 0)
            allowed &= ~bring | ((self.overlap.gather(1, ante) <= rules.max_overlap) & ~rules.blocked.gather(1, ante))
        allowed &= fits(self.used.unsqueeze(1), need, summary_words)
        can_pick = allowed.any(1)
        allowed[:, STOP] = ~can_pick | (self.used >= min_words)
        return allowed, can_pick

    def chosen(self, choice: Tensor, rules: PickRules | None) -> list[Tensor]:
        """The candidates a step's ``choice`` ``(B,)`` takes, in order: the antecedent it brings
        (-1: none), then itself."""
        if rules is None:
            return [choice]
        a = rules.antecedent.gather(1, choice.unsqueeze(1)).squeeze(1)
        taken = self.taken.gather(1, a.clamp(min=0).unsqueeze(1)).squeeze(1)
        brought = (a >= 0) & ~taken & (choice != STOP) & ~self.done
        return [torch.where(brought, a, -1), choice]

    def take(self, memory: SelectorMemory, choice: Tensor, can_pick: Tensor, rules: PickRules | None) -> None:
        """Record a step's ``choice`` ``(B,)``: its picks (:meth:`chosen`) and their words, content
        words and overlap; a STOP while a sentence could still be picked (``can_pick``) is a stop."""
        chosen = self.chosen(choice, rules)
        for b in range(len(self.picks)):
            if self.done[b]:
                continue
            if int(choice[b]) == STOP:
                self.stopped[b] = bool(can_pick[b])
                continue
            self.picks[b].extend(int(x[b]) - 1 for x in chosen if int(x[b]) > 0)
        rows = torch.arange(len(self.picks), device=choice.device)
        for pick in chosen:
            real = (pick > 0) & ~self.done
            idx = pick.clamp(min=0)
            self.taken[rows[real], idx[real]] = True
            self.used = self.used + torch.where(real, self.words.gather(1, idx.unsqueeze(1)).squeeze(1), 0)
            if memory.content is not None and self.have is not None:
                row = memory.content[rows, idx]  # (B, U)
                self.have = torch.where(real.unsqueeze(1), torch.maximum(self.have, row), self.have)
            if rules is not None and rules.max_overlap < 1.0 and memory.said and bool(real.any()):
                self.overlap = torch.where(
                    real.unsqueeze(1), torch.maximum(self.overlap, memory.overlap(idx)), self.overlap
                )
        self.done = self.done | (choice == STOP)


def zero_weights(module: nn.Module, names: Sequence[str]) -> None:
    """Zero the weights ``names`` of ``module`` that it has (an embedding's table, a parameter)."""
    with torch.no_grad():
        for name in names:
            weight = getattr(module, name, None)
            if isinstance(weight, nn.Embedding):
                weight.weight.zero_()
            elif weight is not None:
                weight.zero_()


def sentence_vectors(encoder: ChunkEncoder, embed: nn.Embedding, sents: Sentences, *, group: int) -> Tensor:
    """``(B, S, L)`` -> ``(B, S, Hc)``: the chunk encoder over the real sentences only, in groups
    of ``group`` of similar length (a batch's (B, S, L) grid is mostly padding:
    papers of fewer sentences, sentences shorter than the longest), then +POS, the
    sentence's index in its paper; zero for padding."""
    B, S, L = sents.ids.shape
    ids, mask = sents.ids.view(B * S, L), sents.mask.view(B * S, L)
    n_words = mask.sum(1)  # (B*S,)
    rows = sents.real.view(-1).nonzero().squeeze(1)
    rows = rows[n_words[rows].argsort(stable=True)]  # by length
    dim = cast(int, encoder.body.out_dim)
    out = torch.zeros(B * S, dim, device=ids.device, dtype=embed.weight.dtype)
    for part in rows.split(group):
        width = int(n_words[part].max())
        i, m = ids[part, :width].unsqueeze(0), mask[part, :width].unsqueeze(0)  # (1, P, width)
        emb = embed(i) if encoder.kind == "cnn" else None  # (1, P, width, E)
        out = out.index_copy(0, part, encoder.encode_chunks(i, emb, m)[0].to(out.dtype))  # (P, Hc); autocast gives bf16
    h = out.view(B, S, -1)
    if encoder.pos is not None:  # +POS: the sentence's index (the last row for sentences past the table)
        index = torch.arange(S, device=ids.device).clamp(max=encoder.positions - 1)
        h = torch.cat([h, encoder.pos(index).unsqueeze(0).expand(B, S, -1)], -1)
    return h
