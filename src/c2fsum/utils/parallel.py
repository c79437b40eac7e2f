"""Work on a process pool in input order: what ``prepare`` and ``pairs`` share to write the
splits of a folder from many documents at once."""

from __future__ import annotations

import itertools
import multiprocessing
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def split_pool(workers: int, tmp_paths: Sequence[Path]) -> Iterator[Any]:
    """A pool of ``workers`` processes (None for one) for writing the splits of a folder:
    closed and joined when the block ends, terminated whatever happens; on an error the splits'
    temporary files ``tmp_paths`` are removed, so the folder changes only on success."""
    pool = multiprocessing.get_context().Pool(workers) if workers > 1 else None
    try:
        yield pool
        if pool is not None:
            pool.close()
            pool.join()
    except BaseException:
        for path in tmp_paths:
            path.unlink(missing_ok=True)
        raise
    finally:
        if pool is not None:
            pool.terminate()


def ordered_map(func: Callable, items: Iterable, pool, *, max_pending: int) -> Iterator:
    """``map(func, items)`` in input order, on ``pool`` (None: in this process).

    ``Pool.imap`` reads its input as fast as it can; a semaphore holds the reader back so
    that at most ``max_pending`` items are in flight (a whole corpus never sits in memory).
    """
    if pool is None:
        yield from map(func, items)
        return
    slots = threading.Semaphore(max_pending)
    stop = threading.Event()

    def feed() -> Iterator:
        for item in items:
            while not slots.acquire(timeout=0.1):
                if stop.is_set():
                    return
            if stop.is_set():
                return
            yield item

    try:
        for result in pool.imap(func, feed()):
            slots.release()
            yield result
    finally:
        stop.set()


def chunked(items: Iterable, size: int) -> Iterator[list]:
    """``items`` in lists of ``size`` (the last one shorter)."""
    it = iter(items)
    while chunk := list(itertools.islice(it, size)):
        yield chunk
