"""The source encoder: a grid of word ids -> :class:`~c2fsum.models.base.Memory`.

    src (B, M, N) --emb--> (B, M, N, E) --LSTM, flat or per chunk--> word states h_ij (B, M, N, H)
                           (MODEL 2/3)  --chunk encoder, CNN or BOW--> chunk vectors h^s_i (B, M, Hc)

:class:`WordSource` reads every word (MODEL 0 flat, MODEL 1 per chunk); :class:`ChunkSource`
adds the chunk vectors (MODEL 2/3) and can read lazily (:meth:`ChunkSource.read_lazily`, MODEL 3):
the word-level LSTM then runs only over the chunks the hard coarse attention picks, once per
document (:class:`~c2fsum.models.chunk_cache.ChunkCache`), and the chunk encoder is the only part
that reads every word, a slice of chunks at a time. Each is an ``nn.Module`` that owns its
embedding (``emb``), word-level LSTM (``encoder``) and chunk encoder (``chunk_encoder``).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from c2fsum.config import ModelConfig
from c2fsum.models.base import Memory
from c2fsum.models.chunk_cache import ChunkCache
from c2fsum.modules.chunk_encoders import ChunkEncoder
from c2fsum.modules.deferred import RowSource
from c2fsum.modules.embeddings import make_embedding
from c2fsum.modules.encoders import LSTMWordEncoder


def source_layers(
    cfg: ModelConfig, vocab_size: int, pad_id: int, *, per_chunk: bool
) -> tuple[nn.Embedding, nn.Embedding, LSTMWordEncoder]:
    """The source and target embeddings (one module with ``share_src_tgt_emb``, Paulus section 2.4)
    and the word-level LSTM, flat or ``per_chunk``."""
    src_emb = make_embedding(vocab_size, cfg.emb_dim, pad_id)
    tgt_emb = src_emb if cfg.share_src_tgt_emb else make_embedding(vocab_size, cfg.emb_dim, pad_id)
    encoder = LSTMWordEncoder(
        emb_dim=cfg.emb_dim,
        hidden=cfg.hidden,
        layers=cfg.enc_layers,
        dropout=cfg.dropout,
        per_chunk=per_chunk,
        bidirectional=cfg.bidirectional,
    )
    return src_emb, tgt_emb, encoder


class WordSource(nn.Module):
    """The source embedding and the word-level LSTM (flat: MODEL 0; per chunk: MODEL 1-3)."""

    def __init__(self, emb: nn.Embedding, encoder: LSTMWordEncoder):
        super().__init__()
        self.emb = emb
        self.encoder = encoder

    def read(self, src: Tensor, src_mask: Tensor, src_ext: Tensor | None, n_ext: int, *, skip_packing: bool) -> Memory:
        """``src``, ``src_mask`` ``(B, M, N)`` -> :class:`Memory` with words ``(B, M, N, H)`` and the
        encoder's final state (``cache`` is left to the attention)."""
        return self.read_embedded(self.emb(src), src_mask, src_ext, n_ext, skip_packing=skip_packing)

    def read_embedded(
        self, emb: Tensor, src_mask: Tensor, src_ext: Tensor | None, n_ext: int, *, skip_packing: bool
    ) -> Memory:
        """:meth:`read` from the embeddings ``(B, M, N, E)`` (0 on pad)."""
        words, (h, c) = self.encoder(emb, src_mask, skip_packing=skip_packing)  # (B, M, N, H)
        return Memory(
            words=words,
            word_mask=src_mask,
            chunk_mask=src_mask.any(-1),  # (B, M)
            src_ext=src_ext,
            n_ext=n_ext,
            final=(h.transpose(0, 1), c.transpose(0, 1)),  # (B, L, H) each
        )


class ChunkSource(WordSource):
    """The per-chunk word LSTM and the chunk encoder (MODEL 2/3); ``chunk_slice``: chunks the chunk
    encoder reads at a time on the lazy path."""

    def __init__(self, emb: nn.Embedding, encoder: LSTMWordEncoder, chunk_encoder: ChunkEncoder, chunk_slice: int):
        super().__init__(emb, encoder)
        self.chunk_encoder = chunk_encoder
        self.chunk_slice = chunk_slice

    def read(self, src: Tensor, src_mask: Tensor, src_ext: Tensor | None, n_ext: int, *, skip_packing: bool) -> Memory:
        """Word states ``(B, M, N, H)`` of every chunk and chunk vectors ``(B, M, Hc)``."""
        emb = self.emb(src)  # (B, M, N, E)
        memory = self.read_embedded(emb, src_mask, src_ext, n_ext, skip_packing=skip_packing)
        memory.chunks = self.chunk_encoder(src, emb, src_mask)  # (B, M, Hc)
        return memory

    def read_lazily(
        self,
        src: Tensor,
        src_mask: Tensor,
        src_ext: Tensor | None,
        n_ext: int,
        *,
        skip_packing: bool,
    ) -> Memory:
        """Chunk vectors ``(B, M, Hc)`` of every chunk; word states only of each document's last
        non-empty chunk (the decoder's initial state, as on the eager path), the others encoded
        when attention reads them (``memory.lazy``, a :class:`ChunkCache`). ``words`` is a
        ``(B, M, N, 0)`` placeholder."""
        B, M, N = src.shape
        # with gradients (lazy training), one look-up of the whole grid: one embedding gradient,
        # not one per encoder call; without, slices bound the scratch memory of long documents
        # (its gradient summed over the decoder steps' reads in one buffer: RowSource)
        emb = self.emb(src) if torch.is_grad_enabled() else None  # (B, M, N, E)
        chunks = self.chunk_encoder(src, emb, src_mask, embed=self.emb, slice_chunks=self.chunk_slice)
        chunk_mask = src_mask.any(-1)  # (B, M)
        grid = None if emb is None else RowSource(emb.flatten(0, 1))  # rows (B*M, N, E)

        def encode_rows(docs: Tensor, rows: Tensor) -> tuple[Tensor, tuple[Tensor, Tensor]]:
            """Chunks ``(docs[u], rows[u])`` through the per-chunk LSTM: ``(U, N, H)``, final ``(L, U, H)`` each."""
            e = self.emb(src[docs, rows]) if grid is None else grid.read(docs * M + rows)  # (U, N, E)
            mask = src_mask[docs, rows].unsqueeze(1)  # (U, 1, N)
            states, final = self.encoder(e.unsqueeze(1), mask, skip_packing=skip_packing)  # (U, 1, N, H)
            return states.squeeze(1), final

        cache = ChunkCache(encode_rows, src, src_mask)
        last = chunk_mask.long().cumsum(-1).argmax(-1)  # (B,) last non-empty chunk
        _, (h, c) = cache.encode(torch.arange(B, device=src.device), last)  # (L, B, H)
        return Memory(
            words=self.emb.weight.new_zeros(B, M, N, 0),
            word_mask=src_mask,
            chunk_mask=chunk_mask,
            chunks=chunks,
            src_ext=src_ext,
            n_ext=n_ext,
            final=(h.transpose(0, 1), c.transpose(0, 1)),
            doc=torch.arange(B, device=src.device),
            lazy=cache,
        )
