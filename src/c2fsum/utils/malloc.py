"""Opt-in (``C2FSUM_MALLOC=keep``): keep freed blocks in the process for reuse instead of
returning them to the OS.

A training step allocates and frees the same large tensors every time (for MODEL 0 at 50,000
words and batch 20 x 16 steps: the logits, 61 MB; the embedding gradients, 57 MB each; the
generator's weight gradient, 95 MB at the paper's sizes). glibc's malloc serves blocks of more
than 32 MB with a fresh ``mmap`` and unmaps them on free, so every step page-faults hundreds of
MB of new zeroed pages: 5-15% of a CPU training step is kernel time (``sys``). Served from
malloc's heap, and the heap never trimmed, the same pages are reused from step to step: steps
take 5-10% less time (docs/speed.md).

The price is memory, which is why this is off unless asked for: the heap fragments, and peak
RSS grows by 10-30% over the first hundred steps (CPU-sized MODEL 0: 1,035 MiB after 60 steps
and 1,102 after 150, against 854 after 60 with glibc's default behaviour). Only blocks up to a
bound go to the heap (64 MiB, or the model's largest parameter, whose gradient is allocated
every step, if larger); the LSTM's oneDNN workspaces (~235 MiB per layer at the paper's sizes)
stay mapped: kept too, they raised the paper-size peak to 1,640-1,835 MiB, against ~1,330 with
glibc's defaults.

This only changes how memory is recycled, never a computed value. It applies to glibc (Linux);
elsewhere, or without ``C2FSUM_MALLOC=keep``, it does nothing.
"""

from __future__ import annotations

import ctypes
import logging
import os

log = logging.getLogger(__name__)

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
HEAP_BLOCK_MIN = 64 * 2**20
"""Blocks up to at least this size come from (and return to) malloc's heap; larger ones are mapped."""
_bound = 0
"""The bound set so far (0: not set)."""


def keep_freed_memory(largest_block: int = 0) -> bool:
    """With ``C2FSUM_MALLOC=keep``: serve blocks up to ``max(HEAP_BLOCK_MIN, largest_block)`` bytes
    from malloc's heap and never trim it. True if it took effect.

    ``largest_block``: the size of the largest block that recurs every step and should be
    reused (e.g. the largest parameter's gradient). Calling again with a larger size raises the
    bound; call it before a long loop of same-sized allocations (training, decoding).
    """
    global _bound
    if os.environ.get("C2FSUM_MALLOC", "").lower() != "keep":
        return False
    bound = max(HEAP_BLOCK_MIN, largest_block + 2**20)
    if _bound >= bound:
        return True
    try:
        libc = ctypes.CDLL("libc.so.6")
        ok = bool(libc.mallopt(_M_MMAP_THRESHOLD, bound)) and bool(libc.mallopt(_M_TRIM_THRESHOLD, 2**31 - 1))
    except (OSError, AttributeError):  # not glibc
        ok = False
    if ok:
        _bound = bound
    log.debug("keep_freed_memory(%d): %s", bound, ok)
    return ok


def largest_parameter_bytes(module) -> int:
    """Bytes of the largest parameter of a ``torch.nn.Module`` (its gradient's size)."""
    return max((p.numel() * p.element_size() for p in module.parameters()), default=0)
