"""The parts every model family is built from, and the one place parameters are initialized.

A family (:mod:`c2fsum.models.flat`, :mod:`c2fsum.models.coarse_to_fine`) registers its modules
(the ``nn.Module`` building blocks of :mod:`c2fsum.modules`) in the order saved optimizer states
follow; the generator is a module that owns its parameters (``gen.vocab``, ``gen.switch``; older
checkpoints load through :data:`c2fsum.models.seq2seq.Seq2Seq.RENAMED`), the other parts still run
modules the family registers under the names old checkpoints hold:

* :mod:`~c2fsum.models.parts.source`: the source encoder, flat or per chunk (word states), with
  chunk vectors for MODEL 2/3, eagerly or lazily (MODEL 3: :class:`~c2fsum.models.chunk_cache.ChunkCache`);
* :mod:`~c2fsum.models.parts.attention`: the source attention, one interface
  (:class:`~c2fsum.models.parts.attention.SourceAttention`) and three implementations: flat
  (intra-temporal too), coarse-to-fine over every word state (soft, or hard in training), and
  hard coarse-to-fine read lazily;
* :mod:`~c2fsum.models.parts.decoder`: the decoder LSTM, the generator's features (luong or
  paulus output, intra-decoder attention, the pointer switch's input), one step or every step at once;
* :mod:`~c2fsum.models.parts.generator`: features -> log-probabilities over V or V' (vocabulary,
  shared output matrix, pointer switch and mixture) and the training loss.
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
