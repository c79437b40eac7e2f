"""Writing training checkpoints, and resuming from one (weights, optimizer, random generators, log).

The layout of a checkpoint directory, its manifest, how its model files are written and how it is
read back into a model: :mod:`c2fsum.models.checkpoint` (the one module that writes the format).
Directories are written under a temporary name and swapped in whole
(:func:`c2fsum.utils.io.atomic_directory`), so a crash never leaves half a checkpoint.
"""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError

from c2fsum.config import Config
from c2fsum.data.vocab import Vocab
from c2fsum.errors import CheckpointError
from c2fsum.models.checkpoint import (
    load_weights,
    read_json,
    read_tensors,
    verify_checkpoint,
    write_manifest,
    write_model_files,
    write_tensors,
)
from c2fsum.training import rng
from c2fsum.utils.io import atomic_directory, write_jsonl


def _optimizer_tensors(optimizer: torch.optim.Optimizer) -> tuple[dict[str, torch.Tensor], dict]:
    sd = optimizer.state_dict()
    tensors: dict[str, torch.Tensor] = {}
    scalars: dict[str, dict[str, Any]] = {}
    for pid, st in sd["state"].items():
        for k, v in st.items():
            if isinstance(v, torch.Tensor):
                tensors[f"{pid}.{k}"] = v.detach().cpu().contiguous()
            else:
                scalars.setdefault(str(pid), {})[k] = v
    return tensors, {"param_groups": sd["param_groups"], "scalars": scalars}


def save_checkpoint(
    path: str | Path,
    *,
    model: torch.nn.Module,
    config: Config,
    vocab: Vocab,
    trainer_state: dict | None = None,
    optimizer: torch.optim.Optimizer | None = None,
    lengths: dict | None = None,
) -> Path:
    """Write a complete checkpoint directory atomically; returns its path.

    ``lengths``: :func:`c2fsum.data.lengths.target_length_facts` of the training targets,
    written as ``lengths.json`` (it gives the model's default ``min_len``).

    A write that fails (disk full, read-only or unwritable directory) raises :class:`CheckpointError`
    naming ``path`` and the reason; the temporary directory is removed and the previous checkpoint
    at ``path``, if any, is left as it was.
    """
    path = Path(path)
    try:
        with atomic_directory(path) as tmp:
            write_model_files(tmp, model=model, config=config, vocab=vocab, lengths=lengths)
            if trainer_state is not None:
                state = dict(trainer_state)
                if optimizer is not None:
                    tensors, meta = _optimizer_tensors(optimizer)
                    write_tensors(tmp / "optimizer.safetensors", tensors)
                    state["optimizer"] = meta
                rng.save(tmp)
                (tmp / "trainer.json").write_text(json.dumps(state, indent=2), encoding="utf-8")
            write_manifest(tmp)
    except (OSError, SafetensorError) as e:
        reason = f"{e.strerror or e} [{errno.errorcode.get(e.errno or 0, e.errno)}]" if isinstance(e, OSError) else e
        raise CheckpointError(
            f"{path}: cannot write the checkpoint ({reason}); the previous one, if any, is unchanged"
        ) from e
    return path


def restore_optimizer(path: str | Path, optimizer: torch.optim.Optimizer, state: dict) -> None:
    """Load optimizer tensors and param-group settings (learning rates) saved beside ``state``."""
    meta = state.get("optimizer")
    if meta is None:
        return
    tensors = read_tensors(Path(path) / "optimizer.safetensors")
    per_param: dict[int, dict[str, Any]] = {}
    for key, t in tensors.items():
        pid, name = key.split(".", 1)
        per_param.setdefault(int(pid), {})[name] = t
    for pid, sc in meta["scalars"].items():
        per_param.setdefault(int(pid), {}).update(sc)
    optimizer.load_state_dict({"state": per_param, "param_groups": meta["param_groups"]})


def restore_training(
    ckpt: str | Path, *, model: torch.nn.Module, optimizer: torch.optim.Optimizer, vocab_size: int
) -> dict:
    """Resume from the training checkpoint ``ckpt``: verify it, load the model's weights, the
    optimizer's state and this process's random generators; returns ``trainer.json`` (schedule,
    position, baseline; ``rank_rng`` of the other processes, :func:`c2fsum.training.rng.restore`)."""
    ckpt = Path(ckpt)
    verify_checkpoint(ckpt)
    load_weights(model, ckpt / "model.safetensors", vocab_size=vocab_size)
    state = read_json(ckpt / "trainer.json")
    restore_optimizer(ckpt, optimizer, state)
    rng.load(ckpt)
    return state


def truncate_log(path: str | Path, rows: int) -> None:
    """Keep the first ``rows`` rows of the JSONL log ``path`` (those written before the checkpoint
    that counted them; a line cut by a crash is not a row), so that a resumed run's log reads as
    one run. Unlike :func:`rewind_log` it tells apart rows of the same step written before and
    after the checkpoint (a validation at an epoch's last step, then the final one)."""
    path = Path(path)
    if path.exists():
        write_jsonl(path, _log_rows(path)[:rows])


def rewind_log(path: str | Path, step: int) -> int:
    """Drop the rows of the JSONL log ``path`` written after ``step`` (and a line cut by a crash),
    so that a resumed run's log reads as one run; returns the rows kept."""
    path = Path(path)
    if not path.exists():
        return 0
    return write_jsonl(path, [row for row in _log_rows(path) if row.get("step", 0) <= step])


def _log_rows(path: Path) -> list[dict]:
    """The rows of the JSONL log ``path``; a line cut by a crash (not JSON, or not an object) is none."""
    rows = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows
