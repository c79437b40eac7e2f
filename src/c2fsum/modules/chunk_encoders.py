"""Chunk representations h^s_i for coarse attention (thesis section 4.2).

- CNN (Kim 2014): convolution of width 6 with 600 filters over the chunk's word embeddings,
  tanh, max over time (over positions of real words only).
- BOW: the sum of the chunk's word embeddings from a separate embedding matrix, kept fixed.
- +POS: a 25-d embedding of the chunk's index concatenated to either. The table has
  ``max_chunks`` rows (the grid's M; 100 when M is unbounded); a chunk past the table
  (a document longer than the trained grid) uses the last row, "a chunk far into the document".

Both are cheap next to the word-level LSTM: per word the CNN costs E*F*w multiply-adds
(128*150*6 = 115k for the CPU presets, against 4*H*(E+H) = 393k for one LSTM layer), the BOW
one embedding look-up and add.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn import functional as F

UNBOUNDED_POSITIONS = 100
"""Rows of the +POS table of a model trained with an unbounded number of chunks (``data.chunks=0``)."""


class CNNChunkEncoder(nn.Module):
    """``(B, M, N, E)`` word embeddings -> ``(B, M, filters)`` chunk vectors."""

    def __init__(self, *, emb_dim: int, filters: int = 600, width: int = 6):
        super().__init__()
        self.conv = nn.Conv1d(emb_dim, filters, width)
        self.width = width
        self.out_dim = filters

    def forward(self, emb: Tensor, mask: Tensor) -> Tensor:
        """emb ``(B, M, N, E)``, mask ``(B, M, N)`` -> ``(B, M, F)``; zero for empty chunks."""
        B, M, N, E = emb.shape
        x = emb.reshape(B * M, N, E).transpose(1, 2)  # (B*M, E, N)
        # pad on the right so every real word starts a window (chunks shorter than the width too)
        x = F.pad(x, (0, self.width - 1))  # (B*M, E, N + w - 1)
        h = self.conv(x)  # (B*M, F, N)
        valid = mask.reshape(B * M, 1, N)
        if not bool(valid.all()):  # a full grid (most chunks of a long document) needs no masking
            h = h.masked_fill(~valid, float("-inf"))
        # max over time, then tanh: tanh is increasing, so max_t tanh(a_t) = tanh(max_t a_t), and
        # tanh runs on B*M*F values instead of B*M*F*N
        h = torch.tanh(h.amax(-1))  # (B*M, F)
        h = h.masked_fill(~valid.any(-1), 0.0)
        return h.view(B, M, self.out_dim)


class BOWChunkEncoder(nn.Module):
    """Sum of fixed word embeddings: ``(B, M, N)`` ids -> ``(B, M, E)``.

    The embedding matrix is a separate, frozen one (thesis: "kept fixed"); it is a parameter
    with ``requires_grad=False`` so it is saved with the model but never updated.
    """

    def __init__(self, *, vocab_size: int, emb_dim: int, init_range: float = 0.1, pad_id: int = 0):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, emb_dim, padding_idx=pad_id)
        nn.init.uniform_(self.emb.weight, -init_range, init_range)
        with torch.no_grad():
            self.emb.weight[pad_id].zero_()
        self.emb.weight.requires_grad_(False)
        self.out_dim = emb_dim

    def forward(self, ids: Tensor, mask: Tensor) -> Tensor:
        return (self.emb(ids) * mask.unsqueeze(-1).to(self.emb.weight.dtype)).sum(2)


class ChunkEncoder(nn.Module):
    """A CNN or BOW chunk encoder, optionally with a position embedding concatenated."""

    def __init__(
        self,
        *,
        kind: str,
        vocab_size: int,
        emb_dim: int,
        max_chunks: int,
        filters: int = 600,
        width: int = 6,
        pos_dim: int = 0,
        init_range: float = 0.1,
    ):
        super().__init__()
        if kind == "cnn":
            self.body: nn.Module = CNNChunkEncoder(emb_dim=emb_dim, filters=filters, width=width)
        elif kind == "bow":
            self.body = BOWChunkEncoder(vocab_size=vocab_size, emb_dim=emb_dim, init_range=init_range)
        else:
            raise ValueError(f"model.chunk_encoder: got {kind!r}, expected cnn or bow")
        self.kind = kind
        self.positions = max_chunks if max_chunks > 0 else UNBOUNDED_POSITIONS
        self.pos = nn.Embedding(self.positions, pos_dim) if pos_dim > 0 else None
        self.out_dim = self.body.out_dim + pos_dim

    def forward(
        self, ids: Tensor, emb: Tensor | None, mask: Tensor, *, embed: nn.Module | None = None, slice_chunks: int = 0
    ) -> Tensor:
        """ids ``(B, M, N)``, word embeddings ``(B, M, N, E)``, mask -> ``(B, M, Hc)``.

        With ``emb=None`` the embeddings are looked up with ``embed`` ``slice_chunks`` chunks at a
        time, so the scratch memory stays bounded however long the document is.
        """
        if emb is not None:
            h = self.encode_chunks(ids, emb, mask)
        else:
            M = ids.size(1)
            step = slice_chunks if slice_chunks > 0 else M
            if self.kind == "cnn":
                assert embed is not None, "a CNN chunk encoder called with emb=None needs embed"
            parts = []
            for s in range(0, M, step):
                i, m = ids[:, s : s + step], mask[:, s : s + step]
                parts.append(self.encode_chunks(i, embed(i) if embed is not None and self.kind == "cnn" else None, m))
            h = parts[0] if len(parts) == 1 else torch.cat(parts, 1)
        if self.pos is not None:
            B, M = ids.shape[:2]
            index = torch.arange(M, device=ids.device).clamp(max=self.positions - 1)
            p = self.pos(index).unsqueeze(0).expand(B, M, -1)
            h = torch.cat([h, p], -1)
        return h

    def encode_chunks(self, ids: Tensor, emb: Tensor | None, mask: Tensor) -> Tensor:
        """ids ``(B, M, N)``, word embeddings ``(B, M, N, E)`` (a CNN's; None for BOW), mask ->
        ``(B, M, Hc')``: the chunk vectors without +POS."""
        return self.body(emb, mask) if self.kind == "cnn" else self.body(ids, mask)
