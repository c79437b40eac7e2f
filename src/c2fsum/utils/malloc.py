"""Keep freed blocks of up to 64 MiB in the process for reuse instead of returning them to the OS.

A training step allocates and frees the same large tensors every time (for MODEL 0 at 50,000
words and batch 20 x 16 steps: logits, their softmax gradient and the embedding gradients, 61 MB
each). glibc's malloc serves blocks of more than 32 MB with a fresh ``mmap`` and unmaps them on
free, so every step page-faults hundreds of MB of new zeroed pages: 15-20% of a CPU training
step was kernel time (``sys``) in our profiles. Served from malloc's heap, and the heap never
trimmed, the same pages are reused from step to step.

Only blocks up to :data:`HEAP_BLOCK_MAX` go to the heap. Larger ones (the LSTM's oneDNN
workspace, ~235 MiB per layer at the paper's sizes; the generator's weight gradient, 96 MiB)
are still mapped and unmapped: kept in the heap, they fragment it, and the process's peak RSS
grew by a third (MODEL 0, paper sizes: 1,318 -> 1,793 MiB) for ~10% less time per step. With
the bound, peak RSS grows by ~6% and the kernel time falls by about two thirds (docs/speed.md).

This only changes how memory is recycled, never a computed value. It applies to glibc (Linux);
elsewhere it does nothing. ``C2FSUM_MALLOC=default`` in the environment turns it off.
"""

from __future__ import annotations

import ctypes
import logging
import os

log = logging.getLogger(__name__)

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
HEAP_BLOCK_MAX = 64 * 2**20
"""Blocks up to this size come from (and return to) malloc's heap; larger ones are mapped."""
_done: bool | None = None


def keep_freed_memory() -> bool:
    """Serve blocks up to :data:`HEAP_BLOCK_MAX` from malloc's heap and never trim it.

    True if it took effect. Idempotent; call it once before a long loop of same-sized
    allocations (training, decoding).
    """
    global _done
    if _done is not None:
        return _done
    _done = False
    if os.environ.get("C2FSUM_MALLOC", "").lower() == "default":
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        _done = bool(libc.mallopt(_M_MMAP_THRESHOLD, HEAP_BLOCK_MAX)) and bool(
            libc.mallopt(_M_TRIM_THRESHOLD, 2**31 - 1)
        )
    except (OSError, AttributeError):  # not glibc
        _done = False
    log.debug("keep_freed_memory: %s", _done)
    return _done
