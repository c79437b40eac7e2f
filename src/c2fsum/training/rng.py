"""Random generator states of one process in one JSON format: checkpoints and every rank.

A resumed run must draw the same random numbers as an uninterrupted one (dropout, MODEL 3's
chunk samples, +ALTERNATE, self-critical samples), so a checkpoint holds the generators of
every process: rank 0's in ``rng.json`` beside the weights, the other ranks' in
``trainer.json["rank_rng"]``, all in the format of :func:`capture`::

    {"torch_cpu": base64 bytes, "torch_cuda": [base64 bytes per CUDA device],
     "python": [version, [internal state], gauss], "numpy": [name, [keys], pos, has_gauss, gauss]}

Checkpoints written before this format (``rng.safetensors`` with the torch states, ``rng.json``
with only Python and NumPy; rank states with one ``torch_cuda`` string) still restore.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch

FILE = "rng.json"


def _encode(state: torch.Tensor) -> str:
    return base64.b64encode(state.numpy().tobytes()).decode("ascii")


def _decode(text: str) -> torch.Tensor:
    return torch.frombuffer(bytearray(base64.b64decode(text)), dtype=torch.uint8)


def capture() -> dict[str, Any]:
    """This process's torch (CPU and every CUDA device), Python and NumPy generator states as JSON values."""
    # numpy's stubs resolve the no-argument call to legacy=False (a dict); the default is legacy=True
    np_state = cast(tuple[Any, ...], np.random.get_state())
    version, internal, gauss = random.getstate()
    state: dict[str, Any] = {
        "torch_cpu": _encode(torch.get_rng_state()),
        "python": [version, list(internal), gauss],
        "numpy": [np_state[0], np_state[1].tolist(), *np_state[2:]],
    }
    if torch.cuda.is_available():
        state["torch_cuda"] = [_encode(s) for s in torch.cuda.get_rng_state_all()]
    return state


def restore(state: dict[str, Any]) -> None:
    """Inverse of :func:`capture` (also takes the older rank format: ``torch_cuda`` one string)."""
    torch.set_rng_state(_decode(state["torch_cpu"]))
    cuda = state.get("torch_cuda")
    if cuda and torch.cuda.is_available():
        if isinstance(cuda, str):  # written before this module: the current device only
            torch.cuda.set_rng_state(_decode(cuda))
        else:
            torch.cuda.set_rng_state_all([_decode(s) for s in cuda])
    _restore_python_numpy(state)


def _restore_python_numpy(state: dict[str, Any]) -> None:
    v, internal, gauss = state["python"]
    random.setstate((v, tuple(internal), gauss))
    n = state["numpy"]
    np.random.set_state((n[0], np.array(n[1], dtype=np.uint32), *n[2:]))


def save(folder: Path) -> None:
    """Write this process's generators to ``folder/rng.json``."""
    (folder / FILE).write_text(json.dumps(capture()), encoding="utf-8")


def load(folder: str | Path) -> None:
    """Restore the generators saved in checkpoint ``folder`` (this format or the older two files)."""
    from c2fsum.models.checkpoint import read_json, read_tensors

    folder = Path(folder)
    state = read_json(folder / FILE)
    if "torch_cpu" in state:
        restore(state)
        return
    # before this module: torch states in rng.safetensors, Python and NumPy in rng.json
    tensors = read_tensors(folder / "rng.safetensors")
    torch.set_rng_state(tensors["torch_cpu"])
    cuda = [tensors[k] for k in sorted((k for k in tensors if k.startswith("torch_cuda_")), key=lambda k: int(k[11:]))]
    if cuda and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(cuda)
    _restore_python_numpy(state)
