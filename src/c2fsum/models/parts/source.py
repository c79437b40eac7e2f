"""The source encoder every family starts from: a grid of word ids -> :class:`~c2fsum.models.base.Memory`.

    src (B, M, N) --emb--> (B, M, N, E) --LSTM, flat or per chunk--> word states h_ij (B, M, N, H)

:class:`WordSource` reads every word (MODEL 0 flat, MODEL 1 per chunk); MODEL 2/3 add the chunk
vectors and lazy reading (:class:`~c2fsum.models.coarse_to_fine.ChunkSource`). Each is an
``nn.Module`` that owns its embedding (``emb``) and word-level LSTM (``encoder``).
"""

from __future__ import annotations

from torch import Tensor, nn

from c2fsum.config import ModelConfig
from c2fsum.models.base import Memory
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
