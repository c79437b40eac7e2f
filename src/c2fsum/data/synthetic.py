"""A synthetic sanity task for the coarse-to-fine models (as the Annotated Transformer's copy task).

A document is M chunks of N words laid out row by row (``data.chunking=fixed``, ``data.chunks=M``,
``data.chunk_len=N``). Each chunk opens with a marker: :data:`CUE` on exactly one chunk (chosen
uniformly), :data:`PLAIN` on the others; the other N - 1 words are content words. The summary is
the cued chunk's content words, in order::

    chunk 0  [ plain w3  w7  w1 ]
    chunk 1  [ cue   w5  zqxv w0 ]      target: w5 zqxv w0
    chunk 2  [ plain w2  w2  w6 ]

So the summary depends on one chunk, which the chunk encoder can find from its first word: MODEL 3
(hard attention, REINFORCE) must learn to pick it at every step, MODEL 2 to put its coarse mass
on it. Content words are drawn from a small in-vocabulary set, or, with probability ``oov_rate``,
are fresh random letter strings that are never in ``vocab.txt``: only a pointer model can write
them, by copying them through the extended vocabulary.

:func:`write_sanity_data` writes a prepared data folder (``vocab.txt``, ``{train,val,test}.jsonl``
in the layout of :mod:`c2fsum.data.prepare`) that ``c2fsum train`` reads; each line also holds
``cue``, the index of the cued chunk, for checking what the model attends to.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

from c2fsum.data.vocab import SPECIALS, Vocab

CUE = "cue"
PLAIN = "plain"

SPLITS = ("train", "val", "test")


def content_words(n: int) -> list[str]:
    """The in-vocabulary content words ``w0 .. w{n-1}``."""
    return [f"w{i}" for i in range(n)]


def oov_word(rng: random.Random) -> str:
    """A fresh out-of-vocabulary word: 'q' and 6 random letters (no in-vocabulary word has them)."""
    return "q" + "".join(rng.choice(string.ascii_lowercase) for _ in range(6))


def sanity_document(
    rng: random.Random, doc_id: str, *, chunks: int, chunk_len: int, n_content: int, oov_rate: float
) -> dict:
    """One document ``{"id", "src", "tgt", "refs", "cue"}`` (``src``: one sentence of M*N words)."""
    if chunks < 1 or chunk_len < 2:
        raise ValueError(f"need at least 1 chunk of at least 2 words, got {chunks} x {chunk_len}")
    if not 0.0 <= oov_rate <= 1.0:
        raise ValueError(f"oov_rate: expected a probability, got {oov_rate}")
    vocab_words = content_words(n_content)
    cue = rng.randrange(chunks)
    words: list[str] = []
    target: list[str] = []
    for m in range(chunks):
        body = [oov_word(rng) if rng.random() < oov_rate else rng.choice(vocab_words) for _ in range(chunk_len - 1)]
        words += [CUE if m == cue else PLAIN, *body]
        if m == cue:
            target = body
    return {"id": doc_id, "src": [words], "tgt": target, "refs": [target], "cue": cue}


def write_sanity_data(
    out_dir: str | Path,
    *,
    chunks: int = 3,
    chunk_len: int = 4,
    n_content: int = 8,
    oov_rate: float = 0.25,
    sizes: tuple[int, int, int] = (1000, 50, 50),
    seed: int = 0,
) -> Path:
    """Write the sanity task as a prepared data folder; ``sizes``: train, val, test documents.

    The vocabulary holds the specials, the two markers and the ``n_content`` content words (each
    with a count of 1, so ``data.vocab_size`` never cuts them): every OOV word maps to ``<unk>``.
    """
    rng = random.Random(seed)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    words = [CUE, PLAIN, *content_words(n_content)]
    Vocab([*SPECIALS, *words], [0] * len(SPECIALS) + [1] * len(words)).save(out / "vocab.txt")
    for split, n in zip(SPLITS, sizes, strict=True):
        with open(out / f"{split}.jsonl", "w", encoding="utf-8") as f:
            for i in range(n):
                doc = sanity_document(
                    rng, f"{split}-{i}", chunks=chunks, chunk_len=chunk_len, n_content=n_content, oov_rate=oov_rate
                )
                f.write(json.dumps(doc) + "\n")
    return out
