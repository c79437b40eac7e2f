"""The request queue: batching, grouping by options, bounded queue, timeouts, per-document errors.

A fake decode function records every call, so what was batched with what is known exactly.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from c2fsum.serving.batcher import Batcher, DecodeOptions, QueueFullError, RequestTimeoutError

GREEDY = DecodeOptions(beam=1, max_len=10, min_len=0, block_trigrams=False)
BEAM3 = DecodeOptions(beam=3, max_len=10, min_len=0, block_trigrams=False)


class FakeModel:
    """``summarize(texts, options)`` -> ``"<text>|beam=<k>"`` per text; "bad" raises ValueError."""

    def __init__(self, delay: float = 0.0, gate: threading.Event | None = None):
        self.calls: list[tuple[list[str], DecodeOptions]] = []
        self.delay, self.gate = delay, gate

    def __call__(self, texts: list[str], options: DecodeOptions) -> list[str]:
        if self.gate is not None:
            self.gate.wait(5)
        time.sleep(self.delay)
        self.calls.append((list(texts), options))
        if "bad" in texts:
            raise ValueError("text: bad document")
        return [f"{t}|beam={options.beam}" for t in texts]


async def _with_batcher(fake, body, **kw):
    b = Batcher(fake, **kw)
    await b.start()
    try:
        return await body(b)
    finally:
        await b.stop()


def test_concurrent_requests_are_batched_and_grouped_by_options():
    gate = threading.Event()
    fake = FakeModel(gate=gate)

    async def body(b):
        first = asyncio.create_task(b.submit("x0", GREEDY, timeout=5))  # the worker takes it and blocks on the gate
        await asyncio.sleep(0.05)
        rest = [asyncio.create_task(b.submit(f"x{i}", BEAM3 if i % 2 else GREEDY, timeout=5)) for i in range(1, 8)]
        await asyncio.sleep(0.05)
        gate.set()
        return await asyncio.gather(first, *rest)

    out = asyncio.run(_with_batcher(fake, body, max_batch=8, batch_wait=0.0))
    assert out == [f"x{i}|beam={3 if i % 2 else 1}" for i in range(8)]  # each request gets its own answer
    assert fake.calls[0] == (["x0"], GREEDY)
    # the 7 that waited meanwhile are decoded in one batch per option set, in arrival order
    assert sorted(fake.calls[1:], key=lambda c: c[1].beam) == [
        (["x2", "x4", "x6"], GREEDY),
        (["x1", "x3", "x5", "x7"], BEAM3),
    ]


def test_batches_never_exceed_max_batch():
    gate = threading.Event()
    fake = FakeModel(gate=gate)

    async def body(b):
        tasks = [asyncio.create_task(b.submit(f"x{i}", GREEDY, timeout=5)) for i in range(7)]
        await asyncio.sleep(0.05)
        gate.set()
        return await asyncio.gather(*tasks)

    out = asyncio.run(_with_batcher(fake, body, max_batch=3, batch_wait=0.0))
    assert out == [f"x{i}|beam=1" for i in range(7)]
    assert [len(texts) for texts, _ in fake.calls] == [3, 3, 1]


def test_a_bad_document_fails_only_its_own_request():
    gate = threading.Event()
    fake = FakeModel(gate=gate)

    async def body(b):
        tasks = [asyncio.create_task(b.submit(t, GREEDY, timeout=5)) for t in ("a", "bad", "c")]
        await asyncio.sleep(0.05)
        gate.set()
        return await asyncio.gather(*tasks, return_exceptions=True)

    a, bad, c = asyncio.run(_with_batcher(fake, body, max_batch=8, batch_wait=0.0))
    assert a == "a|beam=1" and c == "c|beam=1"
    assert isinstance(bad, ValueError) and str(bad) == "text: bad document"
    # the batch failed as a whole, then each document was decoded alone
    assert [texts for texts, _ in fake.calls] == [["a", "bad", "c"], ["a"], ["bad"], ["c"]]


def test_full_queue_refuses_at_once():
    gate = threading.Event()
    fake = FakeModel(gate=gate)

    async def body(b):
        busy = asyncio.create_task(b.submit("running", GREEDY, timeout=5))
        await asyncio.sleep(0.05)  # the worker holds "running"; the queue is empty again
        queued = [asyncio.create_task(b.submit(f"q{i}", GREEDY, timeout=5)) for i in range(2)]
        await asyncio.sleep(0)
        with pytest.raises(QueueFullError, match="2 requests are already waiting"):
            await b.submit("one too many", GREEDY, timeout=5)
        assert b.waiting == 2
        gate.set()
        return await asyncio.gather(busy, *queued)

    assert asyncio.run(_with_batcher(fake, body, max_batch=8, max_queue=2, batch_wait=0.0)) == [
        "running|beam=1",
        "q0|beam=1",
        "q1|beam=1",
    ]


def test_timeout_answers_and_the_abandoned_request_is_not_decoded():
    gate = threading.Event()
    fake = FakeModel(gate=gate)

    async def body(b):
        busy = asyncio.create_task(b.submit("slow", GREEDY, timeout=5))
        await asyncio.sleep(0.05)
        t0 = time.perf_counter()
        with pytest.raises(RequestTimeoutError, match="longer than 0.1 s"):
            await b.submit("gives up", GREEDY, timeout=0.1)
        waited = time.perf_counter() - t0
        gate.set()
        return await busy, waited

    result, waited = asyncio.run(_with_batcher(fake, body, batch_wait=0.0))
    assert result == "slow|beam=1" and 0.09 < waited < 2
    assert [texts for texts, _ in fake.calls] == [["slow"]]  # "gives up" never reached the model
