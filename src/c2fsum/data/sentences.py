"""A prepared document's sentences, and what a sentence selector learns to pick from them.

A document's grid cells (``Example.words``) are cut into sentences after each ``</s>``
(:func:`sentence_spans`); the same cut serves words and ids, so the labels made from words and the
selector's sentence grid made from ids count the same sentences. A sentence's words, as every
word budget counts them, are its tokens but the sentence marks (:func:`unmarked`).

The selector's labels (:func:`selection_labels`: the aligned sentences, :func:`c2fsum.data.align.align`;
or the high-ROUGE episodes, :func:`c2fsum.data.align.oracle_episodes`) are made per example by
:func:`example_labels` and kept by a :class:`LabelCache` of bounded size.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

import torch
from torch import Tensor

from c2fsum.data.align import align, oracle_episodes
from c2fsum.data.batching import Example
from c2fsum.data.grid import PAD
from c2fsum.data.vocab import BOS, EOS

T_ = TypeVar("T_", bound=Hashable)

MARKS = frozenset({BOS, EOS})
"""Sentence marks: in the paper's cells, never in a summary, never counted by a word budget."""

MIN_RECALL = 0.3
"""An abstract sentence whose best source sentence recalls less than this share of its content
words (ROUGE-L recall) gets no label: no sentence of the paper says it, and teaching the selector
to pick the best of bad matches teaches it noise. SumPubMed abstracts are abstractive: on the first 200
validation papers of the 20,000-paper set (1,810 abstract sentences) the best match's recall has
median 0.39, and 99% of the sentences reach 0.2, 80% 0.3, 50% 0.4, 30% 0.5; 0.3 keeps most
sentences and drops the weakest fifth."""

LABELS = ("align", "episodes")
"""The values of ``model.selector_labels``."""

EPISODES = 4
"""``selector_labels=episodes``: how many high-ROUGE selections of each paper a step draws from."""

LABEL_CACHE = 50_000
"""Examples whose labels a :class:`LabelCache` keeps (the least recently used go first): more than
the 20,000 papers of the pubmed training set, so a run over it makes each example's labels once,
and a bound for a larger one (labels made again are the same labels)."""


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


def sentence_cells(words: Sequence[str]) -> list[list[int]]:
    """The grid cells of each sentence of an example (``Example.words``): cut after each ``</s>``,
    ``<pad>`` cells skipped, as :func:`document_sentences` cuts them."""
    return sentence_spans(words, EOS, frozenset({PAD}))


def unmarked(cells: Sequence[int], tokens: Sequence[T_], marks: frozenset | set = MARKS) -> list[int]:
    """The cells of a sentence (positions in ``tokens``) that hold words: all but the sentence marks.

    >>> unmarked([3, 4, 5], "<s> a </s> <s> b </s>".split())
    [4]
    """
    return [c for c in cells if tokens[c] not in marks]


def sentence_words(sentence: Sequence[T_], marks: frozenset | set = MARKS) -> int:
    """Words of a sentence as a word budget counts them: its tokens but the sentence marks
    (:func:`unmarked`)."""
    return len(unmarked(range(len(sentence)), sentence, marks))


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


def label_kind(kind: str) -> str:
    """``model.selector_labels``, checked: one of :data:`LABELS` (else ValueError)."""
    if kind not in LABELS:
        raise ValueError(f"model.selector_labels: got {kind!r}, expected one of {', '.join(LABELS)}")
    return kind


def label_tensor(labels: Sequence[Sequence[int]], stop: int) -> Tensor:
    """``(B, T)`` a selector's candidate indices of each example's ``labels``: sentence j as j + 1,
    then ``stop``, then -1."""
    rows = [[j + 1 for j in lab] + [stop] for lab in labels]
    T = max(len(r) for r in rows)
    out = torch.full((len(rows), T), -1, dtype=torch.long)
    for b, r in enumerate(rows):
        out[b, : len(r)] = torch.tensor(r, dtype=torch.long)
    return out


def example_labels(example: Example, kind: str, words: int) -> list[list[int]]:
    """An example's choices of picks to learn: its :func:`selection_labels` (``kind`` ``align``), or
    its :data:`EPISODES` :func:`~c2fsum.data.align.oracle_episodes` within ``words`` words
    (``episodes``; one empty choice when it has none)."""
    doc = document_sentences(example)
    if kind == "episodes":
        size = [sentence_words(s) for s in doc]
        eps = oracle_episodes(doc, example.refs, budget=words, beam=EPISODES, lengths=size)
        return [list(e.picks) for e in eps] or [[]]
    return [selection_labels(doc, example.refs)]


class LabelCache:
    """Each example's labels (``make(example)``), made once and kept for the :data:`LABEL_CACHE`
    examples used last."""

    def __init__(self, make: Callable[[Example], list[list[int]]], size: int = LABEL_CACHE):
        self.make, self.size = make, size
        self._kept: OrderedDict[tuple, list[list[int]]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    def __call__(self, example: Example) -> list[list[int]]:
        key = (example.id, len(example.words), len(example.refs), sum(len(r) for r in example.refs))
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        labels = self._kept[key] = self.make(example)
        if len(self._kept) > self.size:
            self._kept.popitem(last=False)
        return labels


CONNECTIVES = (
    "however",
    "moreover",
    "furthermore",
    "in addition",
    "additionally",
    "thus",
    "therefore",
    "hence",
    "finally",
    "also",
    "nevertheless",
    "nonetheless",
    "consequently",
    "further",
)
"""Openers that tie a sentence to the one before it: left out of a summary's first sentence."""


def opener_end(words: Sequence[str], openers: Sequence[str], start: int = 0) -> int:
    """Where the first of ``openers`` (each one or more words) that ``words`` hold at ``start``,
    followed by a comma, ends (the index after the comma); 0: none.

    >>> opener_end("here , in this study , x binds y .".split(), ("in this study", "here"), 2)
    6
    """
    for opener in openers:
        parts = opener.split()
        k = start + len(parts)
        if list(words[start:k]) == parts and k < len(words) and words[k] == ",":
            return k + 1
    return 0


def opening_connective(words: Sequence[str]) -> int:
    """How many of ``words`` open on a :data:`CONNECTIVES` word and its comma (0: none), when the
    sentence goes on after them.

    >>> opening_connective("moreover , x binds y .".split()), opening_connective("thus x binds y .".split())
    (2, 0)
    """
    cut = opener_end(words, CONNECTIVES)
    return cut if cut and len(words) > cut + 1 else 0
