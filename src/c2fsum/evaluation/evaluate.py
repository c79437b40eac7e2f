"""Evaluate a trained model on a prepared split: perplexity, decoding, ROUGE.

Writes ``predictions.jsonl`` (``{"id", "candidate", "text", "references"}``; ``text`` is the summary a
person reads, :func:`c2fsum.decoding.render.render`, never scored; candidate sentences on
separate lines) and ``metrics.json`` (``ppl``, ``rouge1``, ``rouge2``, ``rougeL`` x100 with
the paper's max-over-highlights protocol, the same with ``_concat``, ``rouge_clean`` and
``rouge_official`` (how ROUGE was computed), ``fine_fraction`` (mean share of a document's
words, of the grid the model read, that went through the word-level encoder: 1 but for a lazy
MODEL 3), ``seconds_per_doc`` (decoding wall time per document: batching, encoding, search),
``words_read`` (mean words of the grid), what a reader meets (``novel_words``,
``novel_specific_words``, ``top_opening_share``, ``back_to_back_repeats``, ``unfinished`` ...:
:mod:`c2fsum.evaluation.reader`) and every decoding option, by name). Each prediction also records
its ``fine_fraction``, its chunk-attention ``entropy`` (mean over its words), its reader counts
(``content_words``, ``novel_words``, ``novel_specific_words``, ``back_to_back``, ``unfinished``) and,
for hierarchical models, the chunk read at each step. ROUGE scores exactly the strings written to
``predictions.jsonl``, as ROUGE-1.5.5 would. ``attention.jsonl`` holds the chunk attention of the
first few documents (:func:`c2fsum.pipeline.chunk_attention`), which the heatmaps of reports are
drawn from.

Documents go through the one inference path, :class:`c2fsum.pipeline.Pipeline`, as they do for
``summarize``, ``plot attention`` and the server.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import torch

from c2fsum.config import Config
from c2fsum.data.batching import Example
from c2fsum.data.prepare import read_split
from c2fsum.data.sentences import sentence_cells
from c2fsum.decoding.documents import Decoded
from c2fsum.decoding.options import DecodeOptions
from c2fsum.evaluation.perplexity import perplexity
from c2fsum.evaluation.reader import reader_measures
from c2fsum.metrics.entropy import EntropyMeter
from c2fsum.metrics.output_stats import OutputStats
from c2fsum.metrics.rewriting import rewrite_measures
from c2fsum.metrics.rouge import rouge_settings, score_corpus
from c2fsum.pipeline import Pipeline, chunk_attention
from c2fsum.utils.io import write_json, write_jsonl

log = logging.getLogger(__name__)


def reference_texts(example: Example) -> list[str]:
    return [" ".join(r) for r in example.refs]


def reading(decoded: Decoded, cfg: Config) -> dict:
    """Where a hierarchical model read: ``n_chunks`` (the document's chunks in the grid) and
    ``chunks`` (the chunk of highest coarse attention at each output step, the one a hard model
    picked); empty for flat models."""
    coarse = decoded.hypothesis.coarse  # (T, M) or None
    if coarse is None:
        return {}
    return {"n_chunks": decoded.example.n_chunks(cfg.data.chunk_len), "chunks": coarse.argmax(-1).tolist()}


def rewriting_measures(decoded: list[Decoded]) -> dict[str, float]:
    """For summaries made of a paper's sentences (sentence selectors), over all their sentences: the
    share (%) that are verbatim copies of the sentence they were made of, that are rewritten (not one
    contiguous run of it, :mod:`c2fsum.metrics.rewriting`), and the compression (summary tokens over
    the tokens of those sentences); empty for models that write words."""
    pairs = []
    for d in decoded:
        if d.sentences is None or d.written is None:
            continue
        cells = sentence_cells(d.example.words)
        pairs += [([d.example.words[c] for c in cells[j]], w) for j, w in zip(d.sentences, d.written, strict=True)]
    if not pairs:
        return {}
    m = rewrite_measures(pairs)
    return {"verbatim_share": m.verbatim, "rewritten_share": m.rewritten, "compression": m.compression_total}


ATTENTION_DOCS = 3
"""Documents whose chunk attention ``evaluate`` keeps in ``attention.jsonl`` (the reports' heatmaps)."""


def evaluate(
    model_dir: str | Path,
    data_dir: str | Path,
    split: str,
    out_dir: str | Path,
    options: DecodeOptions | None = None,
    *,
    limit: int = 0,
    device: str = "cpu",
    official: bool = False,
    progress: bool = True,
    rouge_clean: str = "none",
    attention_docs: int = ATTENTION_DOCS,
    **overrides: Any,
) -> dict:
    """Score a run directory (its best checkpoint) on ``split``; returns the metrics dict.

    Decoding: ``options`` (default: the model's) with ``overrides`` by name, as
    :meth:`c2fsum.pipeline.Pipeline.summarize` takes them (``beam``, ``min_len``, ``max_words``,
    ``read_chunks``, ...); the options used are recorded in the metrics. Documents are read whole
    (as many chunks as they need) unless ``max_words`` cuts them. ROUGE scores exactly the
    candidate and reference strings written to ``predictions.jsonl``; ``rouge_clean``: see
    :func:`c2fsum.metrics.rouge.score_corpus`. The chunk attention of the first ``attention_docs``
    documents goes to ``attention.jsonl``.
    """
    settings = rouge_settings(official=official, clean=rouge_clean)
    pipe = Pipeline(model_dir, device=device)
    o = pipe.options(options, **overrides)
    cfg, vocab = pipe.reading(o.max_words), pipe.vocab
    examples = pipe.encode_documents(read_split(data_dir, split, limit=limit), max_words=o.max_words)
    ppl, _, _ = perplexity(pipe.model, examples, cfg, torch.device(device))
    started = time.perf_counter()
    decoded = pipe.decode(examples, o, progress=progress)
    seconds = time.perf_counter() - started
    candidates = [d.text for d in decoded]
    references = [reference_texts(d.example) for d in decoded]
    scores = score_corpus(candidates, references, official=official, clean=rouge_clean)
    reader, per_summary = reader_measures(
        ({"id": d.example.id, "candidate": c} for d, c in zip(decoded, candidates, strict=True)), data_dir, split
    )
    stats, entropy, doc_entropy = _output_measures(decoded, cfg.data.chunk_len, len(vocab))
    rewriting = rewriting_measures(decoded)
    metrics = {
        "ppl": ppl,
        **{k: v for k, v in scores.items() if k != "per_doc"},
        **settings,
        **stats.summary(),
        **reader,
        "entropy": entropy.mean,
        "entropy_uniform": entropy.uniform_mean,
        "fine_fraction": sum(d.fine_fraction for d in decoded) / len(decoded),
        **rewriting,
        "seconds_per_doc": seconds / len(decoded),
        "words_read": sum(len(d.example.words) for d in decoded) / len(decoded),
        "model": cfg.name or cfg.model.family,
        "split": split,
        "n_docs": len(decoded),
        **o.to_dict(),  # every decoding option, by the names of the config's decode section
        "checkpoint": str(pipe.path),
    }
    rows = _prediction_rows(decoded, candidates, references, doc_entropy, per_summary, cfg)
    _write_outputs(Path(out_dir), rows, decoded[:attention_docs], metrics, cfg)
    return metrics


def _output_measures(
    decoded: list[Decoded], chunk_len: int, vocab_size: int
) -> tuple[OutputStats, EntropyMeter, list[float]]:
    """The summaries' token statistics, their chunk-attention entropy over all words, and each
    summary's mean entropy per word (0 for an empty one)."""
    stats = OutputStats()
    entropy = EntropyMeter()
    doc_entropy = []
    for d in decoded:
        stats.add(d.hypothesis.tokens, vocab_size)
        n_chunks = d.example.n_chunks(chunk_len)
        words = entropy.add(d.hypothesis.attn, d.hypothesis.coarse, n_chunks=min(n_chunks, d.hypothesis.attn.size(1)))
        doc_entropy.append(float(words.mean()) if words.numel() else 0.0)
    return stats, entropy, doc_entropy


def _prediction_rows(
    decoded: list[Decoded],
    candidates: list[str],
    references: list[list[str]],
    doc_entropy: list[float],
    per_summary: list[dict[str, Any]],
    cfg: Config,
) -> Iterator[dict]:
    """The lines of ``predictions.jsonl``, one per document (module docstring)."""
    for d, c, r, e, counts in zip(decoded, candidates, references, doc_entropy, per_summary, strict=True):
        yield {
            "id": d.example.id,
            "candidate": c,
            "text": d.readable,
            "references": r,
            "score": d.hypothesis.score,
            "fine_fraction": d.fine_fraction,
            "entropy": e,
            **reading(d, cfg),
            **counts,
        }


def _write_outputs(out: Path, rows: Iterable[dict], shown: list[Decoded], metrics: dict, cfg: Config) -> None:
    """Write ``predictions.jsonl`` (``rows``), ``attention.jsonl`` (the chunk attention of the
    ``shown`` documents) and ``metrics.json`` into ``out`` (created if needed)."""
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "predictions.jsonl", rows)
    name = cfg.name or cfg.model.family
    write_jsonl(out / "attention.jsonl", (chunk_attention(d, cfg.data.chunk_len, name) for d in shown))
    write_json(out / "metrics.json", metrics)
