"""Small parts the model families share, and the one place parameters are initialized.

A family (:mod:`c2fsum.models.flat`, :mod:`c2fsum.models.coarse_to_fine`) is its parts: each is
an ``nn.Module`` that owns its parameters (the building blocks of :mod:`c2fsum.modules`), built
in the order of the draws that initialize them. Checkpoints written before the parts owned their
parameters load through :data:`c2fsum.models.seq2seq.Seq2Seq.RENAMED`; saved optimizer states
follow :meth:`c2fsum.models.seq2seq.Seq2Seq.optimizer_parameters`. Here:

* :mod:`~c2fsum.models.parts.source`: the source encoder, flat or per chunk (word states); MODEL
  2/3 add chunk vectors and lazy reading in their own file (:class:`~c2fsum.models.coarse_to_fine.ChunkSource`);
* :mod:`~c2fsum.models.parts.attention`: the source attention's interface
  (:class:`~c2fsum.models.parts.attention.SourceAttention`); each family writes its own next to
  its model (flat, intra-temporal too; coarse-to-fine eagerly, and hard coarse-to-fine read lazily).

The decoder and the generator, which every family runs the same way, are in
:mod:`c2fsum.models.seq2seq` with the step and the teacher-forced pass.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn


def init_uniform(modules: nn.Module | Sequence[nn.Module | None], init_range: float) -> None:
    """Every trainable parameter of ``modules`` (one module, or several in order; None skipped)
    uniform in [-init_range, init_range] (thesis section 5.2), drawn in ``parameters()`` order, a
    shared parameter once, then the padding row of each trainable embedding zero."""
    parts = [modules] if isinstance(modules, nn.Module) else [m for m in modules if m is not None]
    seen: set[int] = set()
    for part in parts:
        for p in part.parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                nn.init.uniform_(p, -init_range, init_range)
    with torch.no_grad():
        for part in parts:
            for m in part.modules():
                if isinstance(m, nn.Embedding) and m.padding_idx is not None and m.weight.requires_grad:
                    m.weight[m.padding_idx].zero_()
