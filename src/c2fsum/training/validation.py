"""Validation by ROUGE-L on a slice of documents (an alternative to perplexity for `best`)."""

from __future__ import annotations

import torch

from c2fsum.config import Config
from c2fsum.data.batching import Example, collate
from c2fsum.decoding.greedy import greedy_decode
from c2fsum.decoding.postprocess import ids_to_words, words_to_text
from c2fsum.metrics.rouge import score_corpus
from c2fsum.models import Summarizer


def rouge_validation(cfg: Config, itos: list[str]):
    """A function ``(model, examples) -> {"rougeL": ...}`` decoding greedily (fast) on ``examples``."""

    @torch.no_grad()
    def run(model: Summarizer, examples: list[Example]) -> dict:
        was = model.training
        model.eval()
        device = next(model.parameters()).device
        cands, refs = [], []
        for s in range(0, len(examples), cfg.decode.batch_size):
            chunk = examples[s:s + cfg.decode.batch_size]
            b = collate(chunk, chunks=cfg.data.chunks, chunk_len=cfg.data.chunk_len).to(device)
            mem = model.encode(b.src, b.src_mask, b.src_ext, b.n_ext)
            for ex, h in zip(chunk, greedy_decode(model, mem, max_len=cfg.decode.max_len), strict=True):
                words = ids_to_words(h.tokens, itos, ex.oovs)
                cands.append(words_to_text(words))
                refs.append([" ".join(r) for r in ex.refs])
        model.train(was)
        s = score_corpus(cands, refs)
        return {"rougeL": s["rougeL"], "rouge1": s["rouge1"], "rouge2": s["rouge2"]}

    return run
