"""Limits and batching knobs of the HTTP API."""

from __future__ import annotations

from dataclasses import dataclass

from c2fsum.errors import InputError


@dataclass(frozen=True)
class ServeSettings:
    """What the server accepts and how it queues work.

    Attributes:
        max_chars: longest ``text`` accepted (characters); longer gets 413. The default, 1,000,000,
            holds the 100,000 words that ``c2fsum summarize`` reads of one input
            (:data:`c2fsum.pipeline.MAX_INPUT_WORDS`; papers average 6-7 characters a word).
        max_body_bytes: largest request body accepted (bytes); larger gets 413 before it is parsed.
            Default: ``8 * max_chars + 4096``, room for every character JSON-escaped.
        max_batch: most documents decoded together in one call of the model.
        max_queue: most requests waiting for the decoding thread; one more gets 503.
        batch_wait: seconds the worker waits for more requests before decoding a batch.
        timeout: seconds a request may wait and decode in all; past it the answer is 504.
        max_beam: largest ``beam`` a request may ask for.
        max_length: largest ``max_length`` a request may ask for (tokens; above the shipped PubMed
            models' own 300, so they serve their defaults).
    """

    max_chars: int = 1_000_000
    max_body_bytes: int | None = None
    max_batch: int = 8
    max_queue: int = 64
    batch_wait: float = 0.005
    timeout: float = 30.0
    max_beam: int = 10
    max_length: int = 400

    def __post_init__(self):
        if self.max_body_bytes is not None and self.max_body_bytes < 1:
            raise InputError(f"ServeSettings.max_body_bytes must be >= 1, got {self.max_body_bytes}")
        for name in ("max_chars", "max_batch", "max_queue", "max_beam", "max_length"):
            if getattr(self, name) < 1:
                raise InputError(f"ServeSettings.{name} must be >= 1, got {getattr(self, name)}")
        if self.timeout <= 0:
            raise InputError(f"ServeSettings.timeout must be > 0 seconds, got {self.timeout}")
        if self.batch_wait < 0:
            raise InputError(f"ServeSettings.batch_wait must be >= 0 seconds, got {self.batch_wait}")

    @property
    def body_bytes(self) -> int:
        """The largest body accepted: ``max_body_bytes``, or the one that holds ``max_chars``."""
        return body_bytes_for(self.max_chars) if self.max_body_bytes is None else self.max_body_bytes


def body_bytes_for(max_chars: int) -> int:
    """The request body that holds a text of ``max_chars`` characters, each JSON-escaped (``\\uXXXX``
    is 6 bytes, a surrogate pair 12 for two characters), with room for the other fields."""
    return max(8 * max_chars, 65536) + 4096
