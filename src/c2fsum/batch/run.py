"""The driver of ``c2fsum batch``: plan what is left, run an engine, write what comes back.

::

    inputs --find_shards--> shards --Store.progress--> what is left of each (a rerun: little)
      --engine.run--> batches of finished rows, any order --Store.add--> a piece each
      --Store.finish--> a shard's file once all its records are done --> errors.jsonl

This process writes every file, so the output lands on the driver's machine whatever the
engine. A thread watches the run: when no paper finishes for :data:`PATIENCE` seconds it says
so on stderr, with what the engine waits for (a run never waits in silence).
"""

from __future__ import annotations

import json
import logging
import signal
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from c2fsum.batch.engines import ENGINES, LocalEngine, RayEngine, cpu_count, import_ray
from c2fsum.batch.shards import Shard, count_records, find_shards
from c2fsum.batch.store import Progress, Store
from c2fsum.batch.worker import Job, manifest_hash
from c2fsum.errors import InputError

log = logging.getLogger(__name__)

PATIENCE = 120.0
"""Seconds without a finished paper after which the driver says what it waits for (and again each as long)."""


@dataclass
class Report:
    """What one run of ``c2fsum batch`` did."""

    out: str
    shards: int
    """Input shards in all (finished before this run or by it)."""
    summarized: int = 0
    """Papers summarized by this run."""
    errors: int = 0
    """Bad records found by this run (in ``errors.jsonl`` with the earlier runs')."""
    resumed: int = 0
    """Records (papers and bad ones) of unfinished shards that earlier runs had done."""
    skipped_shards: int = 0
    """Shards finished by earlier runs."""
    seconds: float = 0.0
    workers: set[str] = field(default_factory=set)
    """``host:pid`` of each worker that finished a batch."""

    def line(self) -> str:
        rate = self.summarized / self.seconds if self.seconds else 0.0
        before = (
            f", {self.resumed} records and {self.skipped_shards} shards done before"
            if self.resumed or self.skipped_shards
            else ""
        )
        return (
            f"{self.summarized} papers summarized ({rate:.2f}/s on {len(self.workers)} workers), "
            f"{self.errors} bad records{before}; {self.shards} shards in {self.out}"
        )


class Watchdog:
    """A thread that logs a warning when :meth:`tick` has not been called for ``patience`` seconds."""

    def __init__(self, patience: float, waiting):
        self.patience = patience
        self.waiting = waiting
        self.last = time.monotonic()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True, name="batch-watchdog")

    def __enter__(self) -> Watchdog:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=5)

    def tick(self) -> None:
        self.last = time.monotonic()

    def _watch(self) -> None:
        while not self.stop.wait(min(self.patience, 5.0) / 2):
            idle = time.monotonic() - self.last
            if idle >= self.patience:
                try:
                    what = self.waiting()
                except Exception as e:  # the engine cannot say: say that
                    what = f"({type(e).__name__}: {e})"
                log.warning("no paper finished in the last %.0f s; waiting for %s", idle, what)
                self.last = time.monotonic()


def model_identity(model: str) -> tuple[str, str]:
    """The checkpoint folder a model name means and its manifest hash (what each output row carries)."""
    from c2fsum.models.checkpoint import resolve_checkpoint, verify_checkpoint

    path = resolve_checkpoint(model)
    verify_checkpoint(path)
    return str(path), manifest_hash(path)


def run_batch(
    model: str,
    inputs: Sequence[str | Path],
    out: str | Path,
    *,
    engine: str = "local",
    workers: int | None = None,
    address: str | None = None,
    batch_size: int = 16,
    extract: bool = False,
    fmt: str = "jsonl",
    decode: dict[str, Any] | None = None,
    progress: bool = False,
) -> Report:
    """Summarize every article of ``inputs`` into ``out`` (see :mod:`c2fsum.batch`); a rerun with
    the same arguments finishes what an interrupted one left. ``workers`` None: one per CPU (of
    this machine, or of the Ray cluster). InputError for a bad option, input or output folder."""
    if engine not in ENGINES:
        raise InputError(f"--engine: got {engine!r}, expected one of {', '.join(ENGINES)}")
    if batch_size < 1:
        raise InputError(f"--batch-size: expected at least 1, got {batch_size}")
    if address and address.startswith("ray://"):
        raise InputError(
            f"--address {address}: Ray Data does not run through Ray Client in Ray 2.60 (its executor "
            "needs a driver of its own); run c2fsum batch on a node of the cluster with --address auto, "
            "or from any machine that reaches it with --address HOST:6379"
        )
    if address and engine != "ray":
        raise InputError(f"--address {address}: joins a Ray cluster, so needs --engine ray")
    if engine == "ray":
        import_ray()  # its absence is said before anything is read or loaded
    # Ray starts (ray.init: its processes, a few seconds) while this thread reads the inputs and
    # checks the model (importing torch), instead of after
    starting = Starting(lambda: RayEngine(workers, address)) if engine == "ray" else None
    try:
        return _plan_and_run(
            model, inputs, out, starting, workers, batch_size, extract, fmt, decode or {}, progress=progress
        )
    finally:
        if starting is not None:
            starting.close()


def _not_main_thread_warning(record: logging.LogRecord) -> bool:
    return "current thread is not the main thread" not in record.getMessage()


class Starting:
    """An engine made by ``make()`` in a thread of its own, begun at once; the thread lives until
    :meth:`close`, since the processes ``ray.init`` starts are killed when the thread that started
    them ends (their parent-death signal: the driver then lost its object store and died)."""

    def __init__(self, make: Callable[[], RayEngine]):
        self.main = threading.current_thread() is threading.main_thread()
        if self.main:
            # what ray.init does in the main thread, and cannot in another: SIGTERM exits (Ray stops with it)
            self.sigterm = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(signum))
            logging.getLogger("ray._private.worker").addFilter(_not_main_thread_warning)
        self.future: Future[RayEngine] = Future()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._make, args=(make,), daemon=True, name="batch-engine-start")
        self.thread.start()

    def _make(self, make: Callable[[], RayEngine]) -> None:
        try:
            self.future.set_result(make())
        except BaseException as e:
            self.future.set_exception(e)
            return
        self.done.wait()

    def result(self) -> RayEngine:
        """The engine, once made (or the error that making it raised)."""
        return self.future.result()

    def close(self) -> None:
        """Close the engine (once made) and end the thread."""
        try:
            engine = self.result()
        except Exception:  # raised in the run already, or not needed: nothing was left to do
            log.debug("the Ray engine did not start", exc_info=True)
        else:
            engine.close()
        finally:
            self.done.set()
            self.thread.join(timeout=5)
            if self.main:
                signal.signal(signal.SIGTERM, self.sigterm or signal.SIG_DFL)


def _plan_and_run(
    model: str,
    inputs: Sequence[str | Path],
    out: str | Path,
    starting: Starting | None,
    workers: int | None,
    batch_size: int,
    extract: bool,
    fmt: str,
    decode: dict[str, Any],
    *,
    progress: bool,
) -> Report:
    """What :func:`run_batch` does once its options are checked: plan what is left, then run it on
    the engine ``starting`` (Ray's, being started) or, when None, a local one."""
    decode = {k: v for k, v in decode.items() if v is not None}
    shards = find_shards(inputs)
    store = Store(out, fmt)
    _, manifest = model_identity(model)
    job = Job(model=model, extract=extract, decode=decode)
    store.begin(
        {
            "model": model,
            "manifest": manifest,
            "extract": extract,
            "decode": decode,
            "format": fmt,
            "inputs": [s.path for s in shards],
        }
    )
    report = Report(out=str(out), shards=len(shards))
    todo: list[tuple[Shard, Progress]] = []
    for s in shards:
        if store.is_finished(s):
            report.skipped_shards += 1
            continue
        p = store.progress(s)
        if p.finished:  # killed between its last piece and its file
            store.finish(s)
            continue
        report.resumed += len(p.done)
        todo.append((s, p))
    start = time.monotonic()
    if todo:
        runner = starting.result() if starting is not None else LocalEngine(workers or cpu_count())
        _run(runner, todo, job, manifest, store, report, batch_size=batch_size, progress=progress)
    store.write_errors(shards)
    report.seconds = time.monotonic() - start
    return report


def _run(runner, todo, job: Job, manifest: str, store: Store, report: Report, *, batch_size: int, progress: bool):
    by_index = {s.index: (s, p) for s, p in todo}
    total = sum(max(count_records(s.path), len(p.done)) for s, p in todo)
    bar = tqdm(
        total=total,
        initial=report.resumed,
        unit="paper",
        desc="batch",
        disable=not progress,
        dynamic_ncols=True,
        smoothing=0.1,
    )
    with Watchdog(PATIENCE, runner.waiting) as watchdog:
        for batch in runner.run([(s, p.done) for s, p in todo], job, batch_size):
            watchdog.tick()
            rows: dict[int, list[dict]] = defaultdict(list)
            for shard, seq, kind, record, worker in zip(
                batch["shard"], batch["seq"], batch["kind"], batch["record"], batch["worker"], strict=True
            ):
                r = {"seq": seq, "kind": kind, "record": json.loads(record)}
                if kind == "summary" and r["record"]["manifest"] != manifest:
                    raise InputError(
                        f"worker {worker} loaded another {job.model} (manifest {r['record']['manifest'][:12]}, "
                        f"this machine's {manifest[:12]}): install the same c2fsum and models on every machine"
                    )
                rows[shard].append(r)
                report.workers.add(worker)
                report.summarized += kind == "summary"
                report.errors += kind == "error"
            for index, got in rows.items():
                shard, p = by_index[index]
                store.add(shard, got, p)
                bar.update(sum(r["kind"] != "end" for r in got))
                if p.finished:
                    store.finish(shard)
                    if p.count is not None and bar.total < bar.n:
                        bar.total = bar.n
    bar.close()


def report_json(report: Report) -> str:
    """The report as one JSON object (``workers`` as a count)."""
    d = asdict(report)
    d["workers"] = len(report.workers)
    return json.dumps(d)
