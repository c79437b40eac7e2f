"""The document as a grid of chunks.

Two ways to cut a document (its sentences concatenated, each ending in ``</s>``) into M
chunks of N words (``data.chunking``):

``fixed`` (the paper): the words are laid out row by row, row ``i`` holding words
``i*N .. i*N+N-1``::

    words:  w0 w1 w2 ... w39 | w40 ... w79 | ... | w360 ... w399        (M=10, N=40)

    grid:   chunk 0  [ w0   w1   ...  w39  ]
            chunk 1  [ w40  w41  ...  w79  ]
            ...
            chunk 9  [ w360 w361 ...  w399 ]

``sentences``: whole sentences are packed into chunks of at most N words; a sentence that
does not fit in what is left of the current chunk starts the next one, and a sentence longer
than N words is split into pieces of N words. The rest of a chunk is padding (``<pad>``)::

    grid:   chunk 0  [ s0 ........ </s> s1 ..... </s> <pad> <pad> ]
            chunk 1  [ s2 ...................... </s> <pad> ..... ]

How much is kept: ``chunks`` > 0 keeps at most M chunks (the first M*N words with
``fixed``, 10x40 = 400 words by default); ``chunks = 0`` keeps as many chunks as the document
needs (M grows with the document). ``max_words`` > 0 first cuts the document to its first
``max_words`` words (0: no cut).

Padding is always at the end of a row, so the per-chunk LSTM of MODEL 1-3 sees the real
words of each chunk as a prefix.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch
from torch import Tensor

from c2fsum.config import DataConfig

PAD = "<pad>"
CHUNKINGS = ("fixed", "sentences")


@dataclass
class Grid:
    """One document's grid.

    ``words`` holds the grid's cells in reading order, row after row, up to the last real
    word: with ``fixed`` chunking these are exactly the kept words; with ``sentences`` the
    padding cells inside the grid are ``<pad>``. Cell ``i`` is row ``i // chunk_len``.
    """

    words: list[str]
    chunks: int
    chunk_len: int

    @property
    def rows(self) -> list[list[str]]:
        """The cells split into chunks (only the non-empty ones)."""
        n = self.chunk_len
        return [self.words[i : i + n] for i in range(0, len(self.words), n)]

    @property
    def n_rows(self) -> int:
        return (len(self.words) + self.chunk_len - 1) // self.chunk_len

    @property
    def n_words(self) -> int:
        """Real (non-padding) words in the grid."""
        return sum(w != PAD for w in self.words)


def flatten_sentences(sentences: list[list[str]]) -> list[str]:
    """Concatenate sentences (each already ending in ``</s>``) into one word sequence."""
    return [w for s in sentences for w in s]


def _cut_sentences(sentences: list[list[str]], max_words: int) -> list[list[str]]:
    """The first ``max_words`` words, keeping the sentence boundaries (0: all)."""
    if max_words <= 0:
        return sentences
    out, left = [], max_words
    for s in sentences:
        if left <= 0:
            break
        out.append(s[:left])
        left -= len(out[-1])
    return out


def pack_sentences(sentences: list[list[str]], chunk_len: int) -> list[list[str]]:
    """Rows of at most ``chunk_len`` words made of whole sentences (over-long ones split)."""
    rows: list[list[str]] = []
    cur: list[str] = []
    for s in sentences:
        pieces = [s[i : i + chunk_len] for i in range(0, len(s), chunk_len)] or [[]]
        for piece in pieces:
            if not piece:
                continue
            if len(cur) + len(piece) > chunk_len:
                rows.append(cur)
                cur = []
            cur.extend(piece)
    if cur:
        rows.append(cur)
    return rows


def make_grid(
    sentences: list[list[str]], chunks: int, chunk_len: int, *, chunking: str = "fixed", max_words: int = 0
) -> Grid:
    """Lay a document out as a grid; see the module docstring.

    Args:
        sentences: the document's sentences (token lists).
        chunks: M, at most this many chunks (0: as many as the document needs).
        chunk_len: N, words per chunk.
        chunking: ``fixed`` or ``sentences``.
        max_words: cut the document to its first ``max_words`` words first (0: no cut).
    """
    if chunks < 0 or chunk_len < 1:
        raise ValueError(
            f"grid shape: expected chunks >= 0 (0: unbounded) and chunk_len >= 1, "
            f"got chunks={chunks}, chunk_len={chunk_len}"
        )
    if max_words < 0:
        raise ValueError(f"data.max_words: expected >= 0 (0: no cut), got {max_words}")
    if chunking not in CHUNKINGS:
        raise ValueError(f"data.chunking: got {chunking!r}, expected one of {CHUNKINGS}")
    sentences = _cut_sentences(sentences, max_words)
    if chunking == "fixed":
        words = flatten_sentences(sentences)
        if chunks:
            words = words[: chunks * chunk_len]
        return Grid(words=words, chunks=chunks, chunk_len=chunk_len)
    rows = pack_sentences(sentences, chunk_len)
    if chunks:
        rows = rows[:chunks]
    words = [w for r in rows[:-1] for w in r + [PAD] * (chunk_len - len(r))] + (rows[-1] if rows else [])
    return Grid(words=words, chunks=chunks, chunk_len=chunk_len)


def inference_grid(data: DataConfig, max_words: int = 0) -> DataConfig:
    """The grid used to summarize: the trained one without its chunk limit (M grows with the
    document), cut to the first ``max_words`` words if asked (``--max-words``; 0: no cut).

    Returns a modified copy of ``data``.
    """
    if max_words < 0:
        raise ValueError(f"--max-words: expected >= 0 (0: no cut), got {max_words}")
    return replace(data, chunks=0, max_words=max_words)


def grid_tensor(ids: list[int], chunks: int, chunk_len: int, pad_id: int = 0) -> tuple[Tensor, Tensor]:
    """Lay out a flat id list (at most M*N long) as ``(M, N)`` ids and a ``(M, N)`` bool mask.

    The mask is False on the padding after the ids and on any ``pad_id`` cell among them
    (the ``<pad>`` cells of sentence chunking).
    """
    if len(ids) > chunks * chunk_len:
        raise ValueError(f"{len(ids)} ids do not fit a {chunks}x{chunk_len} grid")
    flat = torch.full((chunks * chunk_len,), pad_id, dtype=torch.long)
    if ids:
        flat[: len(ids)] = torch.tensor(ids, dtype=torch.long)
    mask = flat != pad_id
    return flat.view(chunks, chunk_len), mask.view(chunks, chunk_len)
