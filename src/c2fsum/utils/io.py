"""Small file helpers: atomic writes, JSON lines."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old or the new file, never half of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_jsonl(path: str | Path, rows: Iterable[dict]) -> int:
    """Atomically write rows as JSON lines; returns the number of rows."""
    lines = [json.dumps(r, ensure_ascii=False) for r in rows]
    atomic_write_text(path, "".join(line + "\n" for line in lines))
    return len(lines)


def append_jsonl(path: str | Path, row: dict) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(row, ensure_ascii=False) + "\n")


@contextmanager
def atomic_directory(path: str | Path):
    """Build a directory under a temporary name; on success it replaces ``path`` whole.

    Yields the temporary directory to write into. The old directory, if any, is moved
    aside to ``path.old`` for the instant of the swap, so a crash leaves either the old
    or the new directory complete (loaders fall back to ``.old``).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob(f".{path.name}.*.tmp"):  # left by a process killed while writing
        shutil.rmtree(stale, ignore_errors=True)
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"))
    try:
        yield tmp
        old = path.with_name(path.name + ".old")
        if path.exists():  # path is complete, so a leftover .old is stale
            if old.exists():
                shutil.rmtree(old)
            os.replace(path, old)
        # else a crash may have left .old as the only complete copy: keep it until tmp is in place
        os.replace(tmp, path)
        if old.exists():
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def existing_checkpoint_dir(path: str | Path) -> Path | None:
    """``path`` if it exists, else its ``.old`` twin left by an interrupted swap, else None."""
    path = Path(path)
    if path.exists():
        return path
    old = path.with_name(path.name + ".old")
    return old if old.exists() else None


def write_json(path: str | Path, obj: Any) -> None:
    """Write ``obj`` as indented JSON with sorted keys (and a final newline), atomically."""
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")
