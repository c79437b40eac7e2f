"""Readers for CNN/DailyMail in the forms users have it.

* a directory of raw ``.story`` files (article paragraphs, then ``@highlight`` blocks), split
  by the official url lists (``all_train.txt``, ``all_val.txt``, ``all_test.txt``; a story's
  file name is the SHA-1 hex of its URL) or all put in one split;
* tables with ``article`` and ``highlights`` columns (Hugging Face layout: highlights
  separated by newlines; ``id`` optional) as ``.jsonl``, ``.jsonl.gz``, ``.json``, ``.csv``,
  ``.csv.gz`` or ``.parquet``, one file per split, named after the split
  (``train``, ``val``/``valid``/``validation``/``dev``, ``test``; a suffix such as
  ``train-00000-of-00003.parquet`` is allowed);
* the Hugging Face hub through ``datasets.load_dataset`` (imported only when asked for).

The table readers also read articles alone (``highlights=False``, what ``c2fsum batch`` reads):
then a record needs only ``article``, and one without an id gets its number in the file (its
line in JSON Lines and CSV, its row in Parquet, its place in a JSON array; 1-based).

Every reader yields :class:`RawDocument` objects in file order. A bad record (malformed JSON,
bytes that are not UTF-8, a missing column, a story without highlights) is reported to a
:class:`SkipLog`, which logs it with its file and line and counts it; reading goes on.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import logging
import math
import re
import threading
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from c2fsum.errors import InputError, UserError

log = logging.getLogger(__name__)

SPLITS: tuple[str, ...] = ("train", "val", "test")
"""Output split names, in the order they are prepared."""

SPLIT_ALIASES: dict[str, str] = {
    "train": "train",
    "training": "train",
    "val": "val",
    "valid": "val",
    "validation": "val",
    "dev": "val",
    "test": "test",
}
"""Names found in file names (or Hugging Face split names) and the split they mean."""

TABLE_SUFFIXES: tuple[str, ...] = (".jsonl.gz", ".json.gz", ".csv.gz", ".jsonl", ".json", ".csv", ".parquet")
"""File endings read as tables of ``article``/``highlights`` records (longest first)."""

STORY_SUFFIX = ".story"

# Lines of a .story article that end with one of these keep their ending; others get " ."
# appended (Hugging Face cnn_dailymail builder, after See et al. 2017).
_END_TOKENS = (".", "!", "?", "...", "'", "`", '"', "\u2019", "\u201d", ")")


class DataError(UserError, ValueError):
    """Input data cannot be used: nothing readable, a file of unknown split, a bad prepared file.

    The message names the path (and line, when there is one).
    """


@dataclass(frozen=True)
class RawDocument:
    """One document as read: untokenized article, its highlights, where it came from."""

    id: str
    article: str
    highlights: tuple[str, ...]
    where: str
    """``path:line`` (tables), the story path, or ``hf:name[split] row N``; used in messages."""


class SkipLog:
    """Counts skipped input by reason and logs each skip with its location.

    After ``max_logged`` messages for one reason further ones go to DEBUG, and one WARNING says
    so; the counts stay exact. Reasons ending in ``_files`` count whole files, others records.
    """

    def __init__(self, name: str = "", *, max_logged: int = 50):
        self.name = name
        self.max_logged = max_logged
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()  # readers may run in Pool.imap's feeder thread

    def skip(self, reason: str, where: str, detail: str = "", *, count: int = 1) -> None:
        """Record ``count`` skipped records (or files) for one reason and log them once."""
        with self._lock:
            self.counts[reason] += count
            n = self.counts[reason]
        prefix = f"[{self.name}] " if self.name else ""
        msg = f"{prefix}{where}: skipped ({reason}){': ' + detail if detail else ''}"
        if n <= self.max_logged:
            log.warning(msg)
            if n == self.max_logged:
                log.warning(
                    "%sfurther '%s' skips are logged at DEBUG level only (the count stays exact)",
                    prefix,
                    reason,
                )
        else:
            log.debug(msg)

    def total(self) -> int:
        return sum(self.counts.values())

    def as_dict(self) -> dict[str, int]:
        return dict(sorted(self.counts.items()))


# ------------------------------------------------------------------------------------ names
def strip_suffix(name: str) -> tuple[str, str]:
    """``("train", ".jsonl.gz")`` for ``"train.jsonl.gz"``; ``(name, "")`` for other endings."""
    lower = name.lower()
    for suffix in (*TABLE_SUFFIXES, STORY_SUFFIX):
        if lower.endswith(suffix):
            return name[: -len(suffix)], suffix
    return name, ""


def split_of_name(name: str) -> str | None:
    """The split a file name (or a Hugging Face split name) stands for, or None.

    ``train.jsonl`` -> train; ``validation.parquet`` -> val; ``test-00000-of-00001.parquet`` ->
    test; ``cnn_dm_subset.csv`` -> None. Case-insensitive.
    """
    stem, _ = strip_suffix(name)
    m = re.match(r"^([a-z]+)(?:[-_.].*)?$", stem.lower())
    if not m:
        return None
    return SPLIT_ALIASES.get(m.group(1))


def normalize_split(split: str) -> str:
    """``"validation"`` -> ``"val"``; raises ValueError for a name that is no split."""
    out = SPLIT_ALIASES.get(str(split).lower())
    if out is None:
        raise InputError(f"split: got {split!r}, expected one of {sorted(SPLIT_ALIASES)}")
    return out


def url_to_id(url: str) -> str:
    """The CNN/DM document id of a story URL: SHA-1 hex of its UTF-8 bytes (See et al. 2017)."""
    return hashlib.sha1(url.strip().encode("utf-8")).hexdigest()


def article_id(article: str) -> str:
    """A stable id for a record without one: SHA-1 hex of the article's UTF-8 text."""
    return hashlib.sha1(article.encode("utf-8", errors="surrogatepass")).hexdigest()


# ----------------------------------------------------------------------------------- records
def _split_highlights(value: Any) -> list[str] | None:
    """Highlights as a list of non-empty stripped strings, or None if of the wrong type."""
    if isinstance(value, str):
        items = value.split("\n")
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        items = list(value)
    else:
        return None
    return [h.strip() for h in items if h.strip()]


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def object_to_document(
    record: Any,
    where: str,
    skips: SkipLog,
    *,
    reason: str = "bad_json",
    expected: str = "a JSON object",
    highlights: bool = True,
    number: int = 0,
) -> RawDocument | None:
    """:func:`record_to_document` for a value that should be a mapping; anything else is a skip."""
    if not isinstance(record, Mapping):
        skips.skip(reason, where, f"expected {expected}, got {type(record).__name__}")
        return None
    return record_to_document(record, where, skips, highlights=highlights, number=number)


def columns_needed(highlights: bool = True) -> tuple[str, ...]:
    """The columns every record must have: ``article`` and ``highlights``, or ``article`` alone."""
    return ("article", "highlights") if highlights else ("article",)


def record_to_document(
    record: Mapping[str, Any], where: str, skips: SkipLog, *, highlights: bool = True, number: int = 0
) -> RawDocument | None:
    """Check one ``{article, highlights[, id]}`` record; None (and a logged skip) if unusable.

    An empty or null article is passed on (the caller drops it as an empty article); a
    missing column, a non-string value or no highlights at all is a skip. ``highlights=False``:
    an ``{article[, id]}`` record, its highlights not read, and a missing id is ``number`` (the
    record's 1-based line or row in its file) instead of the article's hash.
    """
    if not highlights:
        return _article_record(record, where, skips, number)
    for column in ("article", "highlights"):
        if column not in record:
            skips.skip("missing_column", where, f"no {column!r} field (fields: {sorted(record)[:8]})")
            return None
    article = record["article"]
    if _is_missing(article):
        article = ""
    if not isinstance(article, str):
        skips.skip("bad_value", where, f"'article' must be a string, got {type(article).__name__}")
        return None
    raw_highlights = record["highlights"]
    summary = [] if _is_missing(raw_highlights) else _split_highlights(raw_highlights)
    if summary is None:
        skips.skip(
            "bad_value",
            where,
            f"'highlights' must be a string or a list of strings, got {type(raw_highlights).__name__}",
        )
        return None
    if not summary:
        skips.skip("no_highlights", where, "'highlights' is empty")
        return None
    doc_id = record.get("id")
    if _is_missing(doc_id) or (isinstance(doc_id, str) and not doc_id.strip()):
        doc_id = article_id(article)
    elif isinstance(doc_id, (str, int)) and not isinstance(doc_id, bool):
        doc_id = str(doc_id).strip()
    else:
        skips.skip("bad_value", where, f"'id' must be a string, got {type(doc_id).__name__}")
        return None
    return RawDocument(id=doc_id, article=article, highlights=tuple(summary), where=where)


def _article_record(record: Mapping[str, Any], where: str, skips: SkipLog, number: int) -> RawDocument | None:
    """``record_to_document`` of an ``{article[, id]}`` record (``highlights=False``)."""
    if "article" not in record:
        skips.skip("missing_column", where, f"no 'article' field (fields: {sorted(record)[:8]})")
        return None
    article = "" if _is_missing(record["article"]) else record["article"]
    if not isinstance(article, str):
        skips.skip("bad_value", where, f"'article' must be a string, got {type(article).__name__}")
        return None
    doc_id = record.get("id")
    if _is_missing(doc_id) or (isinstance(doc_id, str) and not doc_id.strip()):
        doc_id = str(number)
    elif isinstance(doc_id, (str, int)) and not isinstance(doc_id, bool):
        doc_id = str(doc_id).strip()
    else:
        skips.skip("bad_value", where, f"'id' must be a string, got {type(doc_id).__name__}")
        return None
    return RawDocument(id=doc_id, article=article, highlights=(), where=where)


_SURROGATE = re.compile("[\udc80-\udcff]")


def _has_surrogates(values: Iterable[Any]) -> bool:
    """True if a string decoded with ``surrogateescape`` held bytes that are not UTF-8."""
    return any(isinstance(v, str) and _SURROGATE.search(v) for v in values)


# ------------------------------------------------------------------------------------ tables
_UTF8_BOM = b"\xef\xbb\xbf"
_TOO_DEEP = "nested too deeply to read (Python's recursion limit)"


def _json_error(e: ValueError) -> str:
    """One line for a record that ``json.loads`` refused."""
    if isinstance(e, json.JSONDecodeError):
        return f"{e.msg} at column {e.colno}"
    return str(e).split(";")[0]  # "Exceeds the limit (4300 digits) for integer string conversion: ..."


def _open_binary(path: Path):
    return gzip.open(path, "rb") if path.name.lower().endswith(".gz") else open(path, "rb")


def read_jsonl(path: str | Path, skips: SkipLog, *, highlights: bool = True) -> Iterator[RawDocument]:
    """Documents of a JSON Lines file (``.gz`` allowed), one object per line.

    A ``.json`` file whose first non-blank character is ``[`` is read as one JSON array.
    ``highlights=False``: articles alone (:func:`record_to_document`).
    """
    path = Path(path)
    with _open_binary(path) as f:
        head = f.read(4096).removeprefix(_UTF8_BOM).lstrip()
    if path.name.lower().endswith((".json", ".json.gz")) and head.startswith(b"["):
        yield from _read_json_array(path, skips, highlights=highlights)
        return
    with _open_binary(path) as f:
        for lineno, raw in enumerate(f, start=1):
            where = f"{path}:{lineno}"
            if not raw.strip():
                continue
            if lineno == 1 and raw.startswith(_UTF8_BOM):  # Notepad's UTF-8 files start with one
                raw = raw[len(_UTF8_BOM) :]
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                skips.skip("not_utf8", where, f"byte {raw[e.start : e.start + 1]!r} at column {e.start + 1}")
                continue
            try:
                record = json.loads(line)
            except ValueError as e:  # JSONDecodeError, or an integer of more than 4,300 digits
                skips.skip("bad_json", where, _json_error(e))
                continue
            except RecursionError:
                skips.skip("bad_json", where, _TOO_DEEP)
                continue
            doc = object_to_document(record, where, skips, highlights=highlights, number=lineno)
            if doc is not None:
                yield doc


def _read_json_array(path: Path, skips: SkipLog, *, highlights: bool = True) -> Iterator[RawDocument]:
    with _open_binary(path) as f:
        data = f.read().removeprefix(_UTF8_BOM)
    try:
        records = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        skips.skip("unreadable_files", f"{path}:{line}", "not UTF-8")
        return
    except json.JSONDecodeError as e:
        skips.skip("unreadable_files", f"{path}:{e.lineno}", f"bad JSON: {e.msg}")
        return
    except ValueError as e:  # an integer of more than 4,300 digits
        skips.skip("unreadable_files", str(path), f"bad JSON: {_json_error(e)}")
        return
    except RecursionError:
        skips.skip("unreadable_files", str(path), f"bad JSON: {_TOO_DEEP}")
        return
    if not isinstance(records, list):  # a .json file whose text starts with "[" after a BOM, say
        skips.skip("unreadable_files", str(path), f"expected a JSON array, got {type(records).__name__}")
        return
    for i, record in enumerate(records):
        doc = object_to_document(record, f"{path}[{i}]", skips, highlights=highlights, number=i + 1)
        if doc is not None:
            yield doc


def read_csv(path: str | Path, skips: SkipLog, *, highlights: bool = True) -> Iterator[RawDocument]:
    """Documents of a CSV file with a header row (``.gz`` allowed); fields may span lines.

    A record is named ``path:line``, or ``path:first-last`` when its quoted fields span lines.
    ``highlights=False``: articles alone (:func:`record_to_document`)."""
    path = Path(path)
    csv.field_size_limit(2**31 - 1)
    with _open_binary(path) as fb:
        # utf-8-sig drops a byte-order mark; surrogateescape lets one bad record be skipped alone
        text = io.TextIOWrapper(fb, encoding="utf-8-sig", errors="surrogateescape", newline="")
        reader = csv.reader(text)
        try:
            header = next(reader)
        except StopIteration:
            skips.skip("empty_files", str(path), "no header row")
            return
        except csv.Error as e:
            skips.skip("unreadable_files", f"{path}:1", f"bad CSV header: {e}")
            return
        header = [h.strip() for h in header]
        missing = [c for c in columns_needed(highlights) if c not in header]
        if missing:
            skips.skip("missing_column_files", f"{path}:1", f"no column {missing} (columns: {header[:10]})")
            return
        start = reader.line_num + 1
        while True:
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as e:
                skips.skip("bad_csv", f"{path}:{start}", str(e))
                start = reader.line_num + 1
                continue
            # a quoted field may span lines (and a quote left open swallows the rows after it): name them all
            where = f"{path}:{start}" if reader.line_num <= start else f"{path}:{start}-{reader.line_num}"
            line, start = start, reader.line_num + 1
            if not row:
                continue
            if _has_surrogates(row):
                skips.skip("not_utf8", where, "bytes that are not UTF-8")
                continue
            if len(row) != len(header):
                skips.skip("bad_csv", where, f"{len(row)} fields, header has {len(header)}")
                continue
            record = dict(zip(header, row, strict=True))
            doc = record_to_document(record, where, skips, highlights=highlights, number=line)
            if doc is not None:
                yield doc


def read_parquet(
    path: str | Path, skips: SkipLog, *, batch_size: int = 1024, highlights: bool = True
) -> Iterator[RawDocument]:
    """Documents of a Parquet file, read in batches of ``batch_size`` rows. ``highlights=False``:
    articles alone (:func:`record_to_document`)."""
    import pyarrow.parquet as pq

    path = Path(path)
    try:
        pf = pq.ParquetFile(path)
    except Exception as e:  # pyarrow raises several types for a damaged file
        skips.skip("unreadable_files", str(path), f"not a Parquet file ({type(e).__name__}: {e})")
        return
    names = pf.schema_arrow.names
    missing = [c for c in columns_needed(highlights) if c not in names]
    if missing:
        skips.skip("missing_column_files", str(path), f"no column {missing} (columns: {names[:10]})")
        return
    columns = [c for c in ("id", *columns_needed(highlights)) if c in names]
    row = 0
    batches = pf.iter_batches(batch_size=batch_size, columns=columns)
    while True:
        try:
            batch = next(batches, None)
        except Exception as e:  # a damaged page: pyarrow raises OSError, ArrowInvalid, ...
            detail = f"cannot read on after row {row} ({type(e).__name__}: {str(e)[:200]})"
            skips.skip("unreadable_files", f"{path}:row {row + 1}", detail)
            return
        if batch is None:
            return
        for record in batch.to_pylist():
            row += 1
            where = f"{path}:row {row}"
            bad = _decode_binary_fields(record)
            if bad is not None:
                skips.skip("not_utf8", where, f"column {bad!r} holds bytes that are not UTF-8")
                continue
            doc = record_to_document(record, where, skips, highlights=highlights, number=row)
            if doc is not None:
                yield doc


def _decode_binary_fields(record: dict[str, Any]) -> str | None:
    """Decode ``bytes`` values (binary Parquet columns) in place; the first bad column, or None."""
    for key, value in record.items():
        if isinstance(value, bytes):
            try:
                record[key] = value.decode("utf-8")
            except UnicodeDecodeError:
                return key
    return None


def read_table(path: str | Path, skips: SkipLog, *, highlights: bool = True) -> Iterator[RawDocument]:
    """Dispatch on the file ending (see :data:`TABLE_SUFFIXES`); ``highlights=False``: articles
    alone (:func:`record_to_document`).

    A file that cannot be read on (a damaged or cut gzip stream, a read error) stops with an
    ``unreadable_files`` skip naming it and the documents read so far, instead of an exception."""
    path = Path(path)
    _, suffix = strip_suffix(path.name)
    if suffix in (".jsonl", ".jsonl.gz", ".json", ".json.gz"):
        return _read_on(path, read_jsonl(path, skips, highlights=highlights), skips)
    if suffix in (".csv", ".csv.gz"):
        return _read_on(path, read_csv(path, skips, highlights=highlights), skips)
    if suffix == ".parquet":
        return read_parquet(path, skips, highlights=highlights)
    raise DataError(f"{path}: unsupported file type, expected one of {', '.join(TABLE_SUFFIXES)}")


def _read_on(path: Path, docs: Iterator[RawDocument], skips: SkipLog) -> Iterator[RawDocument]:
    n = 0
    try:
        for doc in docs:
            n += 1
            yield doc
    except (OSError, EOFError, zlib.error) as e:  # gzip.BadGzipFile is an OSError
        skips.skip("unreadable_files", str(path), f"cannot read on after {n} document(s) ({type(e).__name__}: {e})")


# ----------------------------------------------------------------------------------- stories
def _fix_missing_period(line: str) -> str:
    """Append `` .`` to a line that does not end a sentence (Hugging Face builder rule)."""
    if "@highlight" in line or not line or line.endswith(_END_TOKENS):
        return line
    return line + " ."


def parse_story(text: str) -> tuple[str, list[str]]:
    """Article and highlights of a ``.story`` text, by the rules of the Hugging Face builder.

    Lines are stripped; lines not ending a sentence get `` .``; article lines are joined with a
    space; every non-empty line after the first ``@highlight`` is one highlight.
    """
    article_lines: list[str] = []
    highlights: list[str] = []
    in_highlights = False
    for line in text.splitlines():
        line = _fix_missing_period(line.strip())
        if not line:
            continue
        if line.startswith("@highlight"):
            in_highlights = True
        elif in_highlights:
            highlights.append(line)
        else:
            article_lines.append(line)
    return " ".join(article_lines), highlights


def read_story(path: str | Path, skips: SkipLog, *, doc_id: str | None = None) -> RawDocument | None:
    """One ``.story`` file as a document (id: the file name without ``.story``), or None."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        skips.skip("unreadable_files", str(path), str(e))
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        skips.skip("not_utf8", f"{path}:{line}", f"byte {data[e.start : e.start + 1]!r}")
        return None
    article, highlights = parse_story(text)
    if not highlights:
        skips.skip("no_highlights", str(path), "no @highlight block")
        return None
    return RawDocument(
        id=doc_id or strip_suffix(path.name)[0],
        article=article,
        highlights=tuple(highlights),
        where=str(path),
    )


def read_url_list(path: str | Path) -> list[str]:
    """URLs of an official list file (one per line, blank lines ignored)."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(f"{path}: cannot read url list ({e})") from e
    return [line.strip() for line in lines if line.strip()]


UrlLists = str | Path | Mapping[str, str | Path] | Sequence[str | Path]
"""A folder holding ``all_train.txt``/``all_val.txt``/``all_test.txt``, split -> file, or files."""


def find_url_lists(url_lists: UrlLists) -> dict[str, Path]:
    """Split -> url list file, from a folder (``all_train.txt`` ...), a mapping, or file paths."""
    if isinstance(url_lists, Mapping):
        return {normalize_split(k): Path(v) for k, v in url_lists.items()}
    paths: list[Path]
    if isinstance(url_lists, (str, Path)):
        root = Path(url_lists)
        if not root.exists():
            raise DataError(f"{root}: url lists not found")
        paths = sorted(root.glob("*.txt")) if root.is_dir() else [root]
    else:
        paths = [Path(p) for p in url_lists]
    found: dict[str, Path] = {}
    for p in paths:
        stem = p.name[:-4] if p.name.lower().endswith(".txt") else p.name
        split = split_of_name(stem[4:] if stem.lower().startswith("all_") else stem)
        if split is None:
            log.info("%s: not a url list name (all_train.txt, all_val.txt, all_test.txt), ignored", p)
            continue
        if split in found:
            raise DataError(f"{p}: second url list for split {split!r} (first: {found[split]})")
        found[split] = p
    if not found:
        raise DataError(f"{url_lists}: no url list found (expected all_train.txt, all_val.txt, all_test.txt)")
    return found


# ------------------------------------------------------------------------------------ sources
@dataclass
class Source:
    """One input of one split: a table file, an ordered list of story files, or an HF split."""

    kind: str
    """``table``, ``stories`` or ``hf``."""
    split: str
    paths: list[Path] = field(default_factory=list)
    ids: list[str] | None = None
    """For ``stories`` from url lists: the document id of each path (its URL hash)."""
    dataset: Any = None
    """For ``hf``: the ``datasets.Dataset`` to iterate."""
    label: str = ""

    def describe(self) -> str:
        if self.kind == "table":
            return str(self.paths[0])
        if self.kind == "stories":
            folders = sorted({str(p.parent) for p in self.paths})
            more = " ..." if len(folders) > 3 else ""
            return f"{len(self.paths)} .story files in {', '.join(folders[:3])}{more}"
        return self.label

    def documents(self, skips: SkipLog) -> Iterator[RawDocument]:
        """The documents of this source, in order; bad records go to ``skips``."""
        if self.kind == "table":
            yield from read_table(self.paths[0], skips)
        elif self.kind == "stories":
            ids: list[str | None] = list(self.ids) if self.ids else [None] * len(self.paths)
            for path, doc_id in zip(self.paths, ids, strict=True):
                doc = read_story(path, skips, doc_id=doc_id)
                if doc is not None:
                    yield doc
        elif self.kind == "hf":
            for row, record in enumerate(self.dataset, start=1):
                doc = object_to_document(
                    record, f"{self.label} row {row}", skips, reason="bad_value", expected="a mapping"
                )
                if doc is not None:
                    yield doc
        else:  # pragma: no cover - constructed only here
            raise InputError(f"Source.kind: got {self.kind!r}, expected table, stories or hf")


def _scan_dir(root: Path) -> tuple[list[Path], list[Path]]:
    """Split-named table files and ``.story`` files under ``root`` (top level first, else deeper)."""

    def tables_in(files: Iterable[Path]) -> list[Path]:
        out = []
        for p in files:
            if not p.is_file() or p.name.startswith("."):
                continue
            _, suffix = strip_suffix(p.name)
            if suffix in TABLE_SUFFIXES:
                if split_of_name(p.name) is None:
                    log.warning("%s: file name names no split (train/val/test), not read", p)
                else:
                    out.append(p)
        return sorted(out)

    tables = tables_in(root.iterdir()) or tables_in(root.rglob("*"))
    stories = sorted(p for p in root.glob(f"*{STORY_SUFFIX}") if p.is_file())
    if not stories:
        stories = sorted(p for p in root.rglob(f"*{STORY_SUFFIX}") if p.is_file())
    return tables, stories


def find_sources(
    inputs: str | Path | Sequence[str | Path],
    *,
    url_lists: UrlLists | None = None,
    story_split: str = "train",
    skips: SkipLog | None = None,
) -> dict[str, list[Source]]:
    """Split -> sources, from files and folders as users have them.

    A file whose name names a split goes to that split; a folder is scanned for such files
    (at its top level, else below) and, if it holds none, for ``.story`` files. Story files go
    to the splits of ``url_lists`` when given (in list order), otherwise all to
    ``story_split``. Stories outside every list are counted in ``skips`` as
    ``not_in_url_lists``; listed URLs without a story file as ``missing_story_{split}``.
    """
    skips = skips if skips is not None else SkipLog("inputs")
    story_split = normalize_split(story_split)
    if isinstance(inputs, (str, Path)):
        inputs = [inputs]
    if not inputs:
        raise DataError("no input paths given")
    sources: dict[str, list[Source]] = {}
    stories: list[Path] = []
    for item in inputs:
        path = Path(item)
        if not path.exists():
            raise DataError(f"{path}: input not found")
        if path.is_dir():
            tables, dir_stories = _scan_dir(path)
            if tables and dir_stories:
                log.warning(
                    "%s: read the split files %s; the %d .story files found there too are NOT read "
                    "(pass their folder as its own input to read them)",
                    path,
                    [p.name for p in tables],
                    len(dir_stories),
                )
                dir_stories = []
            if not tables and not dir_stories:
                raise DataError(
                    f"{path}: no .story files and no split files "
                    f"(train/val/test with {', '.join(TABLE_SUFFIXES)}) found"
                )
            for t in tables:
                split = split_of_name(t.name)
                assert split is not None
                sources.setdefault(split, []).append(Source("table", split, [t]))
            stories.extend(dir_stories)
        elif path.name.lower().endswith(STORY_SUFFIX):
            stories.append(path)
        else:
            _, suffix = strip_suffix(path.name)
            if suffix not in TABLE_SUFFIXES:
                raise DataError(
                    f"{path}: unsupported input, expected a folder, a .story file or a table "
                    f"({', '.join(TABLE_SUFFIXES)})"
                )
            split = split_of_name(path.name)
            if split is None:
                raise DataError(
                    f"{path}: cannot tell the split from the file name; name it "
                    "train/val/test (validation and valid also work), e.g. train.jsonl.gz"
                )
            sources.setdefault(split, []).append(Source("table", split, [path]))
    if stories:
        _assign_stories(stories, sources, url_lists=url_lists, story_split=story_split, skips=skips)
    elif url_lists is not None:
        log.warning("url_lists given but no .story files among the inputs; url lists ignored")
    return {s: sources[s] for s in SPLITS if s in sources}


def _assign_stories(
    stories: list[Path], sources: dict[str, list[Source]], *, url_lists, story_split: str, skips: SkipLog
) -> None:
    # one file per id: the first in input order wins
    by_id: dict[str, Path] = {}
    for p in stories:
        doc_id = strip_suffix(p.name)[0]
        if doc_id in by_id:
            if by_id[doc_id] != p:
                skips.skip("duplicate_story", str(p), f"same name as {by_id[doc_id]}")
            continue
        by_id[doc_id] = p
    if url_lists is None:
        ids = list(by_id)
        sources.setdefault(story_split, []).append(Source("stories", story_split, [by_id[i] for i in ids], ids=ids))
        return
    lists = find_url_lists(url_lists)
    used: set[str] = set()
    for split in SPLITS:
        if split not in lists:
            continue
        paths, ids, missing = [], [], 0
        for url in read_url_list(lists[split]):
            doc_id = url_to_id(url)
            if doc_id in used:
                continue
            used.add(doc_id)
            if doc_id in by_id:
                paths.append(by_id[doc_id])
                ids.append(doc_id)
            else:
                missing += 1
        if missing:
            detail = f"{missing} of its URLs have no .story file among the inputs (not prepared)"
            skips.skip(f"missing_story_{split}", str(lists[split]), detail, count=missing)
        if paths:
            sources.setdefault(split, []).append(Source("stories", split, paths, ids=ids))
    outside = [p for i, p in by_id.items() if i not in used]
    for p in outside:
        skips.skip("not_in_url_lists", str(p), "its name is the hash of no listed URL")


def hf_sources(
    name: str,
    *,
    config: str | None = None,
    data_files: Mapping[str, Sequence[str | Path]] | None = None,
    **load_kwargs: Any,
) -> dict[str, list[Source]]:
    """Split -> source, through ``datasets.load_dataset`` (needs the ``datasets`` package).

    ``name`` is a hub dataset (``cnn_dailymail``: config ``3.0.0`` by default) or a generic
    builder (``json``, ``csv``, ``parquet``) reading ``data_files`` (split -> local files).
    """
    try:
        import datasets
    except ImportError as e:
        raise DataError(
            f"--hf {name}: the 'datasets' package is not installed (pip install 'c2fsum[hf]' or pip install datasets)"
        ) from e
    generic = name in ("json", "csv", "parquet", "arrow", "text")
    if generic and not data_files:
        raise DataError(f"--hf {name}: the generic builder needs data files (give input paths)")
    if not generic and config is None and name.rstrip("/").split("/")[-1] == "cnn_dailymail":
        config = "3.0.0"
    args = [name] if generic or config is None else [name, config]
    kwargs = dict(load_kwargs)
    if data_files:
        kwargs["data_files"] = {k: [str(p) for p in v] for k, v in data_files.items()}
    try:
        dataset_dict = datasets.load_dataset(*args, **kwargs)
    except Exception as e:  # network, missing dataset, bad files: report with the name
        raise DataError(f"--hf {name}: load_dataset failed: {type(e).__name__}: {e}") from e
    out: dict[str, list[Source]] = {}
    for hf_split in dataset_dict:
        split = SPLIT_ALIASES.get(str(hf_split).lower())
        if split is None:
            log.warning("--hf %s: split %r is not train/validation/test, not read", name, hf_split)
            continue
        label = f"hf:{name}[{hf_split}]"
        out.setdefault(split, []).append(Source("hf", split, dataset=dataset_dict[hf_split], label=label))
    return {s: out[s] for s in SPLITS if s in out}
