"""Decoding: greedy, batched beam search (length penalty, trigram blocking), sampling.

The names below are loaded on first use (PEP 562), so that importing a torch-free module of this
package (``render``, ``postprocess``: model-free extraction renders with them) loads no torch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from c2fsum.decoding.beam import beam_search
    from c2fsum.decoding.greedy import greedy_decode
    from c2fsum.decoding.hypothesis import Hypothesis
    from c2fsum.decoding.sampling import Sample, sample

_HOME = {
    "beam_search": "beam",
    "greedy_decode": "greedy",
    "Hypothesis": "hypothesis",
    "Sample": "sampling",
    "sample": "sampling",
}

__all__ = ["Hypothesis", "Sample", "beam_search", "greedy_decode", "sample"]


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(importlib.import_module(f"c2fsum.decoding.{_HOME[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
