"""How much a rewritten sentence differs from the source sentence it was written from (issue 37).

For one (source sentence, output sentence) pair, tokens as the model reads and writes them
(``</s>``/``<s>`` dropped):

* **verbatim**: the output is the source sentence, token for token;
* **span**: the output is one contiguous run of the source's tokens (a copy cut short at either
  end; a verbatim copy is a span too): deletion at the edges, no rewriting inside;
* **rewritten**: neither of the above, the share issue 37 asks to be at least 30%;
* **compression**: output tokens / source tokens.

:func:`rewrite_measures` averages them over pairs: the shares in percent, and compression both
as the mean of the ratios and as the ratio of the totals.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MARKS = frozenset({"<s>", "</s>"})


def _tokens(tokens: Sequence[str]) -> list[str]:
    return [t for t in tokens if t not in MARKS]


def is_span(output: Sequence[str], source: Sequence[str]) -> bool:
    """Whether ``output`` is a non-empty contiguous run of ``source`` (sentence marks dropped)."""
    out, src = _tokens(output), _tokens(source)
    if not out or len(out) > len(src):
        return False
    n = len(out)
    return any(src[i : i + n] == out for i in range(len(src) - n + 1))


@dataclass(frozen=True)
class RewriteMeasures:
    """Averages over ``pairs`` pairs (shares in percent)."""

    pairs: int
    verbatim: float
    span: float
    rewritten: float
    compression_mean: float
    compression_total: float


def rewrite_measures(pairs: Iterable[tuple[Sequence[str], Sequence[str]]]) -> RewriteMeasures:
    """The measures of (source tokens, output tokens) pairs; all zero for no pair."""
    n = verbatim = span = 0
    ratios = 0.0
    src_total = out_total = 0
    for source, output in pairs:
        src, out = _tokens(source), _tokens(output)
        n += 1
        verbatim += out == src
        span += is_span(out, src)
        ratios += len(out) / len(src) if src else 0.0
        src_total += len(src)
        out_total += len(out)
    if not n:
        return RewriteMeasures(0, 0.0, 0.0, 0.0, 0.0, 0.0)
    return RewriteMeasures(
        pairs=n,
        verbatim=100 * verbatim / n,
        span=100 * span / n,
        rewritten=100 * (n - span) / n,
        compression_mean=ratios / n,
        compression_total=out_total / src_total if src_total else 0.0,
    )
