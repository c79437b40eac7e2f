"""Mixed precision of a training run (``train.amp``): whether it can run here, and the context
every forward pass of a training step runs in."""

from __future__ import annotations

import functools
from contextlib import AbstractContextManager

import torch

from c2fsum.errors import TrainingError


@functools.cache
def cpu_bf16_lstm_available() -> bool:
    """Whether an LSTM runs under bf16 autocast on this CPU: oneDNN builds its bf16 LSTM primitive
    only where the instruction set has bf16 (AVX-512 BF16, AMX), and raises a RuntimeError
    elsewhere (seen with ``ONEDNN_MAX_CPU_ISA=AVX2``). Probed once per process on a 1x1x2 LSTM."""
    try:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            torch.nn.LSTM(2, 2, batch_first=True)(torch.zeros(1, 1, 2))
    except RuntimeError:
        return False
    return True


def check_precision(amp: str, device: torch.device) -> None:
    """Refuse ``train.amp=bf16`` on a CPU without a bf16 LSTM, by name, before any step runs
    (instead of a oneDNN error in the middle of the first one)."""
    if amp == "bf16" and device.type == "cpu" and not cpu_bf16_lstm_available():
        raise TrainingError(
            "train.amp=bf16: this CPU's oneDNN has no bfloat16 LSTM (it needs AVX-512 BF16 or AMX; "
            "an AVX2 CPU refuses the primitive); train with train.amp=off here, or on a GPU"
        )


def autocast(amp: str, device: torch.device) -> AbstractContextManager:
    """The context of a training forward pass: bf16 autocast with ``train.amp=bf16``, else none."""
    return torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp == "bf16")
