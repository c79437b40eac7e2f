"""How a model decodes: one typed, frozen value made once at the edge and passed down whole.

    saved config (decode section) --resolved once, at load--> the model's DecodeOptions
        --caller's overrides (CLI flags, keyword arguments, HTTP fields; None = not given),
          applied and checked once (:meth:`DecodeOptions.override`)--> the options of one call
        --> Pipeline.encode_* (``max_words``) and decode_examples (the rest)

"No limit on the words read" is spelled one way: ``max_words=0``, as ``data.max_words`` and
``metrics.json`` spell it. ``None`` in an override only means "not given: keep the model's".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from c2fsum.config import DecodeConfig
from c2fsum.data.lengths import FALLBACK_MIN_LEN
from c2fsum.errors import InputError


@dataclass(frozen=True)
class DecodeOptions:
    """The settings of one decoding call; equal options decode alike (the server batches by them)."""

    beam: int = 5
    """Beam size; 1 is greedy search."""
    max_len: int = 100
    """Most summary tokens (without ``</s>``)."""
    min_len: int = FALLBACK_MIN_LEN
    """Fewest summary tokens before ``</s>`` is allowed (0: the empty summary is allowed)."""
    length_norm: float = 0.0
    """Length penalty exponent: beam scores are divided by len**length_norm."""
    block_trigrams: bool = False
    """Never repeat a trigram (Paulus et al. 2017)."""
    block_repeats: bool = False
    """Never a word or word pair right after itself (``expression expression``, ``to be to be``)."""
    replace_unk: bool = False
    """Write the most attended source word in place of ``<unk>``."""
    batch_size: int = 10
    """Documents decoded together."""
    read_chunks: int = 1
    """MODEL 3: chunks read per decoder step, the k of highest coarse weight (1: argmax)."""
    read_budget: float = 1.0
    """MODEL 3: once this share of a document's words went through the word-level encoder, steps
    read only chunks already read (1: no limit); the share can end above it by the chunks one step
    reads, at most ``beam * read_chunks``."""
    max_words: int = 0
    """Read only each document's first ``max_words`` words (0: the whole document)."""

    def __post_init__(self) -> None:
        for name in ("beam", "max_len", "batch_size", "read_chunks"):
            if getattr(self, name) < 1:
                raise InputError(f"{name}: got {getattr(self, name)}, expected an integer >= 1")
        if not 0 < self.read_budget <= 1:
            raise InputError(f"read_budget: got {self.read_budget}, expected a share in (0, 1]")
        for name in ("min_len", "max_words"):
            if getattr(self, name) < 0:
                raise InputError(f"{name}: got {getattr(self, name)}, expected an integer >= 0")

    @classmethod
    def from_config(cls, dc: DecodeConfig) -> DecodeOptions:
        """A config's decode section as options; ``min_len`` None becomes
        :data:`~c2fsum.data.lengths.FALLBACK_MIN_LEN` (a loaded checkpoint's config already holds
        the model's own default, :func:`c2fsum.models.checkpoint.resolve_min_len`)."""
        return cls(
            beam=dc.beam,
            max_len=dc.max_len,
            min_len=FALLBACK_MIN_LEN if dc.min_len is None else dc.min_len,
            length_norm=dc.length_norm,
            block_trigrams=dc.block_trigrams,
            block_repeats=dc.block_repeats,
            replace_unk=dc.replace_unk,
            batch_size=dc.batch_size,
            read_chunks=dc.read_chunks,
            read_budget=dc.read_budget,
            max_words=dc.max_words,
        )

    def override(self, **given: Any) -> DecodeOptions:
        """These options with the ``given`` fields replaced; a value of None keeps this one.

        Raises InputError for an unknown name, a value out of range (naming the field), or a
        ``min_len`` given above the maximum length. (The model's own ``min_len`` may exceed a
        ``max_len`` given alone: the summary then runs to ``max_len``.)
        """
        names = {f.name for f in fields(self)}
        unknown = sorted(set(given) - names)
        if unknown:
            raise InputError(f"decoding option(s) {unknown}: unknown, expected some of {sorted(names)}")
        out = replace(self, **{k: v for k, v in given.items() if v is not None})
        if given.get("min_len") is not None and out.min_len > out.max_len:
            where = "max_len" if given.get("max_len") is not None else "the model config decode.max_len"
            raise InputError(
                f"min_len: got {out.min_len}, above the maximum summary length {out.max_len} ({where}); "
                f"expected <= {out.max_len}"
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
