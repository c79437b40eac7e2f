"""Decode prepared documents with a model: batches, greedy or beam search, words and text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from tqdm.auto import tqdm

from c2fsum.config import Config
from c2fsum.data.batching import Example, collate
from c2fsum.data.vocab import Vocab
from c2fsum.decoding.beam import beam_search
from c2fsum.decoding.greedy import greedy_decode
from c2fsum.decoding.hypothesis import Hypothesis, markup_ids
from c2fsum.decoding.options import DecodeOptions
from c2fsum.decoding.postprocess import ids_to_words, to_last_sentence_end, words_to_text
from c2fsum.decoding.render import render
from c2fsum.errors import InputError
from c2fsum.models.base import Reading, Summarizer


@dataclass
class Decoded:
    """One decoded document.

    ``fine_fraction``: share of the document's words (of the grid the model read) that went
    through the word-level encoder: below 1 only for a lazy MODEL 3, which encodes the chunks its
    hard attention picks. ``fine_chunks``: the indices of the chunks so encoded (by any
    hypothesis of the beam), None when all were. ``sentences``: the paper's sentences a sentence
    selector's summary was made of, in the summary's order (the paper's), else None; ``picked``:
    the same in the order the selector picked them (:mod:`c2fsum.decoding.selection`); ``written``:
    the summary sentence made of each of ``sentences`` (its tokens: copied or rewritten), else None."""

    example: Example
    hypothesis: Hypothesis
    words: list[str]
    fine_fraction: float = 1.0
    fine_chunks: list[int] | None = None
    sentences: list[int] | None = None
    written: list[list[str]] | None = None
    picked: list[int] | None = None

    @property
    def text(self) -> str:
        """The model's tokens, one sentence per line: what ROUGE scores (``candidate``)."""
        return words_to_text(self.words)

    @property
    def readable(self) -> str:
        """The summary as prose, spelled as the document spells it (:func:`c2fsum.decoding.render.render`)."""
        return render(
            self.words,
            source=self.example.words,
            surface=self.example.surface,
            attention=self.hypothesis.attn,
        )


@torch.no_grad()
def decode_examples(
    model: Summarizer,
    vocab: Vocab,
    examples: list[Example],
    cfg: Config,
    options: DecodeOptions | None = None,
    *,
    device: torch.device | str = "cpu",
    progress: bool = False,
    unit: str = "doc",
    desc: str = "decode",
) -> list[Decoded]:
    """Beam search (greedy when ``options.beam`` is 1) over ``examples``, in their order.

    No summary writes a word of web or licence markup (:func:`~c2fsum.decoding.hypothesis.markup_ids`).
    A summary that stops mid-sentence (cut by the length limit, or a ``</s>`` written inside a
    sentence) keeps its words up to its last sentence end
    (:func:`~c2fsum.decoding.postprocess.to_last_sentence_end`), as its readable text does: ROUGE
    and the reader measures score the sentences its reader reads.

    ``cfg``: the grid the examples were laid out on (``cfg.data``). ``options``: how to decode,
    made once by the caller (:class:`~c2fsum.decoding.options.DecodeOptions`; None: ``cfg.decode``'s).
    InputError for ``read_chunks`` above 1 or ``read_budget`` below 1 on a model without hard coarse
    attention (MODEL 3). ``progress``: a bar on stderr counting the examples as ``unit`` (a
    rewriter's examples are sentences), described as ``desc``.
    """
    o = DecodeOptions.from_config(cfg.decode) if options is None else options
    if o.read_chunks != 1 and not model.capabilities.hard:
        raise InputError(f"read_chunks={o.read_chunks}: chunks per step are chosen by MODEL 3's hard attention only")
    if o.read_budget != 1 and not model.capabilities.hard:
        raise InputError(f"read_budget={o.read_budget}: a reading budget needs MODEL 3's hard attention")
    reading = Reading(chunks=o.read_chunks, budget=o.read_budget)  # carried on each batch's memory
    never = markup_ids(vocab.itos)  # no URL, DOI or copyright mark is ever written
    model.eval()
    # batches of documents of similar length (unbounded grids pad every document to the longest
    # of its batch); the results go back in the input order
    order = sorted(range(len(examples)), key=lambda i: len(examples[i].words))
    out: list[Decoded | None] = [None] * len(examples)
    bar = tqdm(total=len(examples), disable=not progress, desc=desc, unit=unit, dynamic_ncols=True)
    for start in range(0, len(examples), o.batch_size):
        where = order[start : start + o.batch_size]
        chunk = [examples[i] for i in where]
        batch = collate(chunk, chunks=cfg.data.chunks, chunk_len=cfg.data.chunk_len).to(device)
        memory = model.encode(batch.src, batch.src_mask, batch.src_ext, batch.n_ext, reading)
        rules: dict[str, Any] = dict(
            max_len=o.max_len,
            min_len=o.min_len,
            block_trigrams=o.block_trigrams,
            block_repeats=o.block_repeats,
            never=never,
        )
        if o.beam <= 1:
            hyps = greedy_decode(model, memory, **rules)
        else:
            hyps = [h[0] for h in beam_search(model, memory, beam=o.beam, length_norm=o.length_norm, **rules)]
        lazy = memory.lazy
        fractions = lazy.fraction_per_document() if lazy is not None else [1.0] * len(chunk)
        encoded = lazy.encoded.tolist() if lazy is not None else [None] * len(chunk)  # (D, M) bool
        for i, ex, hyp, fraction, enc in zip(where, chunk, hyps, fractions, encoded, strict=True):
            words = ids_to_words(
                hyp.tokens, vocab.itos, ex.oovs, attn=hyp.attn, src_words=ex.words, replace_unk=o.replace_unk
            )
            words = to_last_sentence_end(words)  # ends where the reader's text ends
            fine = None if enc is None else [m for m, done in enumerate(enc) if done]
            out[i] = Decoded(example=ex, hypothesis=hyp, words=words, fine_fraction=fraction, fine_chunks=fine)
        bar.update(len(chunk))
    bar.close()
    return [d for d in out if d is not None]
