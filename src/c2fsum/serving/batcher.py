"""A bounded queue in front of one decoding thread, batching requests that decode alike.

    request -> submit() -> asyncio.Queue (at most max_queue waiting; one more: QueueFullError)
                              |
                 worker task: take one, wait batch_wait, take up to max_batch in all,
                 group by DecodeOptions, run each group in the decoding thread
                              |
    request <- its own result or exception (a batch that fails is retried one document at a
               time, so one bad document fails only its own request)

The model runs in one thread at a time (``ThreadPoolExecutor(1)``), so concurrency is bounded by
the queue, and the event loop stays free to accept, refuse and time out requests meanwhile.
A request that timed out before its batch started is dropped from the batch.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from c2fsum.decoding.options import DecodeOptions  # requests with equal options share a batch

log = logging.getLogger(__name__)


class QueueFullError(RuntimeError):
    """More requests are waiting than the server accepts (HTTP 503)."""


class RequestTimeoutError(RuntimeError):
    """A request waited and decoded longer than the server's timeout (HTTP 504)."""


SummarizeFn = Callable[[list[str], DecodeOptions], list[Any]]
"""Decodes texts with one set of options; returns one result per text, in order."""


@dataclass
class _Job:
    text: str
    options: DecodeOptions
    future: asyncio.Future


class Batcher:
    """Queue requests and decode them in batches on one worker thread."""

    def __init__(self, summarize: SummarizeFn, *, max_batch: int = 8, max_queue: int = 64, batch_wait: float = 0.005):
        self.summarize = summarize
        self.max_batch, self.max_queue, self.batch_wait = max_batch, max_queue, batch_wait
        self._queue: asyncio.Queue[_Job] | None = None
        self._task: asyncio.Task | None = None
        self._executor: ThreadPoolExecutor | None = None
        self.batches = 0
        """Number of model calls so far (a batch of k documents counts once)."""
        self.documents = 0

    @property
    def waiting(self) -> int:
        return self._queue.qsize() if self._queue is not None else 0

    async def start(self) -> None:
        self._queue = asyncio.Queue(maxsize=self.max_queue)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="c2fsum-decode")
        self._task = asyncio.create_task(self._run(), name="c2fsum-batcher")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        if self._queue is not None:
            while not self._queue.empty():
                job = self._queue.get_nowait()
                if not job.future.done():
                    job.future.set_exception(RuntimeError("the server is shutting down"))
        if self._executor is not None:
            self._executor.shutdown(wait=True)
        self._task = self._queue = self._executor = None

    async def submit(self, text: str, options: DecodeOptions, *, timeout: float) -> Any:
        """The result of ``summarize([text], options)[0]``; raises its exception, or
        :class:`QueueFullError` / :class:`RequestTimeoutError`."""
        if self._queue is None:
            raise RuntimeError("Batcher.submit called before start()")
        fut = asyncio.get_running_loop().create_future()
        try:
            self._queue.put_nowait(_Job(text, options, fut))
        except asyncio.QueueFull:
            raise QueueFullError(
                f"the server is busy: {self.max_queue} requests are already waiting; retry later"
            ) from None
        try:
            return await asyncio.wait_for(asyncio.shield(fut), timeout)
        except TimeoutError:
            fut.cancel()  # the worker skips it if its batch has not started
            raise RequestTimeoutError(f"the request took longer than {timeout:g} s and was abandoned") from None

    async def _run(self) -> None:
        assert self._queue is not None
        while True:
            jobs = [await self._queue.get()]
            if self.batch_wait > 0:
                await asyncio.sleep(self.batch_wait)
            while len(jobs) < self.max_batch and not self._queue.empty():
                jobs.append(self._queue.get_nowait())
            groups: dict[DecodeOptions, list[_Job]] = {}
            for job in jobs:
                if not job.future.done():  # timed out while waiting
                    groups.setdefault(job.options, []).append(job)
            for options, group in groups.items():
                await self._decode(options, group)

    async def _decode(self, options: DecodeOptions, jobs: list[_Job]) -> None:
        loop = asyncio.get_running_loop()
        try:
            results = await loop.run_in_executor(self._executor, self.summarize, [j.text for j in jobs], options)
            self.batches += 1
            self.documents += len(jobs)
        except Exception as e:  # noqa: BLE001 - handed to the request(s) that caused it
            if len(jobs) > 1:  # find which document failed: one at a time
                for job in jobs:
                    if not job.future.done():
                        await self._decode(options, [job])
                return
            _resolve(jobs[0].future, exc=e)
            return
        for job, result in zip(jobs, results, strict=True):
            _resolve(job.future, result=result)


def _resolve(fut: asyncio.Future, *, result: Any = None, exc: BaseException | None = None) -> None:
    if fut.done():  # the request gave up (timeout) meanwhile
        return
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(result)
