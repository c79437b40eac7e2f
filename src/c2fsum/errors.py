"""The exceptions that mean "the user gave something wrong" (printed as one line by the CLI).

A leaf: it imports nothing of c2fsum, so every layer can raise these and the CLI can catch them
without importing the trainer or the model code.

What is the user's fault is a :class:`UserError` (an argument, a file's content, a run directory,
a missing tool), or an ``OSError`` about a file the user named (missing, a directory, no
permission, disk full, read-only): :func:`is_user_error`. The CLI prints those as
``c2fsum COMMAND: error: MESSAGE`` (exit 2); anything else is a bug and shows its traceback.
``C2FSUM_DEBUG=1`` shows the traceback of user errors too.
"""

from __future__ import annotations

import errno


class UserError(Exception):
    """Something the user gave is wrong; the message names the file, line, field or option."""


class InputError(UserError, ValueError):
    """A value, option or file content the user gave is not what is expected (a ValueError too)."""


class CheckpointError(UserError, RuntimeError):
    """A run directory or checkpoint is missing a file, is damaged, or does not match its config."""


class TrainingError(UserError, RuntimeError):
    """Training cannot start: missing data, empty splits, or an unusable run directory."""


USER_OS_ERRORS: tuple[type[OSError], ...] = (
    FileNotFoundError,
    IsADirectoryError,
    NotADirectoryError,
    PermissionError,
    FileExistsError,
)
"""OS errors that are about a path the user gave, whatever raised them."""

USER_ERRNOS = frozenset({errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EACCES, errno.ENAMETOOLONG, errno.EFBIG})
"""Other OS errors (disk full, read-only file system, quota) that the user's machine, not the code, causes."""


def is_user_error(e: BaseException) -> bool:
    """True for an error the CLI prints as one line: a :class:`UserError`, or an OS error about a
    path the user gave or a full or read-only disk. False for everything else (bugs)."""
    if isinstance(e, (UserError, *USER_OS_ERRORS)):
        return True
    return isinstance(e, OSError) and e.errno in USER_ERRNOS


def error_line(e: BaseException) -> str:
    """The first line of a user error's message (an OS error's reason with its file, as Python
    words it, when it has no message of its own)."""
    text = str(e)
    return text.splitlines()[0] if text.strip() else type(e).__name__
