"""Predictions on disk -> ROUGE scores (the baselines that write predictions: :mod:`c2fsum.baselines`).

Files are JSON lines matched by ``id``:

* candidates: ``{"id": ..., "candidate": "sentence one\\nsentence two"}`` (or a list of sentences);
* references: ``{"id": ..., "references": ["highlight 1", ...]}``, or ``"references"`` /
  ``"highlights"`` as one newline-separated string (the Hugging Face ``cnn_dailymail`` layout).

A malformed line (bad JSON, not an object, missing or ill-typed field, duplicate id) is logged with
its ``file:line``, skipped and counted in ``n_skipped``; the rest is still scored. A candidate whose
id has no reference is an error, since its score would silently be left out.
"""

from __future__ import annotations

import gzip
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from c2fsum.errors import InputError
from c2fsum.metrics.rouge import rouge_settings, score_corpus

__all__ = ["JsonlRead", "read_jsonl_with_errors", "rouge_files"]

log = logging.getLogger(__name__)


@dataclass
class JsonlRead:
    """Objects of a JSON-lines file with their 1-based line numbers, and one message per bad line."""

    path: Path
    rows: list[tuple[int, dict]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def error(self, lineno: int, message: str) -> None:
        """Record (and log) a skipped line as ``path:line: message``."""
        text = f"{self.path}:{lineno}: {message}"
        self.errors.append(text)
        log.warning("skipped %s", text)


def _open_text(path: Path):
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def read_jsonl_with_errors(path: str | Path) -> JsonlRead:
    """Read a JSON-lines file (``.gz`` too), keeping going past malformed lines.

    Blank lines are ignored; a line that is not valid JSON or not a JSON object is recorded in
    ``errors`` as ``path:line: ...`` (and logged) instead of raising.
    """
    out = JsonlRead(Path(path))
    if not out.path.is_file():
        raise FileNotFoundError(f"{out.path}: no such file")
    with _open_text(out.path) as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line.rstrip("\r\n"))
            except json.JSONDecodeError as e:
                out.error(lineno, f"invalid JSON ({e.msg} at column {e.colno})")
                continue
            if not isinstance(obj, dict):
                out.error(lineno, f"expected a JSON object, got {type(obj).__name__}")
                continue
            out.rows.append((lineno, obj))
    return out


def _doc_id(obj: dict) -> str | None:
    value = obj.get("id")
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else None


def _candidate_field(obj: dict) -> str | list[str] | None:
    value = obj.get("candidate")
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(s, str) for s in value):
        return value
    return None


def _references_field(obj: dict) -> list[str] | None:
    value = obj.get("references", obj.get("highlights"))
    if isinstance(value, str):
        value = value.split("\n")
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        return None
    refs = [r for r in value if r.strip()]
    return refs or None


def _read_by_id(read: JsonlRead, parse, what: str) -> dict:
    """``{id: parsed field}`` in file order; bad or duplicate lines recorded as errors."""
    out: dict = {}
    for lineno, obj in read.rows:
        doc_id = _doc_id(obj)
        if doc_id is None:
            read.error(lineno, f"field 'id': expected a string or integer, got {obj.get('id')!r:.80}")
            continue
        value = parse(obj)
        if value is None:
            read.error(lineno, f"id {doc_id}: {what}")
            continue
        if doc_id in out:
            read.error(lineno, f"id {doc_id}: duplicate id (the first occurrence is kept)")
            continue
        out[doc_id] = value
    return out


def rouge_files(
    candidates_path: str | Path, references_path: str | Path, official: bool = False, *, clean: str = "none"
) -> dict:
    """ROUGE of a candidates file against a references file (see the module docstring for the formats).

    Returns the keys of :func:`c2fsum.metrics.rouge.score_corpus` (means x100 under the max and the
    concat protocol, ``n_docs``, ``per_doc`` with ids), ``rouge_clean`` and ``rouge_official``
    (:func:`~c2fsum.metrics.rouge.rouge_settings`), ``n_skipped`` (malformed lines of both files)
    and ``skipped`` (their ``file:line: reason`` messages). ``clean``: ``none`` (the strings as
    ROUGE-1.5.5 reads them) or ``ptb`` (c2fsum's former cleaning, see :mod:`c2fsum.metrics.rouge`).
    """
    settings = rouge_settings(official=official, clean=clean)
    cand_read = read_jsonl_with_errors(candidates_path)
    ref_read = read_jsonl_with_errors(references_path)
    candidates = _read_by_id(cand_read, _candidate_field, "field 'candidate': expected a string or a list of strings")
    references = _read_by_id(
        ref_read,
        _references_field,
        "field 'references' (or 'highlights'): expected a non-empty list of strings or a newline-separated string",
    )
    if not candidates:
        raise InputError(f"{cand_read.path}: no valid candidate lines ({len(cand_read.errors)} skipped)")
    missing = [doc_id for doc_id in candidates if doc_id not in references]
    if missing:
        raise InputError(
            f"{cand_read.path}: {len(missing)} of {len(candidates)} candidate ids have no "
            f"reference in {ref_read.path} (first: {missing[0]!r})"
        )
    unused = len(references) - len(candidates)
    if unused:
        log.info("%s: %d reference ids have no candidate (not scored)", ref_read.path, unused)
    ids = list(candidates)
    scores = score_corpus(
        [candidates[i] for i in ids], [references[i] for i in ids], official=official, ids=ids, clean=clean
    )
    skipped = cand_read.errors + ref_read.errors
    return {**scores, **settings, "n_skipped": len(skipped), "skipped": skipped}
