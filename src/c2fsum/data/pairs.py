"""Sentence pairs for the rewriter: a prepared data directory of (source sentence -> abstract sentence).

Each abstract sentence (a ``refs`` entry of a prepared document) is aligned with the document
sentence of highest ROUGE-L recall (:func:`c2fsum.data.align.align`, Chen & Bansal 2018); the
pair is kept when that recall is at least ``min_recall``. A kept pair is written as a prepared
record of its own, in the format :mod:`c2fsum.data.prepare` writes, so training, evaluation and
rendering read it as they read a document::

    {"id":      "<doc id>#<t>"                     t: the abstract sentence's index
     "src":     [[tok, ..., "</s>"]]               the one source sentence
     "tgt":     [tok, ...]                         the abstract sentence
     "refs":    [[tok, ...]]                       the same sentence, the reference
     "surface": {"0": "Brisbane", ...}             the source's spellings, renumbered from 0
     "pair":    {"doc": id, "source": i, "target": t, "recall": r}}

``pairs(data_dir, out_dir)`` writes ``{split}.jsonl`` for each split present, ``vocab.txt``
(the documents' vocabulary, copied: the rewriter and the selector that picks its sentences then
share one id space, and a pair's words are the documents' words) and ``stats.json`` (counts, the
recall distribution before the threshold, source and target lengths). A line that is not a
prepared record is skipped, logged with its file and line, and counted; the rest goes on.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from c2fsum.data.align import align
from c2fsum.data.prepare import check_prepared
from c2fsum.data.readers import SPLITS, DataError
from c2fsum.data.vocab import EOS
from c2fsum.errors import InputError
from c2fsum.utils.io import atomic_write_text
from c2fsum.utils.parallel import chunked, ordered_map, split_pool

log = logging.getLogger(__name__)

PAIRS_VERSION = 1
RECALL_BINS = 10
"""The recall histogram's bins: [0, 0.1), ..., [0.9, 1.0]."""
MIN_RECALL = 0.5
"""Default threshold on a pair's ROUGE-L recall. On the 19,998 SumPubMed training papers of
/work/data/pubmed20k (182,856 abstract sentences) the best recall's quartiles are 0.31 / 0.40 /
0.54; read beside their sources, pairs below 0.5 mostly state what their source sentence does not
(a rewriter trained on them learns to invent), pairs at 0.5 or more are compressions and
paraphrases of it. 32.3% of abstract sentences are kept: 59,120 training pairs."""
LONG_SOURCE = 80
"""Source sentences longer than this many words are counted in the stats (a rewriter's grid of
80 words cuts them)."""


def sentence_surface(surface: dict[str, str], sentences: Sequence[Sequence[str]], index: int) -> dict[str, str]:
    """The spellings of sentence ``index`` of ``sentences``, renumbered from its first token.

    ``surface`` maps flat token indices over all sentences (``</s>`` counted, keys as strings,
    :mod:`c2fsum.data.surface`) to spellings; the result holds the entries inside sentence
    ``index``, keyed from 0.
    """
    start = sum(len(s) for s in sentences[:index])
    end = start + len(sentences[index])
    out = {}
    for key, spelling in surface.items():
        k = int(key)
        if start <= k < end:
            out[str(k - start)] = spelling
    return out


def document_pairs(doc: dict[str, Any], *, min_recall: float) -> tuple[list[dict[str, Any]], list[float]]:
    """The kept pair records of one prepared document, and the recall of every abstract sentence.

    Every ``refs`` sentence is aligned (``distinct``: a source sentence serves one abstract
    sentence); a sentence that shares no word with the document has recall 0 and no pair.
    """
    src, refs = doc["src"], doc["refs"]
    alignments = align(src, refs)
    surface = doc.get("surface") or {}
    kept = []
    for a in alignments:
        if a.source < 0 or a.recall < min_recall:
            continue
        sentence = list(src[a.source])
        if sentence[-1] != EOS:
            sentence.append(EOS)
        kept.append(
            {
                "id": f"{doc['id']}#{a.target}",
                "src": [sentence],
                "tgt": list(refs[a.target]),
                "refs": [list(refs[a.target])],
                "surface": sentence_surface(surface, src, a.source),
                "pair": {"doc": doc["id"], "source": a.source, "target": a.target, "recall": round(a.recall, 4)},
            }
        )
    return kept, [a.recall for a in alignments]


@dataclass
class _Tally:
    documents: int = 0
    sentences: int = 0
    unaligned: int = 0
    pairs: int = 0
    src_words: int = 0
    tgt_words: int = 0
    long_sources: int = 0
    verbatim: int = 0
    histogram: list[int] = field(default_factory=lambda: [0] * RECALL_BINS)
    kept_histogram: list[int] = field(default_factory=lambda: [0] * RECALL_BINS)
    recalls: list[float] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)

    def add(self, records: list[dict[str, Any]], recalls: list[float]) -> None:
        self.documents += 1
        self.sentences += len(recalls)
        self.unaligned += sum(1 for r in recalls if r == 0)
        for r in recalls:
            self.histogram[_bin(r)] += 1
        self.recalls.extend(recalls)
        for rec in records:
            self.pairs += 1
            n_src = sum(1 for t in rec["src"][0] if t != EOS)
            self.src_words += n_src
            self.tgt_words += len(rec["tgt"])
            self.long_sources += n_src > LONG_SOURCE
            self.verbatim += [t for t in rec["src"][0] if t != EOS] == rec["tgt"]
            self.kept_histogram[_bin(rec["pair"]["recall"])] += 1

    def as_dict(self) -> dict[str, Any]:
        def avg(total: float, count: int) -> float:
            return round(total / count, 2) if count else 0.0

        return {
            "documents": self.documents,
            "abstract_sentences": self.sentences,
            "unaligned": self.unaligned,
            "pairs": self.pairs,
            "kept_share": avg(100 * self.pairs, self.sentences),
            "avg_src_words": avg(self.src_words, self.pairs),
            "avg_tgt_words": avg(self.tgt_words, self.pairs),
            "compression": round(self.tgt_words / self.src_words, 3) if self.src_words else 0.0,
            f"src_longer_than_{LONG_SOURCE}": self.long_sources,
            "verbatim_pairs": self.verbatim,
            "recall_histogram": self.histogram,
            "kept_recall_histogram": self.kept_histogram,
            "recall_quantiles": _quantiles(self.recalls),
            "skipped": dict(sorted(self.skipped.items())),
        }


def _bin(recall: float) -> int:
    return min(int(recall * RECALL_BINS), RECALL_BINS - 1)


def _quantiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    s = sorted(values)
    return {f"p{q}": round(s[min(len(s) - 1, int(q / 100 * len(s)))], 4) for q in (10, 25, 50, 75, 90)}


def _pairs_of_lines(task: tuple[list[tuple[int, bytes]], float]) -> list[tuple]:
    """Worker entry point: ``(line number, raw line)`` -> ``("ok", json lines, recalls)`` or
    ``("skipped", line number, reason, detail)``; never raises for one bad line."""
    lines, min_recall = task
    out: list[tuple] = []
    for lineno, raw in lines:
        try:
            doc = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            out.append(("skipped", lineno, "not_json", f"not a UTF-8 JSON line ({e})"))
            continue
        problem = check_prepared(doc)
        if problem:
            out.append(("skipped", lineno, "bad_record", problem))
            continue
        records, recalls = document_pairs(doc, min_recall=min_recall)
        text = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in records]
        out.append(("ok", text, records, recalls))
    return out


def _numbered_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, start=1):
            if raw.strip():
                yield lineno, raw


def pairs(
    data_dir: str | Path,
    out_dir: str | Path,
    *,
    min_recall: float,
    workers: int = 1,
    progress: bool = True,
    chunk_size: int = 16,
) -> dict[str, Any]:
    """Write the sentence pairs of the prepared ``data_dir`` into ``out_dir``; returns the stats.

    Raises:
        DataError: ``data_dir`` holds no split file or no vocab.txt.
        InputError: ``min_recall`` outside [0, 1] or ``workers`` < 1.
    """
    if not 0.0 <= min_recall <= 1.0:
        raise InputError(f"min_recall: expected a number in [0, 1], got {min_recall!r}")
    if workers < 1:
        raise InputError(f"workers: expected an int >= 1, got {workers!r}")
    src_dir, out = Path(data_dir), Path(out_dir)
    splits = [s for s in SPLITS if (src_dir / f"{s}.jsonl").is_file()]
    if not splits:
        raise DataError(f"{src_dir}: no train/val/test .jsonl file (run `c2fsum prepare` first)")
    if not (src_dir / "vocab.txt").is_file():
        raise DataError(f"{src_dir}/vocab.txt: not found (run `c2fsum prepare` first)")
    if src_dir.resolve() == out.resolve():
        raise InputError(f"--out {out}: the same directory as --data; pairs need a directory of their own")
    out.mkdir(parents=True, exist_ok=True)
    split_stats = {}
    with split_pool(workers, [out / f".{split}.jsonl.tmp" for split in splits]) as pool:
        for split in splits:
            split_stats[split] = _pairs_split(
                src_dir / f"{split}.jsonl",
                out / f".{split}.jsonl.tmp",
                pool=pool,
                min_recall=min_recall,
                progress=progress,
                chunk_size=chunk_size,
                max_pending=4 * workers,
            )
    for split in splits:
        os.replace(out / f".{split}.jsonl.tmp", out / f"{split}.jsonl")
    shutil.copyfile(src_dir / "vocab.txt", out / "vocab.txt")
    stats = {
        "version": PAIRS_VERSION,
        "from": str(src_dir),
        "min_recall": min_recall,
        "vocab": f"copied from {src_dir / 'vocab.txt'}",
        "splits": split_stats,
    }
    atomic_write_text(out / "stats.json", json.dumps(stats, indent=2, ensure_ascii=False) + "\n")
    return stats


def _pairs_split(
    path: Path, tmp: Path, *, pool, min_recall: float, progress: bool, chunk_size: int, max_pending: int
) -> dict[str, Any]:
    tally = _Tally()
    tasks = ((chunk, min_recall) for chunk in chunked(_numbered_lines(path), chunk_size))
    with (
        open(tmp, "w", encoding="utf-8", newline="\n") as f,
        tqdm(desc=f"pairs {path.stem}", unit="doc", file=sys.stderr, disable=not progress, dynamic_ncols=True) as bar,
    ):
        for results in ordered_map(_pairs_of_lines, tasks, pool, max_pending=max_pending):
            for result in results:
                if result[0] == "skipped":
                    _, lineno, reason, detail = result
                    log.warning("%s:%d: skipped (%s): %s", path, lineno, reason, detail)
                    tally.skipped[reason] += 1
                    continue
                _, lines, records, recalls = result
                for line in lines:
                    f.write(line + "\n")
                tally.add(records, recalls)
            bar.update(len(results))
    return tally.as_dict()


def format_pairs_stats(stats: dict[str, Any]) -> str:
    """The stats of :func:`pairs` as text: counts per split and the recall distribution."""
    lines = [f"pairs kept at ROUGE-L recall >= {stats['min_recall']}"]
    lines.append("split      docs  abstract sents  pairs (kept %)  src words  tgt words  compression  verbatim")
    for split, s in stats["splits"].items():
        lines.append(
            f"{split:<6} {s['documents']:>8,} {s['abstract_sentences']:>15,} {s['pairs']:>8,} ({s['kept_share']:>5.1f})"
            f" {s['avg_src_words']:>10.1f} {s['avg_tgt_words']:>10.1f} {s['compression']:>12.3f}"
            f" {s['verbatim_pairs']:>9,}"
        )
    for split, s in stats["splits"].items():
        total = max(1, s["abstract_sentences"])
        bins = "  ".join(
            f"{i / RECALL_BINS:.1f}-: {100 * n / total:4.1f}%" for i, n in enumerate(s["recall_histogram"])
        )
        lines.append(f"{split} recall of every abstract sentence: {bins}")
        lines.append(f"{split} recall quantiles: {s['recall_quantiles']}")
        if s["skipped"]:
            lines.append(f"{split} skipped lines: {s['skipped']}")
    return "\n".join(lines)
