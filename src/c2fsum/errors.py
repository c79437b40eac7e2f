"""The exceptions that mean "bad input or arguments" (printed as one line by the CLI)."""

from __future__ import annotations

from c2fsum.training.checkpoint import CheckpointError
from c2fsum.training.trainer import TrainingError

USER_ERRORS: tuple[type[BaseException], ...] = (
    ValueError,  # includes ConfigError and DataError
    FileNotFoundError,
    IsADirectoryError,
    PermissionError,
    OSError,  # disk full, read-only output directory: the message names the file
    CheckpointError,
    TrainingError,
)
