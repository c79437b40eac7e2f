"""Checkpoints that never unpickle code.

A checkpoint is a directory::

    model.safetensors      the model's weights
    config.json            the resolved Config (rebuilds the model)
    vocab.txt              the vocabulary
    trainer.json           step, epoch, position in the epoch, learning-rate schedule, best score
    optimizer.safetensors  the optimizer's tensor state (e.g. momentum buffers); may be empty
    rng.safetensors        torch CPU (and CUDA) generator states
    rng.json               Python and NumPy generator states

Directories are written under a temporary name and swapped in whole
(:func:`c2fsum.utils.io.atomic_directory`), so a crash never leaves half a checkpoint.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import load_file, save_file

from c2fsum.config import Config, config_from_json
from c2fsum.data.vocab import Vocab
from c2fsum.models import Summarizer, build_model
from c2fsum.utils.io import atomic_directory, atomic_write_text, existing_checkpoint_dir


class CheckpointError(RuntimeError):
    """A run directory or checkpoint is missing a file or does not match its config."""


@dataclass
class Loaded:
    model: Summarizer
    config: Config
    vocab: Vocab
    path: Path


def _state_dict(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}


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


def save_checkpoint(path: str | Path, *, model: torch.nn.Module, config: Config, vocab: Vocab,
                    trainer_state: dict | None = None, optimizer: torch.optim.Optimizer | None = None) -> Path:
    """Write a complete checkpoint directory atomically; returns its path."""
    path = Path(path)
    with atomic_directory(path) as tmp:
        save_file(_state_dict(model), str(tmp / "model.safetensors"))
        (tmp / "config.json").write_text(config.to_json(), encoding="utf-8")
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
            np_state = np.random.get_state()
            (tmp / "rng.json").write_text(json.dumps({
                "python": _py_state_to_json(random.getstate()),
                "numpy": [np_state[0], np_state[1].tolist(), *np_state[2:]],
            }), encoding="utf-8")
            (tmp / "trainer.json").write_text(json.dumps(state, indent=2), encoding="utf-8")
    return path


def _py_state_to_json(state: tuple) -> list:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def restore_rng(path: str | Path) -> None:
    """Restore torch, Python and NumPy generators saved in a checkpoint."""
    path = Path(path)
    rng = load_file(str(path / "rng.safetensors"))
    torch.set_rng_state(rng["torch_cpu"])
    cuda = [rng[k] for k in sorted(k for k in rng if k.startswith("torch_cuda_"))]
    if cuda and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(cuda)
    js = json.loads((path / "rng.json").read_text(encoding="utf-8"))
    v, internal, gauss = js["python"]
    random.setstate((v, tuple(internal), gauss))
    n = js["numpy"]
    np.random.set_state((n[0], np.array(n[1], dtype=np.uint32), *n[2:]))


def restore_optimizer(path: str | Path, optimizer: torch.optim.Optimizer, state: dict) -> None:
    """Load optimizer tensors and param-group settings (learning rates) saved beside ``state``."""
    meta = state.get("optimizer")
    if meta is None:
        return
    tensors = load_file(str(Path(path) / "optimizer.safetensors"))
    per_param: dict[int, dict[str, Any]] = {}
    for key, t in tensors.items():
        pid, name = key.split(".", 1)
        per_param.setdefault(int(pid), {})[name] = t
    for pid, sc in meta["scalars"].items():
        per_param.setdefault(int(pid), {}).update(sc)
    optimizer.load_state_dict({"state": per_param, "param_groups": meta["param_groups"]})


def resolve_checkpoint(run_or_ckpt: str | Path, which: str = "best") -> Path:
    """A checkpoint directory from a run directory (``best``, falling back to ``last``) or itself."""
    p = Path(run_or_ckpt)
    if (p / "model.safetensors").exists():
        return p
    order = [which, "last" if which == "best" else "best"]
    for name in order:
        d = existing_checkpoint_dir(p / name)
        if d is not None and (d / "model.safetensors").exists():
            return d
    raise CheckpointError(f"{p}: no checkpoint found (expected {p}/best or {p}/last with model.safetensors)")


def load_checkpoint(run_or_ckpt: str | Path, *, which: str = "best", device: str | torch.device = "cpu"
                    ) -> Loaded:
    """Rebuild a model from a checkpoint's config, weights and vocabulary (no pickle involved)."""
    path = resolve_checkpoint(run_or_ckpt, which)
    for name in ("config.json", "vocab.txt"):
        if not (path / name).exists():
            raise CheckpointError(f"{path}: missing {name}")
    config = config_from_json((path / "config.json").read_text(encoding="utf-8"))
    vocab = Vocab.load(path / "vocab.txt")
    model = build_model(config.model, len(vocab), config.data.chunks)
    weights = load_file(str(path / "model.safetensors"))
    missing, unexpected = model.load_state_dict(weights, strict=False)
    if missing or unexpected:
        raise CheckpointError(f"{path}/model.safetensors does not match config.json: "
                              f"missing {missing[:3]}, unexpected {unexpected[:3]}")
    model.to(device)
    model.eval()
    return Loaded(model=model, config=config, vocab=vocab, path=path)


def write_json(path: str | Path, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")
