"""Where ``c2fsum batch`` runs its workers: ``local`` (a process pool, no cluster) or ``ray`` (Ray Data).

Both take the shards still to do and give back batches of finished rows (columns of
:data:`c2fsum.batch.worker.OUT_COLUMNS`) as they finish, in any order; the driver
(:mod:`c2fsum.batch.run`) writes them. Both run the same :class:`~c2fsum.batch.worker.Summarizer`,
one per worker, each with the model loaded once and one torch thread: papers per second grow
with workers, one per core.

``ray``: Ray Data's streaming executor, our own scheduler nowhere::

    from_items(one item per shard)                       the shards, with what is done of each
      .map_batches(read, num_cpus=0.05, TaskPoolStrategy(size=1))   reading: a task at a time, on the
                                                           driver's node; B rows packed as one row
      .map_batches(PackedSummarizer, ActorPoolStrategy(size=W), num_cpus=c, batch_size=1)
                                                           a block (one packed batch of B rows) a call
      .iter_batches(batch_size=None)                       back to the driver, which writes

The read stage asks for a twentieth of a CPU, so it never takes the CPU a worker waits for (with
1 CPU per read task and per worker, 2 workers on 2 CPUs never started: the read tasks held the
CPUs), and each worker asks for ``c`` CPUs, at most 1, chosen by :func:`worker_cpus` so that
all W workers fit on the cluster's nodes at once.
"""

from __future__ import annotations

import json
import logging
import math
import multiprocessing
import os
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from typing import Any

from c2fsum.batch.shards import ROW_COLUMNS, Shard, read_rows
from c2fsum.batch.worker import Job, Summarizer
from c2fsum.errors import InputError, UserError

log = logging.getLogger(__name__)

ENGINES = ("local", "ray")
READ_CPUS = 0.05
"""CPUs the read stage asks Ray for (one task at a time): a share no worker misses."""
RAY_EXTRA = "c2fsum[ray]"


class WorkerDied(UserError, RuntimeError):
    """A worker process ended without finishing its batch (killed, or out of memory)."""


Todo = Sequence[tuple[Shard, set[int]]]
"""The shards to read, each with the records (seq) already done."""


def columns(rows: list[dict], names: Sequence[str] = ROW_COLUMNS) -> dict[str, list]:
    """Rows (dicts) as columns."""
    return {c: [r[c] for r in rows] for c in names}


def cpu_count() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# ------------------------------------------------------------------------------------- local
_WORKER: Summarizer | None = None
"""The local engine's worker in each pool process (made once by :func:`_start`)."""


def _start(job: Job) -> None:
    global _WORKER
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True, name="parent-watch").start()
    _WORKER = Summarizer(job)


def _exit_with_parent(parent: int, every: float = 0.5) -> None:
    """A pool process's watch: it ends when its driver is gone (a SIGKILL of the driver leaves
    the pool's processes to init, each holding a model, waiting on a queue no one writes)."""
    while os.getppid() == parent:
        time.sleep(every)
    os._exit(1)


def _call(batch: dict[str, list]) -> dict[str, list]:
    assert _WORKER is not None, "pool process without its Summarizer"
    return _WORKER(batch)


def row_batches(todo: Todo, batch_size: int) -> Iterator[dict[str, list]]:
    """The rows of every shard to do, read here in order, as columns of ``batch_size`` rows."""
    chunk: list[dict] = []
    for shard, done in todo:
        for r in read_rows(shard.index, shard.path, done):
            chunk.append(r)
            if len(chunk) == batch_size:
                yield columns(chunk)
                chunk = []
    if chunk:
        yield columns(chunk)


class LocalEngine:
    """``workers`` processes (spawned, so nothing of this one is shared), each a
    :class:`Summarizer`; this process reads the shards and keeps two batches per worker in flight."""

    name = "local"

    def __init__(self, workers: int):
        self.workers = workers

    def run(self, todo: Todo, job: Job, batch_size: int) -> Iterator[dict[str, list]]:
        job = replace(job, threads=1)
        pool = ProcessPoolExecutor(
            self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_start, initargs=(job,)
        )
        try:
            source = row_batches(todo, batch_size)
            pending: set = set()
            more = True
            while more or pending:
                while more and len(pending) < 2 * self.workers:
                    batch = next(source, None)
                    if batch is None:
                        more = False
                    else:
                        pending.add(pool.submit(_call, batch))
                if not pending:
                    break
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    yield f.result()
        except BrokenProcessPool as e:
            raise WorkerDied(
                "a worker process died (killed, or out of memory) before finishing its batch; what was "
                "finished is kept: run the same command again to do the rest"
            ) from e
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def waiting(self) -> str:
        """What the run waits for, said when nothing finishes for a while."""
        return f"{self.workers} local worker process(es), 1 thread each, on {cpu_count()} CPU(s)"


# --------------------------------------------------------------------------------------- ray
def import_ray() -> Any:
    """The ``ray`` module with Ray Data, or InputError naming the extra that installs it."""
    try:
        import ray
        import ray.data  # noqa: F401 - Ray Data comes with ray[data]
    except ImportError as e:
        raise InputError(
            f"--engine ray: Ray is not installed; install the extra: pip install '{RAY_EXTRA}' (make install does), "
            "or use --engine local"
        ) from e
    return ray


RAY_INIT: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": True}
"""``ray.init`` options of every connection (a cluster joined or started here)."""


RAY_SYSTEM_CONFIG: dict[str, Any] = {"worker_niceness": 0}
"""Ray's own settings of a local instance started here. ``worker_niceness``: Ray runs its worker
processes at nice 15 unless told (``core_worker.cc``: "Adjusted worker niceness to 15"), so that
the driver and Ray's daemons always go first; the workers here are the work, and run at nice 0 as
the local engine's processes do. A cluster joined with ``--address`` keeps its own setting: start
it with ``RAY_worker_niceness=0 ray start ...``."""


def init_local_ray(ray: Any, **options: Any) -> None:
    """Start a local Ray instance for this process, as ``c2fsum batch`` without ``--address`` does
    (``bench/corpus.py`` starts its cluster this way too)."""
    ray.init(address="local", include_dashboard=False, _system_config=RAY_SYSTEM_CONFIG, **RAY_INIT, **options)


def worker_cpus(node_cpus: Sequence[float], workers: int, read_cpus: float = READ_CPUS) -> float:
    """CPUs each of ``workers`` asks Ray for so that all of them run at once on nodes of
    ``node_cpus`` (the first runs the read stage, ``read_cpus``): the largest equal share, at
    most 1 (a worker runs one torch thread), with which every worker fits on some node.

    >>> worker_cpus([2], 2)   # two workers and the read stage on two CPUs
    0.975
    """
    free = [c - (read_cpus if i == 0 else 0.0) for i, c in enumerate(node_cpus)]
    if workers < 1 or sum(free) <= 0:
        raise InputError(f"--workers {workers}: a cluster of {sum(node_cpus):g} CPUs cannot run them")

    def fits(share: float) -> int:
        return sum(math.floor(f / share + 1e-9) for f in free if f > 0)

    share = min(1.0, sum(free) / workers)
    while fits(share) < workers:  # the next smaller share that puts one more worker on some node
        share = max(f / (math.floor(f / share + 1e-9) + 1) for f in free if f > 0)
    return math.floor(share * 1000) / 1000


PACKED = "batch"
"""The one column of Ray Data's rows: a batch of ``B`` rows as one JSON object of columns (the
read stage's rows, the workers' rows back). A block holds one such row (one batch), so each
actor call gets exactly one batch of ``B`` rows, as the local engine's calls do."""


def pack(batch: dict[str, list]) -> str:
    """A batch (columns) as the one value Ray Data carries for it."""
    return json.dumps(batch, ensure_ascii=False)


def unpack(value: Any) -> dict[str, list]:
    """The batch (columns) a packed value holds (Ray gives numpy strings, or bytes)."""
    return json.loads(value.decode("utf-8") if isinstance(value, bytes) else str(value))


def _read_batches(items: dict[str, Any], batch_size: int) -> Iterator[dict[str, list]]:
    """Ray Data's read stage: the rows of the shards of ``items`` (one, as Ray gives it: columns of
    numpy values), each batch of ``batch_size`` rows packed as one row (:data:`PACKED`)."""
    for shard, path, done in zip(items["shard"], items["path"], items["done"], strict=True):
        for batch in row_batches([(Shard(int(shard), str(path), ""), set(json.loads(str(done))))], batch_size):
            yield {PACKED: [pack(batch)]}


class PackedSummarizer(Summarizer):
    """The :class:`Summarizer` as Ray Data's actors run it: packed batches in, packed batches out
    (:data:`PACKED`), one call of the model per batch."""

    def __call__(self, batch: Mapping[str, Sequence[Any]]) -> dict[str, list]:
        call = super().__call__
        return {PACKED: [pack(call(unpack(v))) for v in batch[PACKED]]}


class RayEngine:
    """Ray Data on a cluster: joined (``address``: ``auto`` or ``HOST:6379``; not ``ray://``, see
    :func:`~c2fsum.batch.run.run_batch`),
    the one this process is already connected to, or a local one started here and stopped at the end."""

    name = "ray"

    def __init__(self, workers: int | None, address: str | None = None):
        self.ray = import_ray()
        self.address = address
        self.started = False
        self._connect()
        nodes = [n for n in self.ray.nodes() if n.get("Alive")]
        here = self._node_id()
        nodes.sort(key=lambda n: n.get("NodeID") != here)  # the driver's node first: it reads
        self.node_cpus = [float(n.get("Resources", {}).get("CPU", 0.0)) for n in nodes]
        self.workers = workers or max(1, math.floor(sum(self.node_cpus)))
        self.cpus = worker_cpus(self.node_cpus, self.workers)

    def _connect(self) -> None:
        ray = self.ray
        if ray.is_initialized():
            return
        try:
            if self.address:
                ray.init(address=self.address, **RAY_INIT)
            else:
                init_local_ray(ray)
        except ConnectionError as e:
            raise InputError(
                f"--address {self.address}: no Ray cluster there ({str(e).splitlines()[0]}); "
                "start one with `ray start --head`, or leave --address out to start a local one"
            ) from e
        self.started = True

    def _node_id(self) -> str | None:
        try:
            return self.ray.get_runtime_context().get_node_id()
        except Exception:  # a Ray Client connection (ray://) has no node of its own
            return None

    def run(self, todo: Todo, job: Job, batch_size: int) -> Iterator[dict[str, list]]:
        data = self.ray.data  # (Ray's own types are not checked here: ``import_ray`` gives Any)
        items = [{"shard": s.index, "path": s.path, "done": json.dumps(sorted(done))} for s, done in todo]
        if not items:
            return
        ctx = data.DataContext.get_current()
        saved = ctx.enable_progress_bars, ctx.target_max_block_size
        ctx.enable_progress_bars = False  # the driver's own bar counts papers
        # a block per packed batch (one row: any target of a byte makes each row its own block), so a
        # call is one whole batch of B rows, which any idle worker takes. Blocks of 256 KiB cut
        # batches: the pool bundled 8-16 rows into a call of B and a remainder of 1-7 (15 calls of
        # 1-7 rows in 34, 200 papers, B 8). Ray's own repartition(target_num_rows_per_block=B) is a
        # stage of its own that asks for a whole CPU, which the workers hold: with 2 workers on 2
        # CPUs it never ran and the run waited forever
        ctx.target_max_block_size = 1
        logging.getLogger("ray.data").setLevel(logging.WARNING)
        here = self._node_id()  # read where the input files are: on the driver's node
        placement = {"ray.io/node-id": here} if here is not None else None
        try:
            ds = data.from_items(items, override_num_blocks=len(items))
            ds = ds.map_batches(
                _read_batches,
                fn_kwargs={"batch_size": batch_size},
                batch_size=1,
                num_cpus=READ_CPUS,
                compute=data.TaskPoolStrategy(size=1),
                label_selector=placement,
            )
            ds = ds.map_batches(
                PackedSummarizer,
                fn_constructor_args=(replace(job, threads=max(1, math.floor(self.cpus))),),
                batch_size=1,  # a packed batch a call (Ray keeps 2 calls in flight per worker)
                compute=data.ActorPoolStrategy(size=self.workers),
                num_cpus=self.cpus,
            )
            for b in ds.iter_batches(batch_size=None, batch_format="pyarrow"):  # each block as it comes
                for value in b.column(PACKED).to_pylist():
                    yield unpack(value)
        finally:
            ctx.enable_progress_bars, ctx.target_max_block_size = saved

    def waiting(self) -> str:
        ray = self.ray
        total = ray.cluster_resources().get("CPU", 0)
        free = ray.available_resources().get("CPU", 0)
        return (
            f"Ray: {self.workers} worker(s) asking {self.cpus:g} CPU each and the read stage {READ_CPUS:g}; "
            f"the cluster has {total:g} CPU(s), {free:g} free"
        )

    def close(self) -> None:
        if self.started:
            self.ray.shutdown()
