"""The seam every summarizer plugs into: encode once, then decode step by step.

Letters in shapes: B batch (or batch x beam), M chunks, N words per chunk, H hidden size,
L decoder layers, V vocabulary, V' = V + the largest number of document-only words in the
batch (extended vocabulary of a pointer model; V' = V for models that cannot copy).

Decoding code (greedy, beam search, sampling) only uses :class:`Summarizer` methods
``encode`` (given how to read, a :class:`Reading`), ``init_state`` and ``step``, the ``select``
methods of :class:`Memory` and :class:`DecoderState`, and what the model declares it can do
(:class:`Capabilities`), so every model family (MODEL 0-3, pointer models) shares it.

A sentence selector (``select-rewrite``) writes no words: it is a :class:`Selector`, not a
:class:`Summarizer`, with its own small seam (read the paper's sentences, pick, its loss), decoded
by :mod:`c2fsum.decoding.selection`. Both are a :class:`ModelBase` (what training, validation,
perplexity and checkpoints need of any model); :data:`Model` is either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import TypeAlias

import torch
from torch import Tensor, nn

from c2fsum.data.batching import Batch, Example
from c2fsum.losses.nll import loss_target, sequence_nll
from c2fsum.models.chunk_cache import ChunkCache
from c2fsum.models.selector_parts import PickRules, Selection, SelectionLoss, SelectorMemory, Sentences
from c2fsum.modules.attention import Attention


@dataclass(frozen=True)
class Capabilities:
    """What a model can do, declared by the model; decoding and training read it (never probe
    the model's attributes)."""

    copies: bool = False
    """Pointer model: log-probabilities over V' and targets in the extended vocabulary."""
    hierarchical: bool = False
    """Coarse attention over chunks: ``attention.coarse`` of :class:`StepOutput` and
    :class:`ForwardOutput` is set."""
    hard: bool = False
    """Hard coarse attention (MODEL 3): ``ForwardOutput.attention.policy`` in training (REINFORCE), and a
    training batch may attend softly (+PRETRAIN, +ALTERNATE; ``Reading.soft``);
    decoding says how many chunks it reads per step through the :class:`Reading` it encodes with."""
    lazy: bool = False
    """May encode lazily: ``Memory.lazy`` holds the word states of the chunks read so far."""
    memory_per_document: bool = False
    """Decoder rows may share their document's memory row (``B * R`` rows against ``B``): beam
    search then never copies the memory K times."""


@dataclass(frozen=True)
class Reading:
    """How one batch is read: what the caller of :meth:`Summarizer.encode` (or ``forward``) asks
    for, resolved once there by the model and carried on the :class:`Memory` (``memory.reading``),
    so every step of that memory reads alike and one model object serves callers that read
    differently at the same time. Only a model with hard coarse attention (MODEL 3) has a choice;
    the others read every word whatever is asked.
    """

    chunks: int = 1
    """Chunks read per decoder step at test time (``decode.read_chunks``; 1 = the thesis's argmax)."""
    budget: float = 1.0
    """The share of a document's words read at the word level after which steps choose only among
    chunks already read (``decode.read_budget``; 1 = no limit; at test time, lazily, only)."""
    lazy: bool = True
    """Encode lazily where the model can (False: the eager path, the same outputs, to compare)."""
    soft: bool = False
    """A hard model in training mode attends softly: one +PRETRAIN or +ALTERNATE soft training
    batch of the thesis (no effect in eval mode: validation and decoding read by argmax)."""
    sparse: bool = True
    """Lazy step attention may come back as a sparse COO tensor holding the chosen chunks only
    (teacher forcing asks for dense attention: False); resolved: whether it does."""

    # -- set by the model at encode time (from the above, its family and training mode) --
    mode: str = ""
    """``soft``, ``sample`` (hard, training) or ``argmax`` (hard, test); empty for flat attention."""
    samples: int = 1
    """+MULTI k: chunks drawn per step in training (``model.samples``)."""


DEFAULT_READING = Reading()
"""One chunk per step, no budget, lazily where the model can: how a batch is read unless asked otherwise."""


class BatchFields:
    """Base of the dataclasses a model keeps in :class:`Memory` and :class:`DecoderState` (``cache``,
    ``extra``): :meth:`select` indexes every batch-first field (tensors, tuples of tensors) and
    leaves the rest alone; subclasses override it for fields that must not follow the rows."""

    def select(self, idx: Tensor):
        """Rows ``idx`` (``(B2,)`` long) of every batch-first field."""
        return type(self)(**{f.name: _select(getattr(self, f.name), idx) for f in fields(self)})  # type: ignore[arg-type]


def _select(value, idx: Tensor):
    """Index the batch dimension of a tensor, a tuple of tensors, :class:`BatchFields`, or pass anything else."""
    if value is None:
        return None
    if isinstance(value, Tensor):
        return value.index_select(0, idx)
    if isinstance(value, BatchFields):
        return value.select(idx)
    if isinstance(value, tuple):
        return tuple(_select(v, idx) for v in value)
    if isinstance(value, list):
        return [value[i] for i in idx.tolist()]
    return value


@dataclass
class Memory:
    """What the encoder read, kept fixed while decoding.

    Attributes:
        words: word states ``(B, M, N, H)``; zero on padding.
        word_mask: ``(B, M, N)`` bool, True on real words.
        chunks: chunk representations ``(B, M, Hc)`` for hierarchical models, else None.
        chunk_mask: ``(B, M)`` bool, True on chunks holding at least one word.
        src_ext: ``(B, M, N)`` source ids in the extended vocabulary (copy models), or None.
        n_ext: V' - V, the number of extra (document-only) ids in this batch.
        final: the encoder's final ``(h, c)``, each batch-first ``(B, L, H)``, or None.
        cache: model-specific tensors precomputed once per batch, batch first, as the model's
            own :class:`BatchFields` dataclass (e.g. ``flat.FlatCache``), or None.
        shared: model-specific tensors computed once per batch that do not depend on the
            document (e.g. ``seq2seq.OutputWeights``), left alone by :meth:`select`, or None.
        doc: ``(B,)`` long, the document (row of the encoded batch) each row belongs to, or
            None. :meth:`select` indexes it, so beam hypotheses keep pointing to their document.
        lazy: the word states of the chunks encoded so far, per document, shared by all rows
            of a document and left alone by :meth:`select` (:class:`c2fsum.models.chunk_cache.ChunkCache`),
            or None (every word encoded). With a lazy model ``words`` is then an empty
            ``(B, M, N, 0)`` placeholder.
        reading: how this memory is read, resolved at encode time (:class:`Reading`).
    """

    words: Tensor
    word_mask: Tensor
    chunk_mask: Tensor
    chunks: Tensor | None = None
    src_ext: Tensor | None = None
    n_ext: int = 0
    final: tuple | None = None
    cache: BatchFields | None = None
    shared: object | None = None
    doc: Tensor | None = None
    lazy: ChunkCache | None = None
    reading: Reading = DEFAULT_READING

    def select(self, idx: Tensor) -> Memory:
        """Rows ``idx`` (``(B2,)`` long) of every batch-first field, e.g. to expand to beams."""
        return replace(
            self,
            **{
                f.name: _select(getattr(self, f.name), idx)
                for f in fields(self)
                if f.name not in ("n_ext", "shared", "lazy", "reading")
            },
        )


@dataclass
class DecoderState:
    """Recurrent state carried from one decoding step to the next.

    Attributes:
        h, c: LSTM states, each ``(L, B, H)``.
        feed: previous attentional output ``(B, H)`` (input feeding).
        extra: model-specific tensors with batch first, as the model's own :class:`BatchFields`
            dataclass (e.g. ``seq2seq.StepHistory``: past decoder states for intra-decoder
            attention ``(B, t, H)``) or a tuple of tensors, or None.
    """

    h: Tensor
    c: Tensor
    feed: Tensor
    extra: BatchFields | tuple | None = None

    def select(self, idx: Tensor) -> DecoderState:
        return DecoderState(
            h=self.h.index_select(1, idx),
            c=self.c.index_select(1, idx),
            feed=self.feed.index_select(0, idx),
            extra=_select(self.extra, idx),
        )


@dataclass
class StepOutput:
    """One decoder step.

    Attributes:
        logprobs: ``(B, V')`` log-probabilities of the next word.
        state: the new :class:`DecoderState`.
        attention: where the step read (:class:`~c2fsum.modules.attention.Attention`): word
            attention ``attn`` ``(B, M, N)`` (sums to 1 over real words; a sparse COO tensor
            holding only the chosen chunks when a hard model decodes lazily) and, of hierarchical
            models, chunk attention ``coarse`` ``(B, M)``.
    """

    logprobs: Tensor
    state: DecoderState
    attention: Attention


@dataclass
class ForwardOutput:
    """A teacher-forced pass over a whole target.

    Attributes:
        logprobs: ``(B, T, V')``; None when the forward pass was given the target and the
            model could take the fused path (no copying): then only ``target_lp`` exists.
        attention: where every step read (:class:`~c2fsum.modules.attention.Attention`): word
            attention ``attn`` ``(B, T, M, N)``; chunk attention ``coarse`` ``(B, T, M)`` of
            hierarchical models (before any sampling), else None; ``policy`` ``(B, T)`` the
            log-probability of the hard chunk choices (MODEL 3 in training), else None.
        fine_fraction: share of the batch's words run through the word-level encoder when it
            encoded lazily (MODEL 3 with ``lazy_fine``), else None (all of them).
    """

    logprobs: Tensor | None
    attention: Attention
    fine_fraction: float | None = None
    target_lp: Tensor | None = None
    """``(B, T)`` log p(target_t) (padding positions included) when forward was given the target."""

    def __iter__(self):
        """``logprobs, attn = model(...)`` keeps working."""
        return iter((self.logprobs, self.attention.attn))


class ModelBase(nn.Module):
    """Base class of all models: a :class:`Summarizer` (writes words) or a :class:`Selector` (picks
    sentences). What training, validation, perplexity and checkpoints ask of either: the vocabulary's
    ids, the word embeddings, the optimizer's order of parameters, and the summed NLL of a batch's
    targets (:meth:`batch_nll`, over :meth:`nll_units` units)."""

    capabilities: Capabilities = Capabilities()
    vocab_size: int
    pad_id: int = 0
    unk_id: int = 1
    bos_id: int = 2
    eos_id: int = 3

    def word_embeddings(self) -> list[nn.Embedding]:
        """The tables that map this model's words to vectors, each once (a shared one once): every
        ``nn.Embedding`` over the vocabulary (source, target, a BOW chunk encoder's fixed table).
        What pretrained vectors start (``model.pretrained_emb``)."""
        return [m for m in self.modules() if isinstance(m, nn.Embedding) and m.num_embeddings == self.vocab_size]

    def optimizer_parameters(self) -> list[tuple[str, nn.Parameter]]:
        """``(name, parameter)`` in the order an optimizer takes them (saved optimizer states follow
        it): here ``named_parameters()``; a family whose parameters moved keeps its older order."""
        return list(self.named_parameters())

    def nll_units(self, examples: Sequence[Example]) -> int:
        """What :meth:`batch_nll` of ``examples`` sums over (a train row's perplexity is the validation's)."""
        raise NotImplementedError

    def batch_nll(self, batch: Batch) -> tuple[Tensor, int]:
        """The summed teacher-forced NLL of a batch's targets and how many units it sums over
        (:func:`c2fsum.evaluation.perplexity.perplexity`)."""
        raise NotImplementedError


class Selector(ModelBase):
    """A model that picks whole sentences of a paper, one per summary sentence, instead of writing
    words (``select-rewrite``, :class:`c2fsum.models.select_rewrite.SentenceSelector`): it reads a
    batch's sentences (:meth:`sentences`, :meth:`read`), picks from what it read (:meth:`pick`) and
    learns from its labels (:meth:`selection_loss`); :mod:`c2fsum.decoding.selection` decodes it."""

    def sentences(self, src: Tensor, src_mask: Tensor) -> Sentences:
        """The grid ``(B, M, N)`` as sentences."""
        raise NotImplementedError

    def read(self, sents: Sentences, examples: Sequence[Example] | None = None) -> SelectorMemory:
        """What the selector picks from: the candidates (STOP, then the sentences)."""
        raise NotImplementedError

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
        """Pick sentences one at a time until STOP, the summary's budget of ``summary_words`` words
        (0: none) or the sentences run out."""
        raise NotImplementedError

    def labels(self, examples: Sequence[Example]) -> list[list[int]]:
        """Each example's picks to learn (sentence indices, STOP not included)."""
        raise NotImplementedError

    def selection_nll(self, src: Tensor, src_mask: Tensor, examples: Sequence[Example]) -> tuple[Tensor, int]:
        """Summed cross-entropy of the labels' picks and stops over a batch, and their number."""
        raise NotImplementedError

    def selection_loss(
        self, src: Tensor, src_mask: Tensor, examples: Sequence[Example], *, rl_weight: float = 0.0
    ) -> SelectionLoss:
        """The training loss summed over the batch (cross-entropy on the labels, with REINFORCE
        when ``rl_weight`` > 0)."""
        raise NotImplementedError

    @torch.no_grad()
    def greedy(self, memory: SelectorMemory, **kw) -> Selection:
        """The most probable pick at each step (:meth:`pick`)."""
        return self.pick(memory, sample=False, **kw)

    def nll_units(self, examples: Sequence[Example]) -> int:
        """The labels' picks and their STOPs."""
        return sum(len(labels) + 1 for labels in self.labels(examples))

    def batch_nll(self, batch: Batch) -> tuple[Tensor, int]:
        """The cross-entropy of the labels' picks and stops (:meth:`selection_nll`)."""
        return self.selection_nll(batch.src, batch.src_mask, batch.examples)


class Summarizer(ModelBase):
    """Base class of the models that write words. Subclasses implement ``encode``, ``init_state``,
    ``step`` and declare their :class:`Capabilities` (none by default).

    ``forward`` (teacher forcing) is written once here: ``encode``, then ``teacher_forced``, by
    default in terms of ``step`` so that training and decoding can never disagree.
    """

    def encode(
        self,
        src: Tensor,
        src_mask: Tensor,
        src_ext: Tensor | None = None,
        n_ext: int = 0,
        reading: Reading = DEFAULT_READING,
    ) -> Memory:
        """Read a batch of grids ``src`` ``(B, M, N)`` (vocabulary ids, pad = 0) as ``reading`` asks:
        the model's :meth:`_encode`, its arguments resolved here, once for every model (a pointer
        model given no ``src_ext`` copies from ``src``)."""
        src_ext = src if self.capabilities.copies and src_ext is None else src_ext
        return self._encode(src, src_mask, src_ext, n_ext, reading)

    def _encode(self, src: Tensor, src_mask: Tensor, src_ext: Tensor | None, n_ext: int, reading: Reading) -> Memory:
        """:meth:`encode` with every argument given: what a model implements."""
        raise NotImplementedError

    def init_state(self, memory: Memory) -> DecoderState:
        raise NotImplementedError

    def step(self, memory: Memory, state: DecoderState, prev: Tensor) -> StepOutput:
        """Advance one word. ``prev`` ``(B,)`` holds ids in V'; ids >= V are read as <unk>."""
        raise NotImplementedError

    def nll_units(self, examples: Sequence[Example]) -> int:
        """Target tokens with ``</s>``."""
        return sum(len(ex.tgt) + 1 for ex in examples)

    def batch_nll(self, batch: Batch) -> tuple[Tensor, int]:
        """The summed NLL of the target tokens, teacher-forced, and their number (``</s>`` counted)."""
        out = self(batch.src, batch.src_mask, batch.tgt_in, batch.src_ext, batch.n_ext, loss_target(self, batch))
        assert out.target_lp is not None  # forward was given the target
        return sequence_nll(out.target_lp, batch.tgt_mask), batch.n_tokens

    def input_ids(self, prev: Tensor) -> Tensor:
        """Map extended-vocabulary ids (copied words) to <unk> for the embedding lookup."""
        return prev.masked_fill(prev >= self.vocab_size, self.unk_id)

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor,
        tgt_in: Tensor,
        src_ext: Tensor | None = None,
        n_ext: int = 0,
        target: Tensor | None = None,
        reading: Reading = DEFAULT_READING,
    ) -> ForwardOutput:
        """Teacher-forced pass: :meth:`encode` (as ``reading`` asks, with dense attention), then
        :meth:`teacher_forced`.

        Args:
            src: ``(B, M, N)``; src_mask: ``(B, M, N)``; tgt_in: ``(B, T)`` starting with <s>.
            target: ``(B, T)`` ids in V' (optional): also return ``target_lp``.
            reading: how to read the batch (:meth:`encode`).
        Returns:
            a :class:`ForwardOutput`: logprobs ``(B, T, V')`` and where every step read
            (``attention``: word attention ``(B, T, M, N)``, chunk attention and policy where they exist).
        """
        memory = self.encode(src, src_mask, src_ext, n_ext, replace(reading, sparse=False))
        return self.teacher_forced(memory, tgt_in, target)

    def teacher_forced(self, memory: Memory, tgt_in: Tensor, target: Tensor | None = None) -> ForwardOutput:
        """Every step of ``tgt_in`` ``(B, T)`` over ``memory``: here one :meth:`step` at a time, so
        that training and decoding can never disagree; a model may take a faster path to the same
        results."""
        state = self.init_state(memory)
        out_lp, out_attention = [], []
        for t in range(tgt_in.size(1)):
            o = self.step(memory, state, tgt_in[:, t])
            state = o.state
            out_lp.append(o.logprobs)
            out_attention.append(o.attention)
        logprobs = torch.stack(out_lp, 1)  # (B, T, V')
        target_lp = None if target is None else logprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        return ForwardOutput(logprobs, Attention.stack(out_attention), target_lp=target_lp)


Model: TypeAlias = Summarizer | Selector
"""Any model: one that writes words or one that picks sentences."""
