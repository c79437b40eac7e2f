"""The parts every model family is built from, and the one place parameters are initialized.

A family (:mod:`c2fsum.models.flat`, :mod:`c2fsum.models.coarse_to_fine`) registers its modules
(the ``nn.Module`` building blocks of :mod:`c2fsum.modules`) under the names old checkpoints
hold, in the order saved optimizer states follow; the parts hold no parameters of their own and
run those modules:

* :mod:`~c2fsum.models.parts.source`: the source encoder, flat or per chunk (word states), with
  chunk vectors for MODEL 2/3, eagerly or lazily (MODEL 3: :class:`~c2fsum.models.chunk_cache.ChunkCache`);
* :mod:`~c2fsum.models.parts.attention`: the source attention, one interface
  (:class:`~c2fsum.models.parts.attention.SourceAttention`) and three implementations: flat
  (intra-temporal too), coarse-to-fine over every word state (soft, or hard in training), and
  hard coarse-to-fine read lazily;
* :mod:`~c2fsum.models.parts.decoder`: the decoder LSTM, the generator's features (luong or
  paulus output, intra-decoder attention, pointer switch), one step or every step at once;
* :mod:`~c2fsum.models.parts.generator`: features -> log-probabilities over V or V' (vocabulary,
  shared output matrix, pointer mixture) and the training loss.
"""

from __future__ import annotations

import torch
from torch import nn


def init_uniform(module: nn.Module, init_range: float) -> None:
    """Every trainable parameter of ``module`` uniform in [-init_range, init_range] (thesis section
    5.2), drawn in ``parameters()`` order, then the padding row of each trainable embedding zero."""
    for p in module.parameters():
        if p.requires_grad:
            nn.init.uniform_(p, -init_range, init_range)
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.Embedding) and m.padding_idx is not None and m.weight.requires_grad:
                m.weight[m.padding_idx].zero_()
