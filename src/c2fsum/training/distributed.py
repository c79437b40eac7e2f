"""Training on several processes with torch.distributed (DDP), as launched by ``torchrun``.

The rule that makes ``N`` processes train like one: every rank builds the same *global*
batches (same bucketing, same seed-driven shuffle, reshuffled each epoch) and takes its slice
of each (:func:`c2fsum.data.batching.shard_batch`); each rank divides its summed loss by
``global documents / world size``, so that DDP's gradient *average* equals the gradient of
the one-process loss ``sum NLL / global documents``. ``train.batch_size`` is therefore the
global batch whatever the number of processes (and of accumulation micro-batches).

State outside the parameters is kept equal on every rank:

- MODEL 3's REINFORCE baselines: per time step the summed returns and their counts are
  all-reduced, so every rank moves ``b_t`` towards the global minibatch mean
  (:func:`sync_return_sums`).
- Validation perplexity: each rank scores its share of the validation set and the summed NLL
  and token counts are all-reduced, so the learning-rate decision and the best checkpoint are
  the same everywhere; ROUGE validation runs on rank 0 and is broadcast.
- Stopping: a time budget is decided on rank 0 and broadcast every step (:meth:`DistContext.any`).
- Random choices that must agree (MODEL 3 +ALTERNATE picks soft or hard per global batch) are
  broadcast from rank 0; sampling noise is per rank (:func:`rank_seed`).

Only rank 0 writes logs, TensorBoard and checkpoints; checkpoints hold every rank's random
generators (:mod:`c2fsum.training.rng`) so that ``--resume`` continues a multi-process run exactly.

Set-up comes from torchrun's environment (``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``,
``MASTER_ADDR``/``MASTER_PORT``; ``env://`` rendezvous), with gloo on CPU and NCCL on CUDA.
Without those variables (or with ``WORLD_SIZE=1``) everything here is a no-op.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.distributed as dist
from torch import Tensor, nn

from c2fsum.config import TrainConfig
from c2fsum.errors import TrainingError, UserError
from c2fsum.models.base import Summarizer

log = logging.getLogger(__name__)

BACKENDS = ("auto", "gloo", "nccl")


class DistributedError(UserError, RuntimeError):
    """torchrun's environment is incomplete or asks for something this machine cannot do."""


@dataclass
class DistContext:
    """Where this process stands: ``rank`` of ``world`` processes, ``local_rank`` on its machine."""

    rank: int = 0
    world: int = 1
    local_rank: int = 0
    device: torch.device = field(default_factory=lambda: torch.device("cpu"))
    owns_group: bool = False
    """True if :func:`setup` created the process group (then :func:`shutdown` destroys it)."""

    @property
    def enabled(self) -> bool:
        return self.world > 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def all_sum(self, values: list[float]) -> list[float]:
        """Element-wise sum of ``values`` over all ranks (float64)."""
        if not self.enabled:
            return list(values)
        t = torch.tensor(values, dtype=torch.float64, device=self._comm_device())
        dist.all_reduce(t, op=dist.ReduceOp.SUM)
        return t.cpu().tolist()

    def any(self, flag: bool) -> bool:
        """True on every rank if ``flag`` is True on any rank."""
        if not self.enabled:
            return flag
        t = torch.tensor([1.0 if flag else 0.0], device=self._comm_device())
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return bool(t.item() > 0)

    def broadcast(self, obj: Any) -> Any:
        """Rank 0's ``obj`` on every rank (any picklable value)."""
        if not self.enabled:
            return obj
        box = [obj]
        dist.broadcast_object_list(box, src=0, device=self._comm_device())
        return box[0]

    def gather(self, obj: Any) -> list[Any]:
        """Every rank's ``obj``, in rank order, on every rank."""
        if not self.enabled:
            return [obj]
        out: list[Any] = [None] * self.world
        dist.all_gather_object(out, obj)
        return out

    def barrier(self) -> None:
        if self.enabled:
            if self.device.type == "cuda":
                dist.barrier(device_ids=[self.device.index or 0])
            else:
                dist.barrier()

    def _comm_device(self) -> torch.device:
        # NCCL only moves CUDA tensors; gloo moves CPU tensors
        return self.device if dist.get_backend() == "nccl" else torch.device("cpu")


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError as e:
        raise DistributedError(f"environment variable {name}={value!r}: expected an integer") from e


def setup(device: str = "cpu", backend: str = "auto") -> DistContext:
    """Join the process group described by torchrun's environment; pick this rank's device.

    ``device`` is ``cpu`` or ``cuda`` (``cuda`` becomes ``cuda:LOCAL_RANK``). ``backend``
    ``auto`` means NCCL on CUDA and gloo on CPU. Calling it again reuses the existing group.
    """
    if backend not in BACKENDS:
        raise DistributedError(f"train.dist_backend: got {backend!r}, expected one of {BACKENDS}")
    world = _env_int("WORLD_SIZE", 1)
    rank = _env_int("RANK", 0)
    local_rank = _env_int("LOCAL_RANK", 0)
    dev = torch.device(device)
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise DistributedError("--device cuda asked for, but torch sees no CUDA device")
        if world > 1 or dev.index is None:
            dev = torch.device("cuda", local_rank if world > 1 else (dev.index or 0))
        if dev.index >= torch.cuda.device_count():
            raise DistributedError(
                f"LOCAL_RANK={local_rank} but this machine has {torch.cuda.device_count()} "
                "CUDA device(s); start at most that many processes per node"
            )
        torch.cuda.set_device(dev)
    if world <= 1:
        return DistContext(device=dev)
    if not 0 <= rank < world:
        raise DistributedError(f"RANK={rank} is outside WORLD_SIZE={world}")
    if backend == "auto":
        backend = "nccl" if dev.type == "cuda" else "gloo"
    owns = False
    if not dist.is_initialized():
        for var in ("MASTER_ADDR", "MASTER_PORT"):
            if var not in os.environ:
                raise DistributedError(f"WORLD_SIZE={world} but {var} is not set: launch with torchrun")
        dist.init_process_group(backend=backend, init_method="env://", rank=rank, world_size=world)
        owns = True
    elif dist.get_world_size() != world or dist.get_rank() != rank:
        raise DistributedError(
            f"a process group of {dist.get_world_size()} ranks already exists, "
            f"but the environment says WORLD_SIZE={world}"
        )
    ctx = DistContext(rank=rank, world=world, local_rank=local_rank, device=dev, owns_group=owns)
    if not ctx.is_main:
        logging.getLogger("c2fsum").setLevel(logging.WARNING)  # only rank 0 reports progress
    log.info("distributed training: %d processes, backend %s, rank 0 on %s", world, backend, dev)
    return ctx


def setup_training(tc: TrainConfig) -> DistContext:
    """:func:`setup` for a training run (``train.device``, ``train.dist_backend``; TrainingError
    naming the problem), with ``train.threads`` intra-op threads (0: torch's default)."""
    try:
        ctx = setup(tc.device, tc.dist_backend)
    except DistributedError as e:
        raise TrainingError(str(e)) from e
    if tc.threads > 0:
        torch.set_num_threads(tc.threads)
    return ctx


def shutdown(ctx: DistContext | None = None) -> None:
    """Leave the process group (if this module created it), all ranks together: a rank that tore
    its group down while another still closed its connections was once killed at exit by gloo
    ("terminate called without an active exception", SIGABRT, under load in the test suite)."""
    if dist.is_available() and dist.is_initialized() and (ctx is None or ctx.owns_group):
        if dist.get_world_size() > 1:
            dist.barrier()
        dist.destroy_process_group()


def rank_seed(seed: int, rank: int) -> int:
    """Seed of the sampling noise (dropout, MODEL 3 chunk samples) of ``rank``; rank 0 keeps ``seed``."""
    return seed if rank == 0 else seed + 1_000_003 * rank


class LossModule(nn.Module):
    """Wraps ``model`` with a loss function so that DDP sees the whole training computation.

    ``forward(*args)`` returns ``loss_fn(*args)``. Wrapping the loss (not only the model's
    ``forward``) keeps DDP's gradient hooks correct when the loss also calls ``encode``,
    samples or decodes greedily (the mixed objective).
    """

    def __init__(self, model: nn.Module, loss_fn):
        super().__init__()
        self.model = model
        self.loss_fn = loss_fn

    def forward(self, *args, **kwargs):
        return self.loss_fn(*args, **kwargs)


def wrap(model: nn.Module, loss_fn, ctx: DistContext) -> nn.parallel.DistributedDataParallel:
    """``DistributedDataParallel(LossModule(model, loss_fn))``; gradients are averaged over ranks.

    A model with hard coarse attention (MODEL 3) may leave parameters unused in a minibatch
    (soft or hard attention per batch), so DDP searches the graph for them; other models use
    every trainable parameter in every step and skip that search.
    """
    module = LossModule(model, loss_fn)
    device_ids = [ctx.device.index] if ctx.device.type == "cuda" else None
    hard = isinstance(model, Summarizer) and model.capabilities.hard
    return nn.parallel.DistributedDataParallel(module, device_ids=device_ids, find_unused_parameters=hard)


def sync_return_sums(ctx: DistContext, sums: Tensor, counts: Tensor) -> tuple[Tensor, Tensor]:
    """All-reduce MODEL 3's per-step summed returns and counts ``(T,)`` (float64, CPU).

    Ranks may hold targets of different lengths, so both are padded to the longest ``T`` first.
    """
    if not ctx.enabled:
        return sums, counts
    T = int(max(ctx.gather(int(sums.numel()))))
    both = torch.zeros(2, T, dtype=torch.float64)
    both[0, : sums.numel()] = sums
    both[1, : counts.numel()] = counts
    both = both.to(ctx._comm_device())
    dist.all_reduce(both, op=dist.ReduceOp.SUM)
    both = both.cpu()
    return both[0], both[1]
