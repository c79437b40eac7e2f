"""The document as a grid of chunks.

The first ``M * N`` words of a document (sentences concatenated, each ending in ``</s>``)
are laid out row by row: row ``i`` is chunk ``i``, holding words ``i*N .. i*N+N-1``::

    words:  w0 w1 w2 ... w39 | w40 ... w79 | ... | w360 ... w399        (M=10, N=40)

    grid:   chunk 0  [ w0   w1   ...  w39  ]
            chunk 1  [ w40  w41  ...  w79  ]
            ...
            chunk 9  [ w360 w361 ...  w399 ]

A shorter document fills fewer cells; the rest is padding (id 0, mask False), always at the
end, so the flat reading order of the real words is the document order.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor


@dataclass
class Grid:
    """One document's grid. ``words`` holds the M*N (or fewer) kept words in reading order."""

    words: list[str]
    chunks: int
    chunk_len: int

    @property
    def rows(self) -> list[list[str]]:
        """The kept words split into chunks (only the non-empty ones)."""
        n = self.chunk_len
        return [self.words[i:i + n] for i in range(0, len(self.words), n)]

    @property
    def n_rows(self) -> int:
        return (len(self.words) + self.chunk_len - 1) // self.chunk_len


def flatten_sentences(sentences: list[list[str]]) -> list[str]:
    """Concatenate sentences (each already ending in ``</s>``) into one word sequence."""
    return [w for s in sentences for w in s]


def make_grid(sentences: list[list[str]], chunks: int, chunk_len: int) -> Grid:
    """Keep the first ``chunks * chunk_len`` words of a document."""
    if chunks < 1 or chunk_len < 1:
        raise ValueError(f"grid shape must be positive, got chunks={chunks}, chunk_len={chunk_len}")
    words = flatten_sentences(sentences)[: chunks * chunk_len]
    return Grid(words=words, chunks=chunks, chunk_len=chunk_len)


def grid_tensor(ids: list[int], chunks: int, chunk_len: int, pad_id: int = 0) -> tuple[Tensor, Tensor]:
    """Lay out a flat id list (at most M*N long) as ``(M, N)`` ids and a ``(M, N)`` bool mask."""
    if len(ids) > chunks * chunk_len:
        raise ValueError(f"{len(ids)} ids do not fit a {chunks}x{chunk_len} grid")
    flat = torch.full((chunks * chunk_len,), pad_id, dtype=torch.long)
    mask = torch.zeros(chunks * chunk_len, dtype=torch.bool)
    if ids:
        flat[: len(ids)] = torch.tensor(ids, dtype=torch.long)
        mask[: len(ids)] = True
    return flat.view(chunks, chunk_len), mask.view(chunks, chunk_len)
