"""Validation during training: perplexity over every rank's share of the validation documents and,
when asked (``train.best_metric=rougeL`` or ``train.val_rouge``), ROUGE of greedy summaries; and
which validation row is the best so far."""

from __future__ import annotations

import math
from collections.abc import Callable

from c2fsum.config import Config
from c2fsum.data.batching import Example
from c2fsum.data.vocab import Vocab
from c2fsum.evaluation.perplexity import perplexity
from c2fsum.models import Model
from c2fsum.training.distributed import DistContext
from c2fsum.training.state import Position


def rouge_fn(cfg: Config, vocab: Vocab) -> Callable[[Model, list[Example]], dict] | None:
    """ROUGE of greedy summaries (:func:`c2fsum.evaluation.validation.rouge_validation`) when the run
    asks for it (``train.best_metric=rougeL`` or ``train.val_rouge``), else None."""
    if cfg.train.best_metric != "rougeL" and not cfg.train.val_rouge:
        return None
    from c2fsum.evaluation.validation import rouge_validation

    return rouge_validation(cfg, vocab)


def validation_row(
    model: Model,
    val_ex: list[Example],
    cfg: Config,
    dist: DistContext,
    pos: Position,
    *,
    rouge_fn: Callable[[Model, list[Example]], dict] | None = None,
) -> dict:
    """The ``val`` row at ``pos`` (step, epoch): perplexity (each rank scores its share, sums all-reduced) and
    ``rouge_fn``'s scores of the first ``train.rouge_val_docs`` documents (rank 0, broadcast),
    equal on every rank."""
    tokens: float  # an int count; a float once summed over ranks
    ppl, nll, tokens = perplexity(model, val_ex[dist.rank :: dist.world], cfg, dist.device)
    if dist.enabled:
        nll, tokens = dist.all_sum([nll, tokens])
        ppl = math.exp(min(nll / max(tokens, 1), 50.0))
    row = {"split": "val", "step": pos.step, "epoch": pos.epoch, "ppl": ppl, "nll_per_token": nll / max(tokens, 1)}
    if (cfg.train.best_metric == "rougeL" or cfg.train.val_rouge) and rouge_fn is not None:
        scores = rouge_fn(model, val_ex[: cfg.train.rouge_val_docs]) if dist.is_main else None
        row.update(dist.broadcast(scores))
    return row


def best_value(row: dict, metric: str, best: float | None) -> float | None:
    """The row's figure of ``train.best_metric`` (``ppl``, lower is better; ``rougeL``, higher, or
    minus the perplexity when the row has none) when it beats ``best``, else None."""
    if metric == "ppl":
        return row["ppl"] if best is None or row["ppl"] < best else None
    value = row.get("rougeL", -row["ppl"])
    return value if best is None or value > best else None
