"""The default minimum summary length, learned from the training targets and recorded with the model.

A barely trained model puts most of its probability on ``</s>`` and, allowed to stop at once,
writes the empty summary. Decoding therefore forbids ``</s>`` until ``min_len`` tokens were
written, and by default ``min_len`` is the :data:`MIN_LEN_PERCENTILE`-th percentile (lower
nearest rank) of the training targets' lengths in tokens: 95% of what the model was taught to
write is at least that long (9 tokens on the shared CNN/DM training sample, whose targets average
13.6). The trainer records these facts in each checkpoint's ``lengths.json``; a checkpoint without
one (written before they were recorded) gets :data:`FALLBACK_MIN_LEN`. An explicit
``decode.min_len`` in the config, ``--min-len`` on the command line, ``min_len=`` in the Python API
or ``min_length`` in an HTTP request wins; 0 allows the empty summary again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from c2fsum.errors import InputError

__all__ = [
    "FALLBACK_MIN_LEN",
    "LENGTHS_FILE",
    "MIN_LEN_PERCENTILE",
    "MIN_LEN_SHARE_OF_MAX",
    "default_min_len",
    "target_length_facts",
]

MIN_LEN_PERCENTILE = 5
"""Percentile of the training targets' lengths used as the default ``min_len``."""
FALLBACK_MIN_LEN = 5
"""``min_len`` of a model with no recorded target lengths (below the shortest 1% of CNN/DM targets)."""
MIN_LEN_SHARE_OF_MAX = 0.4
"""The default ``min_len`` of a model trained on cut targets, as a share of the cut: when at least
95% of the targets were cut to one length (SumPubMed's abstracts to 100 tokens) the percentile is
the cut itself, and a minimum equal to the maximum forced every summary to run to the cut, past
where the model would end it (a two-sentence input got 100 tokens)."""
LENGTHS_FILE = "lengths.json"
"""The checkpoint file holding :func:`target_length_facts` of the training targets."""


def default_min_len(lengths: dict | None) -> int:
    """The ``min_len`` of a model whose config leaves ``decode.min_len`` unset (None): the one its
    checkpoint recorded (``lengths``, the :data:`LENGTHS_FILE` facts), else :data:`FALLBACK_MIN_LEN`.
    The one place this default is chosen (a checkpoint at load, options made without one)."""
    return FALLBACK_MIN_LEN if lengths is None else int(lengths["min_len"])


def _lower_rank(sorted_values: Sequence[int], q: float) -> int:
    """The ``q``-th percentile by lower nearest rank: ``sorted_values[ceil(q/100 * n) - 1]``."""
    k = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[k - 1]


def target_length_facts(lengths: Sequence[int]) -> dict:
    """Facts about the training targets' lengths (tokens, without ``</s>``) and the ``min_len`` they give.

    Returns ``n``, ``mean``, ``min``, ``p5``, ``p50``, ``p95``, ``max`` and ``min_len`` (= ``p5``,
    :data:`MIN_LEN_PERCENTILE`; :data:`MIN_LEN_SHARE_OF_MAX` of ``max`` when ``p5`` is ``max``: targets cut),
    ``min_len_rule`` (how it was chosen, in words). Raises ValueError for no lengths or a negative one.

    >>> target_length_facts([4, 9, 10, 12, 13, 13, 14, 15, 16, 30])["min_len"]
    4
    >>> target_length_facts(list(range(1, 101)))["min_len"]
    5
    >>> target_length_facts([20] + [100] * 99)["min_len"]  # targets cut to 100 tokens
    40
    """
    values = sorted(int(x) for x in lengths)
    if not values:
        raise InputError("target lengths: no training targets")
    if values[0] < 0:
        raise InputError(f"target lengths: expected counts >= 0, got {values[0]}")
    p = {f"p{q}": _lower_rank(values, q) for q in (MIN_LEN_PERCENTILE, 50, 95)}
    cut = p[f"p{MIN_LEN_PERCENTILE}"] == values[-1] and values[-1] > values[0]
    return {
        "n": len(values),
        "mean": sum(values) / len(values),
        "min": values[0],
        **p,
        "max": values[-1],
        "min_len": int(MIN_LEN_SHARE_OF_MAX * values[-1]) if cut else p[f"p{MIN_LEN_PERCENTILE}"],
        "min_len_rule": f"{MIN_LEN_PERCENTILE}th percentile (lower nearest rank) of the training targets' tokens; "
        f"{MIN_LEN_SHARE_OF_MAX:g} x the longest when that percentile is the longest (targets cut)",
    }
