"""Moved to :mod:`c2fsum.models.registry` (model names sit beside the models that read them).

This name stays for code written against c2fsum 0.1, which imported ``c2fsum.training.registry``.
"""

from c2fsum.models.registry import PRETRAINED_DIR, SHIPPED, resolve_model, shipped_names

__all__ = ["PRETRAINED_DIR", "SHIPPED", "resolve_model", "shipped_names"]
