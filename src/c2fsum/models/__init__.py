"""Model families, built by name from a :class:`c2fsum.config.ModelConfig`."""

from __future__ import annotations

from c2fsum.config import ModelConfig
from c2fsum.models.base import DecoderState, Memory, StepOutput, Summarizer
from c2fsum.models.model0 import Model0

FAMILIES = ("model0",)


def build_model(cfg: ModelConfig, vocab_size: int) -> Summarizer:
    """Instantiate the family named by ``cfg.family`` with the sizes of ``cfg``."""
    if cfg.family == "model0":
        return Model0(vocab_size=vocab_size, emb_dim=cfg.emb_dim, hidden=cfg.hidden,
                      enc_layers=cfg.enc_layers, dec_layers=cfg.dec_layers, dropout=cfg.dropout,
                      input_feed=cfg.input_feed, init_range=cfg.init_range)
    raise ValueError(f"model.family: unknown family {cfg.family!r}, expected one of {', '.join(FAMILIES)}")


__all__ = ["FAMILIES", "DecoderState", "Memory", "StepOutput", "Summarizer", "build_model", "Model0"]
