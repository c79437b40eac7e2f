"""c2fsum: coarse-to-fine attention models for long-document abstractive summarization."""

from __future__ import annotations

__version__ = "0.1.0"


def load(run_dir, *, device: str = "cpu"):
    """Load a trained model for summarization: ``c2fsum.load("cnndm-small").summarize(texts)``.

    ``run_dir`` is a shipped model name, a run or checkpoint directory, or a Hugging Face hub
    repository id ``owner/name[@revision]`` (see :mod:`c2fsum.pretrained.registry`).
    """
    from c2fsum.pipeline import load as _load

    return _load(run_dir, device=device)


__all__ = ["__version__", "load"]
