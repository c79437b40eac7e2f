"""Build a prepared data directory from CNN/DailyMail as users have it.

``prepare(inputs, output_dir)`` reads the inputs (see :mod:`c2fsum.data.readers`), tokenizes
every document (:mod:`c2fsum.data.tokenize`) on ``workers`` processes and writes::

    output_dir/
      train.jsonl  val.jsonl  test.jsonl   one document per line (only the splits present):
                                           {"id": str,
                                            "src":  [[tok, ..., "</s>"], ...]  article sentences,
                                            "tgt":  [tok, ...]                 target (no </s>),
                                            "refs": [[tok, ...], ...],         every highlight
                                            "surface": {"17": "Brisbane", ...},  the article's own
                                                spelling of the src tokens that preprocessing lowercased or
                                                masked (flat index, </s> counted; data/surface.py)
                                            "sections": [["RESULTS", 12], ...]}  headings, each with
                                                the index of the first src sentence under it (only
                                                when the article has headings)
      vocab.txt                            the vocabulary of the train split (see vocab.py)
      stats.json                           thesis Table 5.1 figures, dropped and skipped counts, and
                                           the non-running text left out of the articles, by kind

The target is the first highlight (``all_highlights=True``: all highlights, concatenated);
``refs`` keeps every highlight for evaluation. Documents whose article has no tokens are
dropped and counted; bad input records are skipped, logged with file and line, and counted.
Headings are kept as ``sections``, never inside a sentence; supplementary-file captions, table
footnotes and rows, licence lines and bare URLs are left out of ``src`` and counted by kind
(``non_running`` in stats.json; :mod:`c2fsum.data.layout`).
Output order is input order, whatever the number of workers.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import sys
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from c2fsum.data.layout import NON_RUNNING
from c2fsum.data.readers import (
    SPLITS,
    DataError,
    RawDocument,
    SkipLog,
    Source,
    UrlLists,
    find_sources,
    hf_sources,
)
from c2fsum.data.residue import without_licence
from c2fsum.data.surface import parse_surface
from c2fsum.data.tokenize import preprocess_document, preprocess_highlights
from c2fsum.data.vocab import EOS, SPECIALS, Vocab
from c2fsum.errors import InputError
from c2fsum.utils.io import atomic_write_text
from c2fsum.utils.parallel import chunked, ordered_map, split_pool

log = logging.getLogger(__name__)

STATS_VERSION = 1
_GENERIC_HF_BUILDERS = ("json", "csv", "parquet")


# ------------------------------------------------------------------------- one document
def process_document(doc: RawDocument, *, all_highlights: bool = False) -> dict[str, Any] | tuple[str, str]:
    """The prepared record of ``doc``, or ``(reason, detail)`` when it must be dropped.

    Reasons: ``empty_article`` (no article tokens), ``empty_highlights`` (no highlight tokens).
    The record's ``non_running`` (the counts of what the article left out, by kind) is taken off
    by the caller before it is written.
    """
    article = preprocess_document(doc.article)
    src = article.sentences
    if not src:
        return ("empty_article", "the article has no tokens")
    refs = preprocess_highlights(without_licence(doc.highlights))  # no licence lines in targets
    if not refs:
        return ("empty_highlights", "the highlights have no tokens")
    tgt = [tok for ref in refs for tok in ref] if all_highlights else refs[0]
    surface = {str(k): v for k, v in article.surface().items()}
    rec: dict[str, Any] = {"id": doc.id, "src": src, "tgt": tgt, "refs": refs, "surface": surface}
    if article.sections:  # a text without headings (every news article) is written as before issue 36
        rec["sections"] = [[title, first] for title, first in article.sections]
    rec["non_running"] = dict(article.dropped)
    return rec


@dataclass
class _Chunk:
    """What a worker sends back for a chunk of documents (in input order)."""

    results: list[tuple] = field(default_factory=list)
    """``("ok", json_line, words, sentences, tgt_words, refs, id, non_running, sections)`` or ``(status, reason,
    where, detail)`` with status ``dropped`` or ``skipped``."""
    counts: Counter | None = None


def _process_chunk(task: tuple[list[RawDocument], bool, bool]) -> _Chunk:
    """Worker entry point: tokenize a chunk of documents; never raises for one bad document."""
    docs, all_highlights, count_words = task
    out = _Chunk(counts=Counter() if count_words else None)
    for doc in docs:
        try:
            rec = process_document(doc, all_highlights=all_highlights)
        except Exception as e:  # a tokenizer failure on one document must not stop the run
            out.results.append(("skipped", "tokenizer_error", doc.where, f"{type(e).__name__}: {e}"))
            continue
        if isinstance(rec, tuple):
            status = "dropped" if rec[0] == "empty_article" else "skipped"
            out.results.append((status, rec[0], doc.where, rec[1]))
            continue
        non_running = rec.pop("non_running")
        n_sents = len(rec["src"])
        n_words = sum(len(s) for s in rec["src"]) - sum(1 for s in rec["src"] if s[-1] == EOS)
        line = json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
        try:
            line.encode("utf-8")
        except UnicodeEncodeError as e:  # a lone surrogate, e.g. from a JSON "\udc80" escape
            out.results.append(("skipped", "not_utf8", doc.where, f"unpaired surrogate {e.object[e.start]!r}"))
            continue
        out.results.append(
            ("ok", line, n_words, n_sents, len(rec["tgt"]), len(rec["refs"]), rec["id"])
            + (non_running, len(rec.get("sections", [])))
        )
        if out.counts is not None:
            for sentence in rec["src"]:
                out.counts.update(sentence)
            out.counts.update(rec["tgt"])
    return out


# ----------------------------------------------------------------------------------- stats
@dataclass
class _SplitTally:
    documents: int = 0
    words: int = 0
    sentences: int = 0
    summary_words: int = 0
    highlights: int = 0
    dropped: Counter = field(default_factory=Counter)
    duplicate_ids: int = 0
    non_running: Counter = field(default_factory=Counter)
    sections: int = 0

    def as_dict(self, skips: SkipLog, sources: Sequence[Source]) -> dict[str, Any]:
        n = self.documents

        def avg(total: int, count: int) -> float:
            return round(total / count, 2) if count else 0.0

        return {
            "documents": n,
            "avg_words_per_doc": avg(self.words, n),
            "avg_sents_per_doc": avg(self.sentences, n),
            "avg_words_per_sent": avg(self.words, self.sentences),
            "avg_words_per_summary": avg(self.summary_words, n),
            "avg_highlights_per_doc": avg(self.highlights, n),
            "words": self.words,
            "sentences": self.sentences,
            "summary_words": self.summary_words,
            "dropped": dict(sorted(self.dropped.items())),
            "skipped": skips.as_dict(),
            "duplicate_ids": self.duplicate_ids,
            "sections": self.sections,
            "non_running": {k: self.non_running[k] for k in NON_RUNNING},
            "sources": [s.describe() for s in sources],
        }


# ---------------------------------------------------------------------------------- prepare
def prepare(
    inputs: str | Path | Sequence[str | Path] | None,
    output_dir: str | Path,
    *,
    vocab_size: int = 50_000,
    all_highlights: bool = False,
    workers: int = 2,
    progress: bool = True,
    url_lists: UrlLists | None = None,
    hf: str | None = None,
    story_split: str = "train",
    hf_config: str | None = None,
    hf_kwargs: Mapping[str, Any] | None = None,
    chunk_size: int = 8,
) -> dict[str, Any]:
    """Prepare ``output_dir`` from ``inputs``; returns the statistics written to stats.json.

    Args:
        inputs: a file or folder, or a list of them (see :func:`c2fsum.data.readers.find_sources`);
            with ``hf`` set to a hub name, None; with ``hf`` json/csv/parquet, the files to load.
        output_dir: created if needed; existing split files, vocab.txt and stats.json are replaced.
        vocab_size: number of ordinary words kept (plus 4 specials).
        all_highlights: target = all highlights concatenated instead of the first one.
        workers: processes tokenizing in parallel (1: in this process).
        progress: show a tqdm bar per split on stderr.
        url_lists: official url lists that split ``.story`` files (folder, split -> file, or files).
        hf: read through ``datasets.load_dataset`` (e.g. ``cnn_dailymail``; needs ``datasets``).
        story_split: the split of ``.story`` files when no url lists are given.
        hf_config: config name for ``hf`` (``3.0.0`` by default for cnn_dailymail).
        hf_kwargs: extra keyword arguments for ``load_dataset`` (e.g. ``cache_dir``).
        chunk_size: documents per task sent to a worker.

    Raises:
        DataError: no input found, no usable document at all, or an input of unknown split.
        ValueError: an argument out of range.
    """
    started = time.perf_counter()
    _check_int("vocab_size", vocab_size, 0)
    _check_int("workers", workers, 1)
    _check_int("chunk_size", chunk_size, 1)
    input_skips = SkipLog("inputs")
    sources = _resolve_sources(
        inputs,
        hf=hf,
        hf_config=hf_config,
        hf_kwargs=hf_kwargs,
        url_lists=url_lists,
        story_split=story_split,
        skips=input_skips,
    )
    where = _describe_inputs(inputs, hf)
    if not sources:
        raise DataError(f"{where}: no train/val/test input found")
    vocab_splits = _vocab_splits(sources)
    out = Path(output_dir)
    split_stats, counts = _prepare_splits(
        sources,
        out,
        vocab_splits,
        workers=workers,
        all_highlights=all_highlights,
        progress=progress,
        chunk_size=chunk_size,
    )
    _fail_if_empty(split_stats, out, where)
    _publish_splits(out, sources)
    stats: dict[str, Any] = {
        "version": STATS_VERSION,
        "inputs": where,
        "splits": split_stats,
        "vocab": _write_vocab(out, counts, vocab_size=vocab_size, built_from=vocab_splits),
        "skipped_inputs": input_skips.as_dict(),
        "settings": {"all_highlights": all_highlights, "vocab_size": vocab_size},
    }
    atomic_write_text(out / "stats.json", json.dumps(stats, indent=2, ensure_ascii=False) + "\n")
    took = time.perf_counter() - started
    log.info("prepared %s in %.1f s with %d worker(s):\n%s", out, took, workers, format_stats_table(stats))
    return stats


def _vocab_splits(sources: Mapping[str, Any]) -> list[str]:
    """The splits whose words make the vocabulary: train, or every split when there is no train."""
    if "train" in sources:
        return ["train"]
    vocab_splits = list(sources)
    log.warning("no train split among the inputs: the vocabulary is built from %s", ", ".join(vocab_splits))
    return vocab_splits


def _prepare_splits(
    sources: dict[str, list[Source]],
    out: Path,
    vocab_splits: list[str],
    *,
    workers: int,
    all_highlights: bool,
    progress: bool,
    chunk_size: int,
) -> tuple[dict[str, dict[str, Any]], Counter]:
    """Tokenize every split's documents on ``workers`` processes into its temporary file in
    ``out`` (created if needed; the directory's splits change only on success,
    :func:`_publish_splits`); returns each split's statistics and the word counts of the
    ``vocab_splits``."""
    out.mkdir(parents=True, exist_ok=True)
    counts: Counter = Counter()
    split_stats: dict[str, dict[str, Any]] = {}
    with split_pool(workers, [_tmp_path(out, split) for split in sources]) as pool:
        for split, split_sources in sources.items():
            split_stats[split] = _prepare_split(
                split,
                split_sources,
                out,
                pool=pool,
                all_highlights=all_highlights,
                counts=counts if split in vocab_splits else None,
                progress=progress,
                chunk_size=chunk_size,
                max_pending=4 * workers,
            )
    return split_stats, counts


def _fail_if_empty(split_stats: dict[str, dict[str, Any]], out: Path, where: str) -> None:
    """Raise :class:`DataError` (with the skipped and dropped counts, the temporary split files
    removed) when no split kept a single document."""
    if sum(s["documents"] for s in split_stats.values()) > 0:
        return
    for split in split_stats:
        _tmp_path(out, split).unlink(missing_ok=True)
    skipped: Counter = Counter()
    dropped: Counter = Counter()
    for s in split_stats.values():
        skipped.update(s["skipped"])
        dropped.update(s["dropped"])
    raise DataError(
        f"{where}: no usable document (skipped: {dict(skipped) or 'none'}, dropped: {dict(dropped) or 'none'})"
    )


def _publish_splits(out: Path, sources: Mapping[str, Any]) -> None:
    """Move each prepared split's temporary file to ``SPLIT.jsonl``; a split file left from an
    earlier run whose split has no input this time is removed."""
    for split in SPLITS:
        final = out / f"{split}.jsonl"
        if split in sources:
            os.replace(_tmp_path(out, split), final)
        elif final.exists():
            log.warning("%s: removed, left from an earlier run (no %s input this time)", final, split)
            final.unlink()


def _write_vocab(out: Path, counts: Counter, *, vocab_size: int, built_from: list[str]) -> dict[str, Any]:
    """Build the vocabulary from the word ``counts``, write ``vocab.txt`` and return its figures
    for stats.json (size, words, the share of word tokens it covers)."""
    vocab = Vocab.build(counts, vocab_size)
    vocab.save(out / "vocab.txt")
    ordinary = sum(c for w, c in counts.items() if w not in SPECIALS)
    covered = sum(c for w, c in zip(vocab.itos, vocab.counts, strict=True) if w not in SPECIALS)
    return {
        "size": len(vocab),
        "words": len(vocab) - len(SPECIALS),
        "max_words": vocab_size,
        "built_from": built_from,
        "word_types": sum(1 for w in counts if w not in SPECIALS),
        "token_coverage": round(covered / ordinary, 4) if ordinary else 0.0,
    }


def _tmp_path(out: Path, split: str) -> Path:
    return out / f".{split}.jsonl.tmp"


def _check_int(name: str, value: Any, minimum: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise InputError(f"{name}: expected an int >= {minimum}, got {value!r}")


def _describe_inputs(inputs: Any, hf: str | None) -> str:
    if hf is not None and not inputs:
        return f"hf:{hf}"
    if isinstance(inputs, (str, Path)):
        return str(inputs)
    return ", ".join(str(p) for p in inputs or [])


def _resolve_sources(inputs, *, hf, hf_config, hf_kwargs, url_lists, story_split, skips) -> dict[str, list[Source]]:
    if hf is None:
        if inputs is None or (not isinstance(inputs, (str, Path)) and len(inputs) == 0):
            raise DataError("no input paths given (and no hf dataset name)")
        return find_sources(inputs, url_lists=url_lists, story_split=story_split, skips=skips)
    if hf in _GENERIC_HF_BUILDERS:
        if not inputs:
            raise DataError(f"hf={hf!r} reads local files: give them as inputs")
        local = find_sources(inputs, skips=skips)
        data_files: dict[str, list[Path]] = {}
        for split, srcs in local.items():
            for s in srcs:
                if s.kind != "table":
                    raise DataError(f"hf={hf!r}: {s.describe()} are not {hf} files")
                data_files.setdefault(split, []).extend(s.paths)
        return hf_sources(hf, data_files=data_files, **dict(hf_kwargs or {}))
    if inputs:
        raise DataError(f"hf={hf!r} loads a hub dataset: give either input paths or hf, not both")
    return hf_sources(hf, config=hf_config, **dict(hf_kwargs or {}))


def _prepare_split(
    split: str,
    sources: list[Source],
    out: Path,
    *,
    pool,
    all_highlights: bool,
    counts: Counter | None,
    progress: bool,
    chunk_size: int,
    max_pending: int,
) -> dict[str, Any]:
    """Write ``out/.{split}.jsonl.tmp`` and return the split's statistics (the caller renames
    the file once every split succeeded; on an exception the file is removed)."""
    skips = SkipLog(split)
    tally = _SplitTally()
    seen_ids: set[str] = set()
    docs = itertools.chain.from_iterable(src.documents(skips) for src in sources)
    tasks = ((chunk, all_highlights, counts is not None) for chunk in chunked(docs, chunk_size))
    tmp = _tmp_path(out, split)
    log.info("preparing %s from %s", split, "; ".join(s.describe() for s in sources))
    split_started = time.perf_counter()
    try:
        with (
            open(tmp, "w", encoding="utf-8", newline="\n") as f,
            tqdm(desc=f"prepare {split}", unit="doc", file=sys.stderr, disable=not progress, dynamic_ncols=True) as bar,
        ):
            for chunk in ordered_map(_process_chunk, tasks, pool, max_pending=max_pending):
                for result in chunk.results:
                    if result[0] == "ok":
                        _, line, n_words, n_sents, n_tgt, n_refs, doc_id, non_running, n_sections = result
                        tally.non_running.update(non_running)
                        tally.sections += n_sections
                        f.write(line + "\n")
                        tally.documents += 1
                        tally.words += n_words
                        tally.sentences += n_sents
                        tally.summary_words += n_tgt
                        tally.highlights += n_refs
                        if doc_id in seen_ids:
                            tally.duplicate_ids += 1
                            log.warning("[%s] id %s appears more than once (kept)", split, doc_id)
                        seen_ids.add(doc_id)
                    elif result[0] == "dropped":
                        _, reason, where, detail = result
                        tally.dropped[reason] += 1
                        log.warning("[%s] %s: dropped (%s): %s", split, where, reason, detail)
                    else:
                        _, reason, where, detail = result
                        skips.skip(reason, where, detail)
                if counts is not None and chunk.counts:
                    counts.update(chunk.counts)
                bar.update(len(chunk.results))
                elapsed = time.perf_counter() - split_started
                if elapsed > 0:
                    bar.set_postfix_str(f"{tally.words / elapsed:,.0f} words/s", refresh=False)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    stats = tally.as_dict(skips, sources)
    if tally.documents == 0:
        log.warning("[%s] no usable document", split)
    if skips.total() or tally.dropped:
        log.warning(
            "[%s] %d documents written; dropped %s; skipped %s",
            split,
            tally.documents,
            dict(tally.dropped) or "none",
            skips.as_dict() or "none",
        )
    return stats


# --------------------------------------------------------------------------- stats table
def format_stats_table(stats: Mapping[str, Any]) -> str:
    """The statistics of :func:`prepare` as a text table (thesis Table 5.1 plus drop counts)."""
    header = [
        "split",
        "docs",
        "words/doc",
        "sents/doc",
        "words/sent",
        "words/summary",
        "highl./doc",
        "dropped",
        "skipped",
    ]
    rows = [header]
    notes = []
    for split, s in stats.get("splits", {}).items():
        dropped = sum(s.get("dropped", {}).values())
        skipped = sum(s.get("skipped", {}).values())
        rows.append(
            [
                split,
                f"{s['documents']:,}",
                f"{s['avg_words_per_doc']:.1f}",
                f"{s['avg_sents_per_doc']:.1f}",
                f"{s['avg_words_per_sent']:.1f}",
                f"{s['avg_words_per_summary']:.1f}",
                f"{s['avg_highlights_per_doc']:.2f}",
                f"{dropped:,}",
                f"{skipped:,}",
            ]
        )
        for kind in ("dropped", "skipped"):
            if s.get(kind):
                notes.append(f"{split} {kind}: " + ", ".join(f"{k}={v:,}" for k, v in s[kind].items()))
        left_out = s.get("non_running") or {}
        if any(left_out.values()) or s.get("sections"):
            notes.append(
                f"{split} articles: {s.get('sections', 0):,} headings kept as sections; left out of the sentences: "
                + ", ".join(f"{k}={v:,}" for k, v in left_out.items())
            )
    if stats.get("skipped_inputs"):
        notes.append("inputs skipped: " + ", ".join(f"{k}={v:,}" for k, v in stats["skipped_inputs"].items()))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        for r in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    v = stats.get("vocab")
    if v:
        lines.append(
            f"vocabulary: {v['size']:,} entries ({v['words']:,} words + {len(SPECIALS)} specials) "
            f"from {'+'.join(v['built_from'])}; {v['word_types']:,} word types, "
            f"{100 * v['token_coverage']:.1f}% of their tokens covered"
        )
    lines.extend(notes)
    lines.append("words = tokens other than </s>; summary = the training target")
    return "\n".join(lines)


# ---------------------------------------------------------------------- prepared files
def check_prepared(doc: Any) -> str | None:
    """What is wrong with a prepared record (a ``{split}.jsonl`` line read as JSON), or None."""
    if not isinstance(doc, dict):
        return f"expected a JSON object, got {type(doc).__name__}"
    for key in ("id", "src", "tgt", "refs"):
        if key not in doc:
            return f"missing field {key!r}"
    if not isinstance(doc["id"], str):
        return f"'id' must be a string, got {type(doc['id']).__name__}"
    src, tgt, refs = doc["src"], doc["tgt"], doc["refs"]
    if not isinstance(src, list) or not src:
        return "'src' must be a non-empty list of sentences"
    for i, sentence in enumerate(src):
        if not isinstance(sentence, list) or not sentence or not all(type(t) is str for t in sentence):
            return f"'src'[{i}] must be a non-empty list of strings"
    if not isinstance(tgt, list) or not all(type(t) is str for t in tgt):
        return "'tgt' must be a list of strings"
    if not isinstance(refs, list):
        return "'refs' must be a list of token lists"
    for i, ref in enumerate(refs):
        if not isinstance(ref, list) or not all(type(t) is str for t in ref):
            return f"'refs'[{i}] must be a list of strings"
    sections = doc.get("sections", [])  # optional: files prepared before issue 36 have none
    if not isinstance(sections, list) or not all(
        isinstance(x, list) and len(x) == 2 and isinstance(x[0], str) and type(x[1]) is int for x in sections
    ):
        return "'sections' must be a list of [heading, first sentence index] pairs"
    if "surface" in doc:  # optional: files prepared before it was kept have none
        try:
            parse_surface(doc["surface"], "'surface'")
        except ValueError as e:
            return str(e)
    return None


def read_prepared(path: str | Path) -> Iterator[dict[str, Any]]:
    """Documents of a prepared split file (``{split}.jsonl``), checked line by line.

    Raises :class:`DataError` naming the file and line for a line that is not valid JSON or
    lacks ``id``/``src``/``tgt``/``refs`` of the right types; blank lines are ignored.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: prepared split file not found (run `c2fsum prepare` first)")
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, start=1):
            if not raw.strip():
                continue
            try:
                doc = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError as e:
                raise DataError(f"{path}:{lineno}: not UTF-8 (byte {raw[e.start : e.start + 1]!r})") from None
            except json.JSONDecodeError as e:
                raise DataError(f"{path}:{lineno}: not valid JSON ({e.msg} at column {e.colno})") from None
            problem = check_prepared(doc)
            if problem:
                raise DataError(f"{path}:{lineno}: {problem}")
            yield doc


def split_path(data_dir: str | Path, split: str) -> Path:
    """``{data_dir}/{split}.jsonl``; FileNotFoundError naming it when it does not exist."""
    path = Path(data_dir) / f"{split}.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such split (run `c2fsum prepare` first)")
    return path


def read_split(data_dir: str | Path, split: str, *, limit: int = 0) -> list[dict[str, Any]]:
    """The first ``limit`` documents (0: all) of a prepared split, checked (:func:`read_prepared`).

    Raises FileNotFoundError for a missing split and ValueError for one without documents.
    """
    path = split_path(data_dir, split)
    docs = list(itertools.islice(read_prepared(path), limit or None))
    if not docs:
        raise InputError(f"{path}: no documents")
    return docs


def find_document(data_dir: str | Path, split: str, doc_id: str) -> dict[str, Any]:
    """Document ``doc_id`` of a prepared split; ValueError naming the split and a few ids when absent."""
    path = split_path(data_dir, split)
    seen: list[str] = []
    for doc in read_prepared(path):
        if str(doc.get("id")) == str(doc_id):
            return doc
        seen.append(str(doc.get("id")))
    hint = f"; first ids: {', '.join(seen[:3])}" if seen else ""
    raise InputError(f"{path}: no document with id {doc_id!r} ({len(seen)} documents read{hint})")
