#!/usr/bin/env python3
"""What a reader meets in any system's summaries of a prepared split (issue 31, item 5)::

    PYTHONPATH=src .venv/bin/python bench/reader_measures.py EVAL_DIR|predictions.jsonl [...] \\
        --data DATA_DIR --split test [--json]

Each input is an ``evaluate`` or ``baseline`` output folder (or its ``predictions.jsonl``, lines
``{"id", "candidate"}``) of documents of ``--split``. One row per input: the share of the
summaries' content words their paper never uses (all, and the specific ones: in fewer than 10% of
the split's documents), the summaries holding such a specific word, the most common four-token
opening and its share, back-to-back repeats (in all, and the share of summaries with one), the
share of summaries that stop mid-sentence, and the mean summary length; then the most frequent
novel specific words of each. Definitions: :mod:`c2fsum.metrics.output_stats`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from c2fsum.evaluation.reader import reader_measures, split_sources
from c2fsum.reports.tables import format_table

COLUMNS = (
    ("system", "system", "{}"),
    ("n", "n_docs", "{}"),
    ("words", "avg_words", "{:.1f}"),
    ("novel %", "novel_words", "{:.2f}"),
    ("novel specific %", "novel_specific_words", "{:.2f}"),
    ("with novel specific %", "summaries_with_novel_specific", "{:.1f}"),
    ("top opening %", "top_opening_share", "{:.1f}"),
    ("back-to-back", "back_to_back_repeats", "{}"),
    ("with back-to-back %", "summaries_with_back_to_back", "{:.1f}"),
    ("unfinished %", "unfinished", "{:.1f}"),
)


def read_predictions(path: Path) -> list[dict]:
    """The rows of a predictions file (or of ``DIR/predictions.jsonl``), each with an id and a candidate."""
    if path.is_dir():
        path = path / "predictions.jsonl"
    if not path.is_file():
        raise SystemExit(f"{path}: no such predictions file")
    rows = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        if not isinstance(row, dict) or "id" not in row or not isinstance(row.get("candidate"), str):
            raise SystemExit(f"{path}:{lineno}: expected an object with 'id' and a 'candidate' string")
        rows.append(row)
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("predictions", nargs="+", type=Path, help="evaluate/baseline folders or predictions.jsonl files")
    p.add_argument("--data", required=True, help="the prepared folder the summaries were made from")
    p.add_argument("--split", default="test", help="the split they summarize (test)")
    p.add_argument("--json", action="store_true", help="print one JSON object per input instead of a table")
    a = p.parse_args()
    sources = split_sources(a.data, a.split)  # read once for every input
    results = []
    for path in a.predictions:
        rows = read_predictions(path)
        figures, _ = reader_measures(rows, a.data, a.split, sources=sources, where=str(path))
        name = path.parent.name if path.is_file() else path.name
        figures.update(
            system=name,
            n_docs=len(rows),
            avg_words=sum(len(r["candidate"].split()) for r in rows) / max(len(rows), 1),
        )
        results.append(figures)
    if a.json:
        for r in results:
            print(json.dumps(r, ensure_ascii=False))
        return
    print(format_table(results, COLUMNS))
    print(f"specific: in fewer than 10% of the {results[0]['specific_df_docs']} documents of {a.data} {a.split}")
    for r in results:
        print(f"{r['system']}: opening {r['top_opening']!r}; novel specific words: {r['top_novel_specific'] or '-'}")


if __name__ == "__main__":
    main()
