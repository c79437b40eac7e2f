"""Validation by ROUGE-L on a slice of documents (an alternative to perplexity for `best`)."""

from __future__ import annotations

import torch

from c2fsum.config import Config
from c2fsum.data.batching import Example
from c2fsum.data.vocab import Vocab
from c2fsum.decoding.documents import decode_examples
from c2fsum.decoding.options import DecodeOptions
from c2fsum.metrics.rouge import score_corpus
from c2fsum.models import Model, Summarizer


def rouge_validation(cfg: Config, vocab: Vocab):
    """A function ``(model, examples) -> {"rougeL", "rouge1", "rouge2"}`` (best highlight) and the same
    with ``_concat`` (all highlights as one reference) decoding greedily (fast)."""

    greedy = DecodeOptions.from_config(cfg.decode).override(beam=1, block_trigrams=False, replace_unk=False, min_len=0)

    @torch.no_grad()
    def run(model: Model, examples: list[Example]) -> dict:
        if not isinstance(model, Summarizer):
            raise TypeError("ROUGE validation decodes words; a sentence selector writes none")
        was = model.training
        device = next(model.parameters()).device
        decoded = decode_examples(model, vocab, examples, cfg, greedy, device=device)
        model.train(was)
        candidates = [d.text for d in decoded]
        s = score_corpus(candidates, [[" ".join(r) for r in d.example.refs] for d in decoded])
        whole = score_corpus(candidates, [[" ".join(w for r in d.example.refs for w in r)] for d in decoded])
        return {
            "rougeL": s["rougeL"],
            "rouge1": s["rouge1"],
            "rouge2": s["rouge2"],
            **{f"{k}_concat": whole[k] for k in ("rouge1", "rouge2", "rougeL")},
        }

    return run
