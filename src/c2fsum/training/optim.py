"""The optimizer and its learning-rate schedule (thesis section 5.2).

SGD with learning rate 1 (0.1 for a chunk encoder's parameters), or Adagrad / Adam; the rate is
halved (``train.lr_decay``) every epoch once validation perplexity stops decreasing.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from c2fsum.config import Config
from c2fsum.errors import TrainingError
from c2fsum.models import Model


@dataclass
class Schedule:
    """Learning-rate schedule state (thesis: halve once validation perplexity stops improving)."""

    scale: float = 1.0
    decaying: bool = False
    prev_val_ppl: float | None = None
    best: float | None = None
    best_step: int = 0

    def end_of_epoch(self, val_ppl: float, decay: float) -> None:
        if self.prev_val_ppl is not None and val_ppl >= self.prev_val_ppl:
            self.decaying = True
        if self.decaying:
            self.scale *= decay
        self.prev_val_ppl = val_ppl


def make_optimizer(model: Model, cfg: Config) -> torch.optim.Optimizer:
    """SGD (or Adagrad/Adam) with a separate learning rate for a chunk encoder's parameters."""
    named = [(n, p) for n, p in model.optimizer_parameters() if p.requires_grad]  # BOW embeddings are fixed
    chunk = [p for n, p in named if "chunk_encoder" in n.split(".")]
    rest = [p for n, p in named if "chunk_encoder" not in n.split(".")]
    groups = [{"params": rest, "lr": cfg.train.lr, "base_lr": cfg.train.lr}]
    if chunk:
        groups.append({"params": chunk, "lr": cfg.train.lr_chunk_encoder, "base_lr": cfg.train.lr_chunk_encoder})
    name = cfg.train.optimizer.lower()
    if name == "sgd":
        return torch.optim.SGD(groups, lr=cfg.train.lr)
    if name == "adagrad":
        return torch.optim.Adagrad(groups, lr=cfg.train.lr)
    if name == "adam":
        return torch.optim.Adam(groups, lr=cfg.train.lr)
    raise TrainingError(
        f"train.optimizer: unknown optimizer {cfg.train.optimizer!r}, expected one of sgd, adagrad, adam"
    )
