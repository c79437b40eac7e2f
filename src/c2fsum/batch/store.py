"""The output folder of ``c2fsum batch``: what is done survives a kill, and a rerun does the rest.

::

    OUT/
      batch.json                 the job (model and its manifest hash, inputs, options); a rerun
                                 into OUT must be the same job
      00000-train.jsonl          one file per input shard, written whole (temp file + rename) once
      00001-part-1.jsonl         every record of the shard is done: id, summary, sentences,
      ...                        model, manifest, seconds; in the input's order
      errors.jsonl               the bad records of the finished shards: where, id, reason, detail
      .batch/pieces/00002-x/     finished batches of a shard not finished yet, each a file
        piece-<uuid>.jsonl       written whole (temp file + rename): rows with their seq
      .batch/errors/00000-train.jsonl   a finished shard's bad records (errors.jsonl is made of these)

Every file is written to a temporary name and renamed, so a kill at any instant leaves each file
whole or absent; a piece's rows are done and a shard's file is final. On a rerun
:meth:`Store.progress` reads the pieces back, and only the records in none of them are read and
summarized again; a shard is finished (its file written, its pieces removed) when its records
``1..count`` are all in pieces. The order of the output rows is the order of the input's, so a
resumed run writes the same files as one never stopped (``seconds`` aside: a time).
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from c2fsum.batch.shards import Shard
from c2fsum.errors import InputError

FORMATS = ("jsonl", "parquet")
"""Output formats of a shard's file (``--format``)."""

JOB_FILE = "batch.json"
ERRORS_FILE = "errors.jsonl"
SUMMARY_FIELDS = ("id", "summary", "sentences", "model", "manifest", "seconds")
"""The fields of an output row, in order."""


@dataclass
class Progress:
    """What is done of one shard: the records in pieces (by seq) and, once read to its end, how many it has."""

    done: set[int] = field(default_factory=set)
    count: int | None = None

    @property
    def finished(self) -> bool:
        return self.count is not None and len(self.done) >= self.count


def _write_atomic(path: Path, write: Callable[[Path], object]) -> None:
    """``write(tmp)`` to a temporary file beside ``path``, flushed to disk, then renamed onto it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")  # opened as any file: the umask's mode
    try:
        write(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _write_lines(path: Path, rows: Iterable[dict]) -> None:
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    _write_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def _read_lines(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


class Store:
    """``OUT`` for one job: where a shard's pieces, file and errors go."""

    def __init__(self, out: str | Path, fmt: str = "jsonl"):
        if fmt not in FORMATS:
            raise InputError(f"--format: got {fmt!r}, expected one of {', '.join(FORMATS)}")
        self.out = Path(out)
        self.fmt = fmt
        self.work = self.out / ".batch"

    def begin(self, job: dict) -> None:
        """Write ``batch.json`` for ``job``, or check that the one there is the same job: a rerun
        into the same folder with another model, model version, input or option is refused
        (InputError naming the field), since its rows would not match the ones already written."""
        path = self.out / JOB_FILE
        if self.out.exists() and not self.out.is_dir():
            raise InputError(f"--output {self.out}: not a directory")
        if self.out.is_dir():
            for stale in [*self.out.glob(".*.tmp"), *self.work.glob("**/.*.tmp")]:  # cut by a kill while written
                stale.unlink(missing_ok=True)
        if path.is_file():
            try:
                before = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise InputError(f"{path}: unreadable ({e}); remove it or use another --output") from e
            for key in sorted(set(before) | set(job)):
                if before.get(key) != job.get(key):
                    raise InputError(
                        f"{path}: written by another job ({key}: {before.get(key)!r} there, {job.get(key)!r} now); "
                        "rerun it with the same options, or use another --output"
                    )
            return
        if self.out.is_dir() and any(p.name != ".batch" for p in self.out.iterdir()):
            raise InputError(f"--output {self.out}: a folder with other files and no {JOB_FILE}; use a new folder")
        _write_atomic(path, lambda tmp: tmp.write_text(json.dumps(job, indent=1) + "\n", encoding="utf-8"))

    # ------------------------------------------------------------------------------ per shard
    def shard_file(self, shard: Shard) -> Path:
        return self.out / f"{shard.name}.{self.fmt}"

    def _pieces(self, shard: Shard) -> Path:
        return self.work / "pieces" / shard.name

    def _errors(self, shard: Shard) -> Path:
        return self.work / "errors" / f"{shard.name}.jsonl"

    def is_finished(self, shard: Shard) -> bool:
        """True when the shard's file is written (and its errors with it)."""
        return self.shard_file(shard).is_file() and self._errors(shard).is_file()

    def progress(self, shard: Shard) -> Progress:
        """What earlier runs finished of a shard not finished: the rows of its pieces (a piece
        cut by a kill is a temporary file, never read)."""
        p = Progress()
        folder = self._pieces(shard)
        for piece in sorted(folder.glob("piece-*.jsonl")) if folder.is_dir() else []:
            for r in _read_lines(piece):
                if r["kind"] == "end":
                    p.count = r["record"]["count"]
                else:
                    p.done.add(r["seq"])
        return p

    def add(self, shard: Shard, rows: list[dict], progress: Progress) -> None:
        """Keep finished rows of a shard (``seq``, ``kind``, ``record`` as a dict) as one piece,
        and count them in ``progress``."""
        _write_lines(self._pieces(shard) / f"piece-{uuid.uuid4().hex}.jsonl", rows)
        for r in rows:
            if r["kind"] == "end":
                progress.count = r["record"]["count"]
            else:
                progress.done.add(r["seq"])

    def finish(self, shard: Shard) -> tuple[int, int]:
        """Write a shard whose records are all in pieces: its errors, then its file (the rename
        that makes it final), then remove its pieces. Returns (summaries, errors)."""
        rows: dict[int, dict] = {}
        for piece in sorted(self._pieces(shard).glob("piece-*.jsonl")):
            for r in _read_lines(piece):
                if r["kind"] != "end":
                    rows[r["seq"]] = r
        ordered = [rows[s] for s in sorted(rows)]
        errors = [{"input": shard.path, **r["record"]} for r in ordered if r["kind"] == "error"]
        summaries = [r["record"] for r in ordered if r["kind"] == "summary"]
        _write_lines(self._errors(shard), errors)
        if self.fmt == "parquet":
            _write_atomic(self.shard_file(shard), lambda tmp: _write_parquet(tmp, summaries))
        else:
            _write_lines(self.shard_file(shard), summaries)
        shutil.rmtree(self._pieces(shard), ignore_errors=True)
        return len(summaries), len(errors)

    def write_errors(self, shards: list[Shard]) -> int:
        """``errors.jsonl``: the bad records of every finished shard, in shard then record order."""
        rows = [r for s in shards if self._errors(s).is_file() for r in _read_lines(self._errors(s))]
        _write_lines(self.out / ERRORS_FILE, rows)
        return len(rows)


def _write_parquet(path: Path, rows: list[dict]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema(
        [
            ("id", pa.string()),
            ("summary", pa.string()),
            ("sentences", pa.list_(pa.int64())),
            ("model", pa.string()),
            ("manifest", pa.string()),
            ("seconds", pa.float64()),
        ]
    )
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)


def read_shard_file(path: str | Path) -> list[dict]:
    """The rows of one output shard (JSON Lines or Parquet), as dicts."""
    path = Path(path)
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    return _read_lines(path)
