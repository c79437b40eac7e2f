"""The input of ``c2fsum batch``: shards (one table file each) and their records as rows.

A shard is one input file; a folder given as input stands for its table files, in name order.
Its records are read by the readers ``c2fsum prepare`` uses (:func:`c2fsum.data.readers.read_table`
with ``highlights=False``: an ``article`` and an optional ``id``) and numbered ``seq`` 1, 2, ...
in file order, a bad record (not UTF-8, bad JSON, no article, ...) included: it is a row of kind
``error`` with the reader's reason, so every record of the file is exactly one row::

    shard 3 (pubmed/part-0003.jsonl.gz)
      seq 1   article   id "PMC1"   article text        -> summarized by a worker
      seq 2   error     id ""       reason not_utf8     -> errors.jsonl
      seq 3   article   id "3"      (no id: its line)   -> summarized
      ...
      end     count 3                                   the number of records, last

Rows are plain dicts with the same columns (:data:`ROW_COLUMNS`), so Ray Data holds them as one
Arrow table; the local engine passes the same dicts to its processes.
"""

from __future__ import annotations

import gzip
import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from c2fsum.data.readers import TABLE_SUFFIXES, DataError, SkipLog, read_table, strip_suffix

log = logging.getLogger(__name__)

ROW_COLUMNS = ("shard", "seq", "kind", "id", "article", "where", "reason", "detail", "count")
"""The columns of every row: ``kind`` is ``article`` (to summarize), ``error`` (a bad record:
``reason`` and ``detail``) or ``end`` (the shard's last row: ``count`` records in all)."""


@dataclass(frozen=True)
class Shard:
    """One input file and the name of its output file (without the format's ending)."""

    index: int
    path: str
    name: str
    """``00003-part-0003``: the shard's place among the inputs and the file's name without its ending."""


def find_shards(inputs: Sequence[str | Path]) -> list[Shard]:
    """The shards of the ``--input`` paths, in the order given: a table file (``.jsonl``,
    ``.jsonl.gz``, ``.json``, ``.csv``, ``.csv.gz``, ``.parquet``) is one; a folder, each of its
    table files (name order, hidden files left out). DataError for a path that is missing, of
    another type, a folder without table files, or given twice."""
    if not inputs:
        raise DataError("--input: no input paths given")
    files: list[Path] = []
    for given in inputs:
        path = Path(given)
        if not path.exists():
            raise DataError(f"{path}: input not found")
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(".") and _is_table(p))
            if not found:
                raise DataError(f"{path}: a folder without table files ({', '.join(TABLE_SUFFIXES)})")
            files.extend(found)
        elif _is_table(path):
            files.append(path)
        else:
            raise DataError(f"{path}: unsupported input, expected a folder or a table ({', '.join(TABLE_SUFFIXES)})")
    seen: dict[Path, Path] = {}
    for f in files:
        if f.resolve() in seen:
            raise DataError(f"{f}: given twice (as {seen[f.resolve()]})")
        seen[f.resolve()] = f
    return [Shard(i, str(f.resolve()), f"{i:05d}-{strip_suffix(f.name)[0]}") for i, f in enumerate(files)]


def _is_table(path: Path) -> bool:
    return strip_suffix(path.name)[1] in TABLE_SUFFIXES


class _Recorder(SkipLog):
    """A :class:`SkipLog` that keeps each skip, in order, for :func:`read_rows` (and logs none
    of them: they go to ``errors.jsonl``)."""

    def __init__(self) -> None:
        super().__init__("batch", max_logged=0)
        self.found: list[tuple[str, str, str]] = []

    def skip(self, reason: str, where: str, detail: str = "", *, count: int = 1) -> None:
        super().skip(reason, where, detail, count=count)
        self.found.append((reason, where, detail))


def row(shard: int, seq: int, kind: str, **fields: object) -> dict:
    """A row with every column of :data:`ROW_COLUMNS` (empty strings and zeros where not given)."""
    out: dict = {"shard": shard, "seq": seq, "kind": kind, "id": "", "article": "", "where": "", "reason": ""}
    out.update(detail="", count=0)
    out.update(fields)
    return out


def read_rows(shard: int, path: str, done: Iterable[int] = ()) -> Iterator[dict]:
    """The rows of one shard in file order, those whose ``seq`` is in ``done`` left out, then its
    ``end`` row (always). Never raises for bad content: a file that cannot be read at all, or not
    on, is an ``error`` row too (``unreadable_files``)."""
    finished = set(done)
    skips = _Recorder()
    seq = 0

    def drained() -> Iterator[dict]:
        nonlocal seq
        for reason, where, detail in skips.found:
            seq += 1
            if seq not in finished:
                yield row(shard, seq, "error", where=where, reason=reason, detail=detail)
        skips.found.clear()

    try:
        for doc in read_table(path, skips, highlights=False):
            yield from drained()
            seq += 1
            if seq not in finished:
                yield row(shard, seq, "article", id=doc.id, article=doc.article, where=doc.where)
    except OSError as e:  # a file that disappeared, or cannot be opened (a Parquet file's errors are skips)
        skips.skip("unreadable_files", path, f"{type(e).__name__}: {e}")
    yield from drained()
    yield row(shard, seq + 1, "end", where=path, count=seq)


def count_records(path: str) -> int:
    """About how many records a shard holds, for the progress bar: its non-blank lines (JSON
    Lines), its rows (Parquet, from the metadata), its lines less the header (CSV: a field that
    spans lines counts more than once); 0 when the file cannot be read."""
    name = path.lower()
    try:
        if name.endswith(".parquet"):
            import pyarrow.parquet as pq

            return int(pq.ParquetFile(path).metadata.num_rows)
        opener = gzip.open if name.endswith(".gz") else open
        with opener(path, "rb") as f:
            n = sum(1 for line in f if line.strip())
        if name.endswith((".csv", ".csv.gz")):
            return max(0, n - 1)
        if name.endswith((".json", ".json.gz")):
            return n if n > 1 else 0  # a JSON array on one line: unknown
        return n
    except Exception as e:  # a bad file counts as empty here; reading it reports why
        log.debug("%s: cannot count records (%s)", path, e)
        return 0
