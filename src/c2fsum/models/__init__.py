"""Model families, built by name from a :class:`c2fsum.config.ModelConfig`."""

from __future__ import annotations

from c2fsum.config import ModelConfig
from c2fsum.models.base import Capabilities, DecoderState, ForwardOutput, Memory, StepOutput, Summarizer
from c2fsum.models.coarse_to_fine import CoarseToFine
from c2fsum.models.model0 import Model0

FAMILIES = ("model0", "model1", "model2", "model3")


def build_model(cfg: ModelConfig, vocab_size: int, max_chunks: int = 10) -> Summarizer:
    """Instantiate the family named by ``cfg.family`` with the sizes of ``cfg``.

    ``max_chunks`` (the grid's M) sizes the chunk-position embedding of +POS models.
    """
    common: dict = dict(
        vocab_size=vocab_size,
        emb_dim=cfg.emb_dim,
        hidden=cfg.hidden,
        enc_layers=cfg.enc_layers,
        dec_layers=cfg.dec_layers,
        dropout=cfg.dropout,
        input_feed=cfg.input_feed,
        init_range=cfg.init_range,
        bidirectional=cfg.bidirectional,
        intra_decoder=cfg.intra_decoder,
        pointer=cfg.pointer,
        share_embeddings=cfg.share_embeddings,
        shared_output=cfg.shared_output,
        share_src_tgt_emb=cfg.share_src_tgt_emb,
        output=cfg.output,
    )
    if cfg.family in ("model0", "model1"):
        return Model0(**common, per_chunk=cfg.family == "model1", temporal=cfg.temporal)
    if cfg.family in ("model2", "model3"):
        return CoarseToFine(
            **common,
            chunk_encoder=cfg.chunk_encoder,
            chunk_filters=cfg.chunk_filters,
            chunk_width=cfg.chunk_width,
            pos_dim=cfg.pos_dim,
            max_chunks=max_chunks,
            coarse="soft" if cfg.family == "model2" else "hard",
            samples=cfg.samples,
            temporal=cfg.temporal,
            lazy_fine=cfg.lazy_fine,
        )
    raise ValueError(f"model.family: unknown family {cfg.family!r}, expected one of {', '.join(FAMILIES)}")


__all__ = [
    "FAMILIES",
    "Capabilities",
    "CoarseToFine",
    "DecoderState",
    "ForwardOutput",
    "Memory",
    "Model0",
    "StepOutput",
    "Summarizer",
    "build_model",
]
