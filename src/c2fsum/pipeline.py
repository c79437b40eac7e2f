"""The Python entry point for users who embed c2fsum.

>>> import c2fsum
>>> model = c2fsum.load("cnndm-small")          # or a run directory, or a hub repo id "owner/name"
>>> out = model.summarize(["Text of a news article ..."], beam=5)
>>> out[0].text, out[0].tokens, out[0].attention.shape   # (T, M, N)
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path

import torch
from torch import Tensor

from c2fsum.data.batching import encode_example
from c2fsum.data.grid import inference_grid
from c2fsum.data.tokenize import preprocess_article
from c2fsum.decoding.documents import decode_examples
from c2fsum.training.checkpoint import load_checkpoint

log = logging.getLogger(__name__)


def leading_words(text: str, n: int) -> str:
    """``text`` up to the end of its ``n``-th whitespace-separated word (all of it if shorter).

    The model reads only the grid's first M x N tokens, and every word gives at least one token
    unless it is made only of characters the tokenizer drops; cutting a huge input here keeps the
    time and memory of :meth:`Pipeline.summarize` bounded (a 1,000,000-word line costs a scan).
    """
    if n < 1:
        return text
    parts = text.split(maxsplit=n)  # the first n words, then the rest from word n + 1 on
    if len(parts) < n:
        return text
    rest = parts[n] if len(parts) > n else ""
    return text[: len(text) - len(rest)].rstrip()


@dataclass
class Summary:
    """A generated summary with what the model attended to while writing it."""

    text: str
    """Sentences separated by newlines."""
    tokens: list[str]
    score: float
    """Sum of log-probabilities of the tokens (and the final ``</s>``)."""
    attention: Tensor
    """``(T, M, N)``: attention over the source grid for each output token (and ``</s>``, if produced)."""
    source: list[str]
    """The grid's words in reading order (``attention[t].flatten()[:len(source)]`` aligns with them)."""
    coarse: Tensor | None = None
    eos: bool = True
    """False when the summary was cut at the maximum length (then ``attention`` has no ``</s>`` row)."""

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "tokens": self.tokens,
            "score": self.score,
            "eos": self.eos,
            "source": self.source,
            "attention": self.attention.flatten(1)[:, : len(self.source)].tolist(),
        }


MAX_INPUT_WORDS = 100_000
"""Words of one input read by :meth:`Pipeline.summarize` when no ``max_words`` is given."""


class Pipeline:
    """A loaded model with its vocabulary, config and preprocessing."""

    def __init__(self, run_dir: str | Path, *, device: str = "cpu"):
        loaded = load_checkpoint(run_dir, device=device)
        self.model, self.config, self.vocab, self.path = loaded.model, loaded.config, loaded.vocab, loaded.path
        self.device = device

    def summarize(
        self,
        texts: list[str] | str,
        *,
        beam: int | None = None,
        block_trigrams: bool | None = None,
        replace_unk: bool | None = None,
        max_len: int | None = None,
        min_len: int | None = None,
        max_words: int | None = None,
    ) -> list[Summary]:
        """Summarize raw article texts (preprocessed exactly like the training data).

        Texts are read whole (the grid gets as many chunks as they need) unless ``max_words``
        cuts them to their first ``max_words`` words. Options left None take the model's decoding
        config; ``min_len`` then is the model's default minimum length, the 5th percentile of its
        training summaries' lengths (:mod:`c2fsum.decoding.lengths`), so even a barely trained model
        writes something; ``min_len=0`` allows the empty summary.
        """
        if isinstance(texts, str):
            texts = [texts]
        cfg = replace(self.config, data=inference_grid(self.config.data, max_words))
        examples = []
        # whole documents up to MAX_INPUT_WORDS (a safety bound on time and memory); with --max-words
        # only a prefix far longer than the kept words is tokenized
        read_words = max(10_000, 20 * cfg.data.max_words) if cfg.data.max_words else MAX_INPUT_WORDS
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise ValueError(f"text {i}: expected a str, got {type(text).__name__}")
            head = leading_words(text, read_words)
            if len(head) < len(text) and not cfg.data.max_words:
                log.warning("text %d: longer than %d words; only the first %d are read", i, read_words, read_words)
            sents = preprocess_article(head)
            if not sents:
                raise ValueError(f"text {i}: empty article, nothing to summarize")
            examples.append(
                encode_example(
                    {"id": str(i), "src": sents, "tgt": [], "refs": []},
                    self.vocab,
                    chunks=cfg.data.chunks,
                    chunk_len=cfg.data.chunk_len,
                    max_tgt_len=cfg.data.max_tgt_len,
                    chunking=cfg.data.chunking,
                    max_words=cfg.data.max_words,
                )
            )
        with torch.no_grad():
            decoded = decode_examples(
                self.model,
                self.vocab,
                examples,
                cfg,
                device=self.device,
                beam=beam,
                block_trigrams=block_trigrams,
                replace_unk=replace_unk,
                max_len=max_len,
                min_len=min_len,
            )
        return [
            Summary(
                text=d.text,
                tokens=d.words,
                score=d.hypothesis.score,
                attention=d.hypothesis.attn,
                source=d.example.words,
                coarse=d.hypothesis.coarse,
                eos=d.hypothesis.eos,
            )
            for d in decoded
        ]


def load(run_dir: str | Path, *, device: str = "cpu") -> Pipeline:
    """Load a model by name: a shipped model (``"cnndm-small"``), the best checkpoint of a run
    directory, a checkpoint directory, or a Hugging Face hub repository id ``"owner/name[@rev]"``
    (:mod:`c2fsum.training.registry`)."""
    return Pipeline(run_dir, device=device)
