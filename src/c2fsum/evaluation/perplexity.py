"""Teacher-forced perplexity of a model on a list of examples (validation and ``evaluate``).

    ppl = exp( sum_b sum_t -log p(y_t | y_<t, x)  /  number of target tokens )

(capped at exp(50)); the target tokens count the closing ``</s>``.
"""

from __future__ import annotations

import math

import torch

from c2fsum.config import Config
from c2fsum.data.batching import Example, bucketed_batches, collate
from c2fsum.models import Model


@torch.no_grad()
def perplexity(
    model: Model, examples: list[Example], cfg: Config, device: torch.device, batch_size: int | None = None
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
        nll, units = model.batch_nll(batch)  # target tokens, or a sentence selector's picks and stops
        total, tokens = total + float(nll), tokens + units
    model.train(was_training)
    return math.exp(min(total / max(tokens, 1), 50.0)), total, tokens
