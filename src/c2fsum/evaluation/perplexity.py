"""Teacher-forced perplexity of a model on a list of examples (validation and ``evaluate``).

    ppl = exp( sum_b sum_t -log p(y_t | y_<t, x)  /  number of target tokens )

(capped at exp(50)); the target tokens count the closing ``</s>``.
"""

from __future__ import annotations

import math
from typing import cast

import torch

from c2fsum.config import Config
from c2fsum.data.batching import Example, bucketed_batches, collate
from c2fsum.losses.nll import loss_target, sequence_nll
from c2fsum.models import Summarizer
from c2fsum.models.select_rewrite import SentenceSelector


@torch.no_grad()
def perplexity(
    model: Summarizer, examples: list[Example], cfg: Config, device: torch.device, batch_size: int | None = None
) -> tuple[float, float, int]:
    """Teacher-forced perplexity over ``examples``: (ppl, summed NLL, tokens).

    Batches of ``batch_size`` (default ``train.batch_size``) in length order; the model is put
    in eval mode for the pass and back in its previous mode afterwards.
    """
    was_training = model.training
    model.eval()
    total, tokens = 0.0, 0
    lengths = [len(e.src) for e in examples]
    for idx in bucketed_batches(
        len(examples),
        lengths,
        batch_size=batch_size or cfg.train.batch_size,
        bucket_size=1,
        seed=0,
        epoch=0,
        shuffle=False,
    ):
        batch = collate([examples[i] for i in idx], chunks=cfg.data.chunks, chunk_len=cfg.data.chunk_len).to(device)
        if model.capabilities.selects:  # a sentence selector: perplexity of its picks (models/select_rewrite.py)
            nll, picks = cast(SentenceSelector, model).selection_nll(batch.src, batch.src_mask, batch.examples)
            total, tokens = total + float(nll), tokens + picks
            continue
        out = model(batch.src, batch.src_mask, batch.tgt_in, batch.src_ext, batch.n_ext, loss_target(model, batch))
        assert out.target_lp is not None  # forward was given the target
        total += float(sequence_nll(out.target_lp, batch.tgt_mask))
        tokens += batch.n_tokens
    model.train(was_training)
    return math.exp(min(total / max(tokens, 1), 50.0)), total, tokens
