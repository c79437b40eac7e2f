"""What a reader meets in the summaries of a prepared split: words their papers never use,
template openings, back-to-back repeats, unfinished sentences (:mod:`c2fsum.metrics.output_stats`).

``evaluate`` and ``baseline`` add these to ``metrics.json`` and each prediction's own counts to
``predictions.jsonl`` (so ``c2fsum compare A B --fields novel_specific_words,unfinished`` pairs
them); ``bench/reader_measures.py`` prints them for any ``predictions.jsonl``.

Specific words are those in fewer than 10% of the documents of the evaluated split, all of its
documents (also when only the first ``--limit`` are summarized): the collection the summaries are
read against, available wherever predictions are scored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from c2fsum.data.prepare import read_split, split_path
from c2fsum.metrics.output_stats import ReaderMeasures, document_frequencies

PER_SUMMARY = ("content_words", "novel_words", "novel_specific_words", "back_to_back", "unfinished")
"""The counts recorded with each prediction (``opening`` is left out: not a number)."""


def split_sources(data_dir: str | Path, split: str) -> dict[str, list[str]]:
    """Every document of a prepared split: id -> its article's tokens (all sentences)."""
    return {str(d["id"]): [t for s in d["src"] for t in s] for d in read_split(data_dir, split)}


def reader_measures(
    rows: Iterable[Mapping[str, Any]],
    data_dir: str | Path,
    split: str,
    *,
    sources: Mapping[str, list[str]] | None = None,
    where: str = "predictions",
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(split figures, one dict of counts per row) for rows ``{"id", "candidate"}`` summarizing
    documents of ``split`` (``sources``: :func:`split_sources`, read when not given).

    Raises ValueError naming ``where`` and the split file for an id the split does not hold.
    """
    if sources is None:
        sources = split_sources(data_dir, split)
    df, n_docs = document_frequencies(sources.values())
    meter = ReaderMeasures(df, n_docs)
    per_summary = []
    for row in rows:
        doc = sources.get(str(row["id"]))
        if doc is None:
            raise ValueError(f"{where}: id {row['id']!r} is not a document of {split_path(data_dir, split)}")
        figures = meter.add(row["candidate"], doc)
        per_summary.append({k: figures[k] for k in PER_SUMMARY})
    return {**meter.summary(), "specific_df_from": f"{split} split"}, per_summary
