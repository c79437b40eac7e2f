"""Model families, built by name from a :class:`c2fsum.config.ModelConfig`."""

from __future__ import annotations

from c2fsum.config import ModelConfig
from c2fsum.models.base import (
    Capabilities,
    DecoderState,
    ForwardOutput,
    Memory,
    Model,
    Selector,
    StepOutput,
    Summarizer,
)
from c2fsum.models.coarse_to_fine import CoarseToFine
from c2fsum.models.flat import Flat
from c2fsum.models.select_rewrite import SentenceSelector

FAMILIES: dict[str, type[Flat] | type[CoarseToFine] | type[SentenceSelector]] = {
    "model0": Flat,
    "model1": Flat,
    "model2": CoarseToFine,
    "model3": CoarseToFine,
    "select-rewrite": SentenceSelector,
}
"""``model.family`` -> the class that builds it."""


def build_model(cfg: ModelConfig, vocab_size: int, max_chunks: int = 10) -> Model:
    """The family named by ``cfg.family`` with the sizes of ``cfg``: a :class:`Summarizer`, or a
    :class:`Selector` (``select-rewrite``).

    ``max_chunks`` (the grid's M) sizes the chunk-position embedding of +POS models.
    """
    if cfg.family not in FAMILIES:
        raise ValueError(f"model.family: unknown family {cfg.family!r}, expected one of {', '.join(FAMILIES)}")
    return FAMILIES[cfg.family](cfg, vocab_size, max_chunks)


__all__ = [
    "FAMILIES",
    "Capabilities",
    "CoarseToFine",
    "DecoderState",
    "Flat",
    "ForwardOutput",
    "Memory",
    "Model",
    "Selector",
    "StepOutput",
    "Summarizer",
    "build_model",
]
