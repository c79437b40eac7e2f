"""Properties of generated summaries: repeated trigrams and copied out-of-vocabulary words."""

from __future__ import annotations

from collections.abc import Sequence


def repeated_trigrams(tokens: Sequence) -> tuple[int, int]:
    """(trigrams that repeat an earlier trigram of the same summary, all trigrams)."""
    seen: set[tuple] = set()
    repeats = 0
    n = max(len(tokens) - 2, 0)
    for i in range(n):
        tri = tuple(tokens[i : i + 3])
        if tri in seen:
            repeats += 1
        seen.add(tri)
    return repeats, n


class OutputStats:
    """Accumulates, over a split, the share of repeated trigrams and of copied OOV words."""

    def __init__(self) -> None:
        self.repeats = self.trigrams = 0
        self.docs_with_repeat = self.docs = 0
        self.copied = self.tokens = 0

    def add(self, token_ids: Sequence[int], vocab_size: int) -> None:
        """``token_ids`` in V' (ids >= ``vocab_size`` are words copied from the document)."""
        r, n = repeated_trigrams(list(token_ids))
        self.repeats += r
        self.trigrams += n
        self.docs += 1
        self.docs_with_repeat += int(r > 0)
        self.copied += sum(1 for t in token_ids if t >= vocab_size)
        self.tokens += len(token_ids)

    def summary(self) -> dict[str, float]:
        """Percentages: ``repeated_trigrams`` (of all output trigrams), ``docs_with_repeated_trigram``,
        ``copied_oov`` (of all output words)."""
        return {
            "repeated_trigrams": 100.0 * self.repeats / max(self.trigrams, 1),
            "docs_with_repeated_trigram": 100.0 * self.docs_with_repeat / max(self.docs, 1),
            "copied_oov": 100.0 * self.copied / max(self.tokens, 1),
        }
