"""Decoding sentence-level coarse-to-fine (:mod:`c2fsum.models.select_rewrite`): the selector picks
sentences of the paper until STOP or the word budget; with a rewriter (a pointer-generator run,
``model.rewriter``) each picked sentence is rewritten by beam search over a one-sentence grid, and a
rewritten sentence that repeats a trigram of the summary so far is left out; without one the
picked sentences are the summary (learned extraction).

The budget is the decoding options' ``max_len`` (words of the picked sentences, sentence marks not
counted, as ``c2fsum baseline ilp --budget`` counts them; 0: none) and ``min_len`` (STOP is not
allowed before the picks hold that many words, while a sentence still fits).

The summary's word attention ``(T, M, N)`` over the paper's grid points at the cell each word came
from: one-hot for a copied sentence, the rewriter's attention over its sentence placed on that
sentence's cells for a rewritten one. ``fine_fraction`` is the share of the paper's words read at
the word level: the picked sentences' words over all words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import torch
from torch import Tensor
from tqdm.auto import tqdm

from c2fsum.config import Config
from c2fsum.data.batching import Example, collate, encode_document
from c2fsum.data.grid import PAD, inference_grid
from c2fsum.data.vocab import BOS, EOS, Vocab
from c2fsum.decoding.documents import Decoded, decode_examples
from c2fsum.decoding.hypothesis import Hypothesis
from c2fsum.decoding.options import DecodeOptions
from c2fsum.models.checkpoint import load_checkpoint
from c2fsum.models.select_rewrite import SentenceSelector

MARKS = frozenset({BOS, EOS})
"""Sentence marks: in the paper's cells, never in a summary, never counted by the budget."""


def sentence_cells(words: Sequence[str]) -> list[list[int]]:
    """The grid cells of each sentence of an example (``Example.words``): cut after each ``</s>``,
    ``<pad>`` cells skipped, as :func:`c2fsum.models.select_rewrite.split_sentences` cuts them."""
    out: list[list[int]] = []
    cur: list[int] = []
    for i, w in enumerate(words):
        if w == PAD:
            continue
        cur.append(i)
        if w == EOS:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


@torch.no_grad()
def select_sentences(
    model: SentenceSelector,
    examples: list[Example],
    cfg: Config,
    *,
    max_words: int = 0,
    min_words: int = 0,
    batch_size: int = 10,
    device: torch.device | str = "cpu",
) -> list[list[int]]:
    """The selector's picks (sentence indices, in pick order) for each example, greedily, in batches
    of papers of similar length; in the input order."""
    model.eval()
    order = sorted(range(len(examples)), key=lambda i: len(examples[i].words))
    out: list[list[int]] = [[] for _ in examples]
    for start in range(0, len(examples), batch_size):
        where = order[start : start + batch_size]
        batch = collate([examples[i] for i in where], chunks=cfg.data.chunks, chunk_len=cfg.data.chunk_len).to(device)
        memory = model.read(model.sentences(batch.src, batch.src_mask))
        sel = model.greedy(memory, max_words=max_words, min_words=min_words)
        for i, picks in zip(where, sel.picks, strict=True):
            out[i] = picks
    return out


@dataclass
class Rewriter:
    """A pointer-generator run that rewrites one sentence at a time (the fine level)."""

    model: torch.nn.Module
    vocab: Vocab
    config: Config
    options: DecodeOptions
    device: str = "cpu"

    @classmethod
    def load(cls, path: str | Path, *, device: str = "cpu") -> Rewriter:
        """The best checkpoint of a run directory (or a checkpoint directory), decoding with its own
        options, trigrams blocked within a sentence."""
        loaded = load_checkpoint(path, device=device)
        options = DecodeOptions.from_config(loaded.config.decode).override(block_trigrams=True)
        config = replace(loaded.config, data=inference_grid(loaded.config.data))
        return cls(model=loaded.model, vocab=loaded.vocab, config=config, options=options, device=device)

    def rewrite(self, sentences: list[list[str]]) -> list[Decoded]:
        """Each sentence (tokens, no sentence marks) rewritten by beam search over its own grid."""
        docs = [{"id": str(k), "src": [s + [EOS]], "tgt": [], "refs": []} for k, s in enumerate(sentences)]
        examples = [encode_document(d, self.vocab, self.config.data) for d in docs]
        return decode_examples(self.model, self.vocab, examples, self.config, self.options, device=self.device)  # type: ignore[arg-type]


def _trigrams(words: Sequence[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + 3]) for i in range(len(words) - 2)}


def _ids(example: Example, vocab: Vocab, words: Sequence[str]) -> list[int]:
    """``words`` as ids in the example's extended vocabulary (a document-only word: its own id)."""
    oov = {w: len(vocab) + k for k, w in enumerate(example.oovs)}
    return [i if i != vocab.unk_id else oov.get(w, i) for w, i in zip(words, vocab.encode(words), strict=True)]


def compose(
    example: Example,
    picks: list[int],
    vocab: Vocab,
    grid_shape: tuple[int, int],
    rewritten: list[Decoded] | None = None,
) -> Decoded:
    """One paper's summary from its picks: the picked sentences (copied), or their rewrites where
    ``rewritten`` holds them (one per pick), a rewrite that repeats a trigram of the summary so far
    left out. ``grid_shape``: the paper's ``(M, N)`` in the batch it was read in."""
    M, N = grid_shape
    cells = sentence_cells(example.words)
    words: list[str] = []
    rows: list[Tensor] = []
    seen: set[tuple[str, ...]] = set()
    for k, j in enumerate(picks):
        own = [c for c in cells[j] if example.words[c] not in MARKS]
        if rewritten is None:
            new = [example.words[c] for c in own]
            attn = torch.zeros(len(new), M * N)
            attn[torch.arange(len(new)), torch.tensor(own, dtype=torch.long)] = 1.0
        else:
            d = rewritten[k]
            new = list(d.words)
            if not new or _trigrams(new) & seen:
                continue
            src = d.hypothesis.attn.flatten(1)[: len(new), : len(cells[j])]  # (T_j, cells of the sentence)
            attn = torch.zeros(len(new), M * N)
            attn[:, torch.tensor(cells[j], dtype=torch.long)] = src
        seen |= _trigrams(new)
        words.extend(new)
        rows.append(attn)
    attention = torch.cat(rows, 0).view(-1, M, N) if rows else torch.zeros(0, M, N)
    hyp = Hypothesis(tokens=_ids(example, vocab, words), score=0.0, norm_score=0.0, attn=attention, eos=True)
    total = sum(1 for w in example.words if w != PAD and w not in MARKS)
    read = sum(1 for j in picks for c in cells[j] if example.words[c] not in MARKS)
    return Decoded(example=example, hypothesis=hyp, words=words, fine_fraction=read / max(total, 1), sentences=picks)


def decode_selected(
    model: SentenceSelector,
    vocab: Vocab,
    examples: list[Example],
    cfg: Config,
    options: DecodeOptions,
    *,
    rewriter: Rewriter | None = None,
    device: torch.device | str = "cpu",
    progress: bool = False,
) -> list[Decoded]:
    """Pick (:func:`select_sentences`, ``options.max_len`` / ``min_len`` words), then copy or rewrite
    (:func:`compose`); in the input order."""
    picks = select_sentences(
        model,
        examples,
        cfg,
        max_words=options.max_len,
        min_words=options.min_len,
        batch_size=options.batch_size,
        device=device,
    )
    out = []
    for ex, p in tqdm(list(zip(examples, picks, strict=True)), disable=not progress, desc="compose", unit="doc"):
        shape = (ex.n_chunks(cfg.data.chunk_len), cfg.data.chunk_len)
        rewritten = None
        if rewriter is not None and p:
            cells = sentence_cells(ex.words)
            rewritten = rewriter.rewrite([[ex.words[c] for c in cells[j] if ex.words[c] not in MARKS] for j in p])
        out.append(compose(ex, p, vocab, shape, rewritten))
    return out
