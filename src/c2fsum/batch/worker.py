"""What one worker of ``c2fsum batch`` holds and does: the model, loaded once, and a batch of rows in.

:class:`Summarizer` is the callable class both engines run: Ray Data builds one per actor
(``map_batches(Summarizer, fn_constructor_args=(job,))``) and the local engine one per process
(:mod:`c2fsum.batch.engines`). Each sets its own torch threads, loads the model through the one
inference path (:func:`c2fsum.pipeline.load`) and summarizes a batch's articles in one call of
:meth:`~c2fsum.pipeline.Pipeline.summarize` (or :meth:`~c2fsum.pipeline.Pipeline.extract` with
``--extract``), as ``c2fsum summarize`` and ``c2fsum extract --model`` do: the same text.

A batch comes in as columns (:data:`c2fsum.batch.shards.ROW_COLUMNS`) and goes out as columns
(:data:`OUT_COLUMNS`): one row per row in, ``record`` the JSON line that the output keeps.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OUT_COLUMNS = ("shard", "seq", "kind", "record", "worker")
"""``kind``: ``summary`` (``record`` is an output row), ``error`` (an ``errors.jsonl`` row) or
``end``; ``worker``: ``host:pid`` of the process that did it (not written out)."""

EMPTY = "empty"
"""The reason of an article without words (after reading, as ``c2fsum summarize`` refuses it)."""
REFUSED = "refused"
"""The reason of an article the model refused (the message in ``detail``)."""


@dataclass(frozen=True)
class Job:
    """What every worker needs to know: the model, how to decode, and its torch threads."""

    model: str
    """A model name as ``--model`` takes it (shipped name, run directory, hub id)."""
    extract: bool = False
    """The sentences a sentence selector picks, unchanged (``c2fsum extract --model``), instead of its summary."""
    decode: dict[str, Any] = field(default_factory=dict)
    """Decoding options given (:class:`~c2fsum.decoding.options.DecodeOptions` fields; none: the model's)."""
    threads: int = 1
    """torch threads of each worker."""


def manifest_hash(checkpoint: str | Path) -> str:
    """SHA-256 of a checkpoint's ``manifest.json`` (which holds the SHA-256 of each of its files):
    one hash that names the model's exact files; "" for a checkpoint without a manifest."""
    path = Path(checkpoint) / "manifest.json"
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


def _text(value: Any) -> str:
    """A column value as str (Ray gives numpy strings or bytes; the local engine, str)."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


class Summarizer:
    """One worker: its model loaded once (``__init__``), then batches of rows (``__call__``)."""

    def __init__(self, job: Job):
        import torch

        from c2fsum.pipeline import load

        torch.set_num_threads(job.threads)
        self.job = job
        self.pipeline = load(job.model)
        self.options = self.pipeline.options(**job.decode)
        self.manifest = manifest_hash(self.pipeline.path)
        self.worker = f"{socket.gethostname()}:{os.getpid()}"

    def __call__(self, batch: Mapping[str, Sequence[Any]]) -> dict[str, list]:
        """Rows in (columns of :data:`~c2fsum.batch.shards.ROW_COLUMNS`), rows out (:data:`OUT_COLUMNS`),
        in the same order. An article without words, or one the model refuses, is an error row."""
        from c2fsum.pipeline import has_words

        n = len(batch["seq"])
        kinds = [_text(k) for k in batch["kind"]]
        records: list[dict | None] = [None] * n
        out_kinds = list(kinds)
        todo = []
        for i, kind in enumerate(kinds):
            if kind == "article":
                text = _text(batch["article"][i])
                if has_words(text, max_words=self.options.max_words):
                    todo.append((i, text))
                else:
                    records[i] = self._error(batch, i, EMPTY, "no words to summarize after reading")
                    out_kinds[i] = "error"
            elif kind == "error":
                records[i] = self._error(batch, i, _text(batch["reason"][i]), _text(batch["detail"][i]))
            else:  # end
                records[i] = {"count": int(batch["count"][i])}
        for (i, _), result in zip(todo, self._summarize([t for _, t in todo]), strict=True):
            text, sentences, refusal, seconds = result
            if refusal:  # the model gives no summary of it (an exception's, or the pipeline's reason)
                records[i] = self._error(batch, i, REFUSED, refusal)
                out_kinds[i] = "error"
                continue
            records[i] = {
                "id": _text(batch["id"][i]),
                "summary": text,
                "sentences": sentences,
                "model": self.job.model,
                "manifest": self.manifest,
                "seconds": round(seconds, 4),
            }
            out_kinds[i] = "summary"
        return {
            "shard": [int(s) for s in batch["shard"]],
            "seq": [int(s) for s in batch["seq"]],
            "kind": out_kinds,
            "record": [json.dumps(r, ensure_ascii=False) for r in records],
            "worker": [self.worker] * n,
        }

    def _error(self, batch: Mapping[str, Sequence[Any]], i: int, reason: str, detail: str) -> dict:
        return {
            "id": _text(batch["id"][i]) or None,
            "where": _text(batch["where"][i]),
            "reason": reason,
            "detail": detail,
        }

    def _summarize(self, texts: list[str]) -> list[tuple[str, list[int] | None, str, float]]:
        """``(text, sentences, refusal, seconds)`` per text: all in one call, its time shared
        equally; when the model raises a user error for one, each alone, the refused one's
        ``refusal`` the error's first line."""
        from c2fsum.errors import is_user_error

        if not texts:
            return []
        start = time.perf_counter()
        try:
            done = self._run(texts)
        except Exception as e:
            if not is_user_error(e):
                raise  # a bug: the run stops with its traceback
            if len(texts) == 1:
                return [("", None, str(e).splitlines()[0] or type(e).__name__, time.perf_counter() - start)]
            return [r for t in texts for r in self._summarize([t])]
        share = (time.perf_counter() - start) / len(texts)
        return [(text, sentences, refusal, share) for text, sentences, refusal in done]

    def _run(self, texts: list[str]) -> list[tuple[str, list[int] | None, str]]:
        """What ``c2fsum summarize`` (or ``c2fsum extract --model``, at its default length) makes of
        each text: its text, the sentences picked, and the reason when it makes none."""
        from c2fsum.pipeline import EXTRACT_WORDS

        if self.job.extract:
            extracts = self.pipeline.extract(texts, words=EXTRACT_WORDS)
            return [(e.text, e.sentences, getattr(e, "refusal", "")) for e in extracts]
        summaries = self.pipeline.summarize(texts, self.options)
        return [(s.text, s.sentences, getattr(s, "refusal", "")) for s in summaries]
