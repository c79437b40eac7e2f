"""How a model decodes: one typed, frozen value made once at the edge and passed down whole.

    saved config (decode section) --resolved once, at load--> the model's DecodeOptions
        --caller's overrides (CLI flags, keyword arguments, HTTP fields; None = not given),
          applied and checked once (:meth:`DecodeOptions.override`)--> the options of one call
        --> Pipeline.encode_* (``max_words``) and decode_examples (the rest)

The options, their defaults, help and bounds are declared once, as the fields of
:class:`c2fsum.config.DecodeConfig`; :class:`DecodeOptions` is that section made a value that is
checked and complete (``min_len`` a number). "No limit on the words read" is spelled one way:
``max_words=0``, as ``data.max_words`` and ``metrics.json`` spell it. ``None`` in an override only
means "not given: keep the model's".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from c2fsum.config import DecodeConfig, bounds_error
from c2fsum.data.lengths import default_min_len
from c2fsum.errors import InputError


@dataclass(frozen=True)
class DecodeOptions(DecodeConfig):
    """The settings of one decoding call (the fields of :class:`~c2fsum.config.DecodeConfig`);
    equal options decode alike (the server batches by them). Out-of-bounds values raise
    InputError naming the field, the value and the bounds."""

    min_len: int = None  # type: ignore[assignment]  # a number once made (None: __post_init__ chooses)

    def __post_init__(self) -> None:
        if self.min_len is None:  # not set: the fallback of a model without recorded lengths
            object.__setattr__(self, "min_len", default_min_len(None))
        for f in fields(self):
            expected = bounds_error(f.name, getattr(self, f.name))
            if expected:
                raise InputError(f"{f.name}: got {getattr(self, f.name)}, {expected}")

    @classmethod
    def from_config(cls, dc: DecodeConfig) -> DecodeOptions:
        """A config's decode section as options (a loaded checkpoint's config already holds the
        model's own ``min_len``, :func:`c2fsum.models.checkpoint.resolve_min_len`)."""
        return cls(**asdict(dc))

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
        """Every option by name (what ``evaluate`` records in ``metrics.json``)."""
        return asdict(self)
