"""Writing checkpoints, and restoring the training state they hold (optimizer, random generators).

The layout of a checkpoint directory, its manifest and how it is read back into a model:
:mod:`c2fsum.models.checkpoint`. Directories are written under a temporary name and swapped in
whole (:func:`c2fsum.utils.io.atomic_directory`), so a crash never leaves half a checkpoint.
"""

from __future__ import annotations

import errno
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.torch import save_file

from c2fsum.config import Config
from c2fsum.data.lengths import LENGTHS_FILE
from c2fsum.data.vocab import Vocab
from c2fsum.errors import CheckpointError
from c2fsum.models.checkpoint import FORMAT, FORMAT_VERSION, read_json, read_tensors, sha256_file
from c2fsum.utils.io import atomic_directory


def _state_dict(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """CPU copies of the state dict; a tensor listed under two names (a shared embedding,
    ``model.share_src_tgt_emb``) is stored under each (safetensors refuses shared memory)."""
    out: dict[str, torch.Tensor] = {}
    seen: set[int] = set()
    for k, v in model.state_dict().items():
        t = v.detach().cpu().contiguous()
        ptr = t.untyped_storage().data_ptr()
        out[k] = t.clone() if ptr in seen else t
        seen.add(ptr)
    return out


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
        _save_checkpoint(
            path,
            model=model,
            config=config,
            vocab=vocab,
            trainer_state=trainer_state,
            optimizer=optimizer,
            lengths=lengths,
        )
    except (OSError, SafetensorError) as e:
        reason = f"{e.strerror or e} [{errno.errorcode.get(e.errno or 0, e.errno)}]" if isinstance(e, OSError) else e
        raise CheckpointError(
            f"{path}: cannot write the checkpoint ({reason}); the previous one, if any, is unchanged"
        ) from e
    return path


def _save_checkpoint(
    path: Path,
    *,
    model: torch.nn.Module,
    config: Config,
    vocab: Vocab,
    trainer_state: dict | None,
    optimizer: torch.optim.Optimizer | None,
    lengths: dict | None = None,
) -> None:
    with atomic_directory(path) as tmp:
        save_file(_state_dict(model), str(tmp / "model.safetensors"))
        (tmp / "config.json").write_text(config.to_json(), encoding="utf-8")
        if lengths is not None:
            (tmp / LENGTHS_FILE).write_text(json.dumps(lengths, indent=2, sort_keys=True), encoding="utf-8")
        vocab.save(tmp / "vocab.txt")
        if trainer_state is not None:
            state = dict(trainer_state)
            if optimizer is not None:
                tensors, meta = _optimizer_tensors(optimizer)
                save_file(tensors, str(tmp / "optimizer.safetensors"))
                state["optimizer"] = meta
            rng = {"torch_cpu": torch.get_rng_state()}
            if torch.cuda.is_available():
                for i, s in enumerate(torch.cuda.get_rng_state_all()):
                    rng[f"torch_cuda_{i}"] = s
            save_file(rng, str(tmp / "rng.safetensors"))
            np_state: tuple = np.random.get_state()  # type: ignore[assignment]  # legacy tuple form
            (tmp / "rng.json").write_text(
                json.dumps(
                    {
                        "python": _py_state_to_json(random.getstate()),
                        "numpy": [np_state[0], np_state[1].tolist(), *np_state[2:]],
                    }
                ),
                encoding="utf-8",
            )
            (tmp / "trainer.json").write_text(json.dumps(state, indent=2), encoding="utf-8")
        _write_manifest(tmp)


def _write_manifest(folder: Path) -> None:
    files = {
        p.name: {"bytes": p.stat().st_size, "sha256": sha256_file(p)}
        for p in sorted(folder.iterdir())
        if p.is_file() and p.name != "manifest.json"
    }
    (folder / "manifest.json").write_text(
        json.dumps({"format": FORMAT, "version": FORMAT_VERSION, "files": files}, indent=2), encoding="utf-8"
    )


def _py_state_to_json(state: tuple) -> list:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def restore_rng(path: str | Path) -> None:
    """Restore torch, Python and NumPy generators saved in a checkpoint."""
    path = Path(path)
    rng = read_tensors(path / "rng.safetensors")
    torch.set_rng_state(rng["torch_cpu"])
    cuda = [rng[k] for k in sorted(k for k in rng if k.startswith("torch_cuda_"))]
    if cuda and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(cuda)
    js = read_json(path / "rng.json")
    v, internal, gauss = js["python"]
    random.setstate((v, tuple(internal), gauss))
    n = js["numpy"]
    np.random.set_state((n[0], np.array(n[1], dtype=np.uint32), *n[2:]))


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
