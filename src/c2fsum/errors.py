"""The exceptions that mean "bad input or arguments" (printed as one line by the CLI).

A leaf: it imports nothing of c2fsum, so every layer can raise these and the CLI can catch them
without importing the trainer or the model code.
"""

from __future__ import annotations


class CheckpointError(RuntimeError):
    """A run directory or checkpoint is missing a file, is damaged, or does not match its config."""


class TrainingError(RuntimeError):
    """Training cannot start: missing data, empty splits, or an unusable run directory."""


USER_ERRORS: tuple[type[BaseException], ...] = (
    ValueError,  # includes ConfigError and DataError
    FileNotFoundError,
    IsADirectoryError,
    PermissionError,
    OSError,  # disk full, read-only output directory: the message names the file
    CheckpointError,
    TrainingError,
)
