"""Keep freed memory in the process for reuse instead of returning it to the OS at once.

A training step allocates and frees the same large tensors every time (for MODEL 0 at 50,000
words: logits, log-probabilities and their gradients, 64 MB each at batch 20 x 16 steps). glibc's
malloc serves blocks of more than 32 MB with a fresh ``mmap`` and unmaps them on free, so every
step page-faults hundreds of MB of new zeroed pages: 18-20% of a CPU training step was kernel
time (``sys``) in our profiles. With every block served from malloc's heap and the heap never
trimmed, the same pages are reused from step to step: the kernel time drops to ~0 and a step
takes ~25% less CPU, for ~15-20% more peak RSS (freed blocks stay resident).

This only changes how memory is recycled, never a computed value. It applies to glibc (Linux);
elsewhere it does nothing. ``C2FSUM_MALLOC=default`` in the environment turns it off.
"""

from __future__ import annotations

import ctypes
import logging
import os

log = logging.getLogger(__name__)

_M_TRIM_THRESHOLD = -1
_M_MMAP_MAX = -4
_done: bool | None = None


def keep_freed_memory() -> bool:
    """Serve all allocations from malloc's heap and never trim it. True if it took effect.

    Idempotent; call it once before a long loop of same-sized allocations (training, decoding).
    """
    global _done
    if _done is not None:
        return _done
    _done = False
    if os.environ.get("C2FSUM_MALLOC", "").lower() == "default":
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        _done = bool(libc.mallopt(_M_MMAP_MAX, 0)) and bool(libc.mallopt(_M_TRIM_THRESHOLD, 2**31 - 1))
    except (OSError, AttributeError):  # not glibc
        _done = False
    log.debug("keep_freed_memory: %s", _done)
    return _done
