"""From prepared documents to padded tensor batches, bucketed by length.

Batch layout (B documents, grid M x N, target length T)::

    src      (B, M, N)  vocabulary ids of the grid, 0 on padding
    src_mask (B, M, N)  True on real words
    src_ext  (B, M, N)  ids in the extended vocabulary: a document-only word gets V + k
    tgt_in   (B, T)     <s> y1 ... y_{T-1}          (decoder inputs, teacher forcing)
    tgt_out  (B, T)     y1 ... y_{T-1} </s>         (what is predicted; 0 on padding)
    tgt_ext  (B, T)     tgt_out in the extended vocabulary (copy targets)
    tgt_mask (B, T)     True on real target positions

``M`` is the largest number of non-empty chunks in the batch (at most the configured M, or
unbounded with ``chunks=0``), so a batch is padded to its own longest document, not to the longest
one of the data set. Training batches are drawn from pools of similar length
(:func:`bucketed_batches`; the trainer's key is the target length, then the source length);
decoding sorts documents by length (:func:`c2fsum.decoding.documents.decode_examples`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, fields

import torch
from torch import Tensor

from c2fsum.config import DataConfig
from c2fsum.data.grid import PAD, grid_tensor, make_grid
from c2fsum.data.surface import parse_surface, surface_cells
from c2fsum.data.vocab import Vocab
from c2fsum.utils.tokens import SENTENCE_ENDS


@dataclass
class Example:
    """One document, encoded once and reused every epoch."""

    id: str
    words: list[str]
    """The grid's cells in reading order (at most M*N; ``<pad>`` cells with sentence chunking)."""
    src: list[int]
    src_ext: list[int]
    oovs: list[str]
    """Document-only words; ``oovs[k]`` has extended id ``V + k``."""
    tgt: list[int]
    tgt_ext: list[int]
    tgt_words: list[str]
    refs: list[list[str]]
    surface: list[str] | None = None
    """The document's own spelling of each cell of ``words`` (case and digits,
    :mod:`c2fsum.data.surface`), or None when the document did not keep it."""
    sections: list[tuple[str, int]] | None = None
    """The document's headings, each with the index of the first sentence under it (``prepare``'s
    ``sections``), or None when it kept none (news, files prepared before issue 36)."""

    def n_chunks(self, chunk_len: int) -> int:
        """Chunks (rows) the document fills in a grid of ``chunk_len`` words per chunk."""
        return max(1, -(-len(self.src) // chunk_len))


def encode_document(doc: dict, vocab: Vocab, data: DataConfig) -> Example:
    """Encode a prepared document ``{"id", "src", "tgt", "refs"}`` with ``vocab`` on the grid that
    ``data`` describes: the one place the grid's config fields meet a document.

    The source becomes the grid of :func:`c2fsum.data.grid.make_grid` (``data.chunks`` M rows of
    ``data.chunk_len`` N words, ``data.chunking``, ``data.max_words``; ``chunks=0`` keeps the whole
    document, as many chunks as it needs); the target is cut to ``data.max_tgt_len`` tokens as
    ``data.target_cut`` says (:func:`cut_target`).
    """
    grid = make_grid(doc["src"], data.chunks, data.chunk_len, chunking=data.chunking, max_words=data.max_words)
    src = vocab.encode(grid.words)
    oovs: list[str] = []
    oov_index: dict[str, int] = {}
    src_ext = []
    for w, i in zip(grid.words, src, strict=True):
        if i == vocab.unk_id and w != vocab.itos[vocab.unk_id] and w != PAD:
            if w not in oov_index:
                oov_index[w] = len(oovs)
                oovs.append(w)
            src_ext.append(len(vocab) + oov_index[w])
        else:
            src_ext.append(i)
    tgt_words = cut_target(list(doc.get("tgt") or []), data.max_tgt_len, data.target_cut)
    tgt = vocab.encode(tgt_words)
    tgt_ext = [
        len(vocab) + oov_index[w] if i == vocab.unk_id and w in oov_index else i
        for w, i in zip(tgt_words, tgt, strict=True)
    ]
    surface = None
    if doc.get("surface") is not None:
        spelled = parse_surface(doc["surface"], f"document {doc['id']}: surface")
        surface = surface_cells(
            doc["src"],
            spelled,
            chunks=data.chunks,
            chunk_len=data.chunk_len,
            chunking=data.chunking,
            max_words=data.max_words,
        )
    return Example(
        id=str(doc["id"]),
        words=grid.words,
        src=src,
        src_ext=src_ext,
        oovs=oovs,
        tgt=tgt,
        tgt_ext=tgt_ext,
        tgt_words=tgt_words,
        refs=list(doc.get("refs") or []),
        surface=surface,
        sections=[(str(t), int(k)) for t, k in doc["sections"]] if doc.get("sections") else None,
    )


TARGET_CUTS = ("tokens", "sentences")


def cut_target(words: list[str], max_len: int, how: str = "tokens") -> list[str]:
    """The first ``max_len`` target tokens (``how="tokens"``), or the target's sentences up to the
    last that ends within ``max_len`` tokens (``"sentences"``; by tokens when not even the first
    sentence fits). A target of at most ``max_len`` tokens is kept whole either way.

    >>> cut_target("a b . c d . e".split(), 5, "sentences")
    ['a', 'b', '.']
    >>> cut_target("a b c d e f".split(), 3, "sentences")
    ['a', 'b', 'c']
    """
    if how not in TARGET_CUTS:
        raise ValueError(f"data.target_cut: got {how!r}, expected one of {TARGET_CUTS}")
    if len(words) <= max_len:
        return words
    if how == "sentences":
        ends = [i for i in range(max_len) if words[i] in SENTENCE_ENDS]
        if ends:
            return words[: ends[-1] + 1]
    return words[:max_len]


@dataclass
class Batch:
    """A padded batch; see the module docstring for the tensor layout."""

    ids: list[str]
    src: Tensor
    src_mask: Tensor
    src_ext: Tensor
    tgt_in: Tensor
    tgt_out: Tensor
    tgt_ext: Tensor
    tgt_mask: Tensor
    n_ext: int
    examples: list[Example]

    @property
    def size(self) -> int:
        return len(self.ids)

    @property
    def n_tokens(self) -> int:
        """Number of predicted target tokens (incl. ``</s>``)."""
        return int(self.tgt_mask.sum())

    def to(self, device: torch.device | str) -> Batch:
        moved = {
            f.name: (
                getattr(self, f.name).to(device) if isinstance(getattr(self, f.name), Tensor) else getattr(self, f.name)
            )
            for f in fields(self)
        }
        return Batch(**moved)


def collate(
    examples: Sequence[Example], *, chunks: int, chunk_len: int, bos_id: int = 2, eos_id: int = 3, pad_id: int = 0
) -> Batch:
    """Pad ``examples`` into a :class:`Batch` (grid trimmed to the batch's largest M).

    ``chunks=0``: no upper bound on M (the examples were encoded with ``chunks=0``); otherwise
    an example longer than the grid keeps its first ``chunks`` chunks.
    """
    if not examples:
        raise ValueError("cannot collate an empty list of examples")
    rows = max(e.n_chunks(chunk_len) for e in examples)
    if chunks:
        rows = min(rows, chunks)
    src, mask, ext = [], [], []
    cells = rows * chunk_len  # an example encoded for a larger grid keeps its first M chunks
    for e in examples:
        s, m = grid_tensor(e.src[:cells], rows, chunk_len, pad_id)
        x, _ = grid_tensor(e.src_ext[:cells], rows, chunk_len, pad_id)
        src.append(s)
        mask.append(m)
        ext.append(x)
    T = max(len(e.tgt) for e in examples) + 1
    B = len(examples)
    tgt_in = torch.full((B, T), pad_id, dtype=torch.long)
    tgt_out = torch.full((B, T), pad_id, dtype=torch.long)
    tgt_ext = torch.full((B, T), pad_id, dtype=torch.long)
    for b, e in enumerate(examples):
        n = len(e.tgt)
        tgt_in[b, 0] = bos_id
        if n:
            tgt_in[b, 1 : n + 1] = torch.tensor(e.tgt, dtype=torch.long)
            tgt_out[b, :n] = torch.tensor(e.tgt, dtype=torch.long)
            tgt_ext[b, :n] = torch.tensor(e.tgt_ext, dtype=torch.long)
        tgt_out[b, n] = eos_id
        tgt_ext[b, n] = eos_id
    tgt_mask = tgt_out != pad_id
    return Batch(
        ids=[e.id for e in examples],
        src=torch.stack(src),
        src_mask=torch.stack(mask),
        src_ext=torch.stack(ext),
        tgt_in=tgt_in,
        tgt_out=tgt_out,
        tgt_ext=tgt_ext,
        tgt_mask=tgt_mask,
        n_ext=max(len(e.oovs) for e in examples),
        examples=list(examples),
    )


def bucketed_batches(
    n_examples: int,
    lengths: Sequence[int],
    *,
    batch_size: int,
    bucket_size: int,
    seed: int,
    epoch: int,
    shuffle: bool = True,
) -> list[list[int]]:
    """Indices of each batch of one epoch, deterministic in ``(seed, epoch)``.

    Examples are shuffled, cut into pools of ``batch_size * bucket_size``, sorted by
    ``lengths`` inside a pool (so a batch holds documents of similar length), cut into
    batches, and the batches are shuffled. Without ``shuffle`` the order is by length.
    """
    order = list(range(n_examples))
    if not shuffle:
        order.sort(key=lambda i: (lengths[i], i))
        return [order[i : i + batch_size] for i in range(0, n_examples, batch_size)]
    rng = random.Random(seed * 1_000_003 + epoch)
    rng.shuffle(order)
    pool = max(1, batch_size * bucket_size)
    batches: list[list[int]] = []
    for start in range(0, n_examples, pool):
        chunk = sorted(order[start : start + pool], key=lambda i: (lengths[i], i))
        batches.extend(chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size))
    rng.shuffle(batches)
    return batches


# -- distributed training: each process's share of a global batch ---------------------------
def shard_batch(indices: Sequence[int], rank: int, world: int) -> list[int]:
    """The part of one global batch that process ``rank`` of ``world`` trains on.

    Every rank forms the same global batches (:func:`bucketed_batches` is a pure function of
    ``(seed, epoch)``) and takes every ``world``-th document starting at ``rank``; since a
    bucketed batch is sorted by length, striding gives each rank documents of every length.
    The shards of all ranks are disjoint and together are ``indices``. A rank gets an empty
    list when the batch has fewer than ``world`` documents. Also used to split a rank's shard
    into gradient-accumulation micro-batches (``rank`` = micro-batch, ``world`` = their number)::

        global batch [d0 d1 d2 d3 d4]   world 2  ->  rank 0: [d0 d2 d4]   rank 1: [d1 d3]
    """
    if world < 1 or not 0 <= rank < world:
        raise ValueError(f"shard_batch: rank {rank} is not in 0..{world - 1}")
    return list(indices[rank::world])
