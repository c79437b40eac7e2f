#!/usr/bin/env python3
"""Experiment: MODEL 3 reading only the chunks that hold the sentences ILP picks.

An experiment, not a feature (docs/results.md, "Where it reads is not what is missing"). Runs
``c2fsum evaluate`` with every batch's words masked outside the chunks that hold the sentences the
ILP baseline (:mod:`c2fsum.baselines.ilp`, budget B words) picks from each document, and the
document's last chunk (which starts the decoder). A MODEL 3 can then choose only among those
chunks; its words outside them are neither read nor copied. Prints the share of chunks allowed.

    PYTHONPATH=src .venv/bin/python bench/guided_reading.py 250 OUT \\
        --model src/c2fsum/pretrained/pubmed-model3 --data /work/data/pubmed-eval --split val --limit 30
"""

from __future__ import annotations

import sys

import c2fsum.decoding.documents as documents
from c2fsum.baselines.ilp import build_problem, solve

_collate = documents.collate
allowed_shares: list[float] = []


def sentences_of(words: list[str]) -> tuple[list[list[str]], list[int]]:
    """The grid's words cut after each ``</s>``, and the flat index where each sentence starts."""
    sentences, starts, current, start = [], [], [], 0
    for i, w in enumerate(words):
        current.append(w)
        if w == "</s>":
            sentences.append(current)
            starts.append(start)
            current, start = [], i + 1
    if current:
        sentences.append(current)
        starts.append(start)
    return sentences, starts


def guided_collate(examples, *, chunks, chunk_len, budget: int, **kw):
    """:func:`c2fsum.data.batching.collate`, then the words of every chunk ILP did not choose masked."""
    batch = _collate(examples, chunks=chunks, chunk_len=chunk_len, **kw)
    for b, e in enumerate(examples):
        sentences, starts = sentences_of(e.words)
        allowed = {(len(e.words) - 1) // chunk_len}  # the last chunk: the decoder starts from it
        for j in solve(build_problem(sentences, budget)):
            first, last = starts[j], starts[j] + len(sentences[j]) - 1
            allowed.update(range(first // chunk_len, last // chunk_len + 1))
        n_chunks = (len(e.words) - 1) // chunk_len + 1
        for m in range(batch.src_mask.size(1)):
            if m not in allowed:
                batch.src_mask[b, m] = False
        allowed_shares.append(len(allowed) / n_chunks)
    return batch


def main() -> None:
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    budget, out = int(sys.argv[1]), sys.argv[2]
    documents.collate = lambda examples, **kw: guided_collate(examples, budget=budget, **kw)
    from c2fsum.cli.main import main as cli

    try:
        cli(["-q", "evaluate", "--out", out, *sys.argv[3:]])
    finally:
        share = sum(allowed_shares) / max(len(allowed_shares), 1)
        print(f"chunks allowed: {share:.3f} of each document on average", file=sys.stderr)


if __name__ == "__main__":
    main()
