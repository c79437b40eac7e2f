"""Request and response bodies of the HTTP API (pydantic; they also make the OpenAPI schema)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, create_model

from c2fsum.config import decode_fields

OLD_NAMES = {"max_len": ("max_length",), "min_len": ("min_length",)}
"""Request fields that earlier versions of the API spelled differently (still accepted, as aliases)."""


class Article(BaseModel):
    """``POST /summarize``: one article, and the decoding options of :class:`c2fsum.config.DecodeConfig`
    (each may be left out: the model's decoding config)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "text": "The mayor said on Tuesday that the bridge will close for three months. "
                    "Drivers should use the tunnel instead.",
                    "beam": 3,
                    "max_len": 40,
                    "block_trigrams": True,
                }
            ]
        },
    )

    text: str = Field(description="The article, raw text (it is tokenized like the training data).")

    def options(self) -> dict[str, Any]:
        """The decoding options of the request by name (None: left out)."""
        return self.model_dump(exclude={"text"})


def _option(name: str, f: dataclasses.Field, **kw: Any) -> Any:
    """The pydantic field of a decoding option: its declared help and bounds."""
    bounds = {k: f.metadata[k] for k in ("ge", "gt", "le") if f.metadata[k] is not None}
    return Field(description=f"{f.metadata['help']} (`--{name.replace('_', '-')}`).", **bounds, **kw)


if TYPE_CHECKING:  # the checker sees the base classes; at run time the option fields are made below
    SummarizeRequest = Article
    DecodeDefaults = BaseModel
else:
    SummarizeRequest = create_model(
        "SummarizeRequest",
        __base__=Article,
        __doc__=Article.__doc__,
        **{
            name: (
                kind | None,
                _option(name, f, default=None, validation_alias=AliasChoices(name, *OLD_NAMES.get(name, ()))),
            )
            for name, (kind, f) in decode_fields().items()
        },
    )
    DecodeDefaults = create_model(
        "DecodeDefaults",
        __doc__="What a request that leaves an option out gets: the model's own decoding config.",
        **{name: (kind, _option(name, f)) for name, (kind, f) in decode_fields().items()},
    )


class PickedSentence(BaseModel):
    """One sentence a sentence selector picked (the coarse level of select-rewrite)."""

    sentence: int = Field(description="Its index among the document's sentences.")
    chunk: int = Field(description="The chunk it starts in (an index of `chunks`).")
    text: str = Field(description="Its words, as the model read them.")


class SummarizeResponse(BaseModel):
    """A summary, the chunks the model could read, and where it read for each summary word.

    ``attention[t][i]`` is the attention mass that summary word ``tokens[t]`` put on chunk
    ``chunks[i]`` (its word attention summed over the chunk's words; each row sums to 1).
    ``coarse[t][i]`` is the chunk-level (coarse) attention of coarse-to-fine models, else null.
    """

    summary: str = Field(description="The summary, one sentence per line.")
    tokens: list[str] = Field(description="The generated words (without the closing `</s>`).")
    chunks: list[str] = Field(description="The document's chunks as the model reads them (tokenized).")
    attention: list[list[float]] = Field(description="len(tokens) x len(chunks): attention mass per chunk.")
    coarse: list[list[float]] | None = Field(description="len(tokens) x len(chunks) coarse attention, or null.")
    score: float = Field(description="Sum of the log-probabilities of the generated tokens.")
    eos: bool = Field(description="False when the summary was cut at max_len.")
    grid: tuple[int, int] = Field(description="The grid the document was read on: chunks M x words per chunk N.")
    words: int = Field(description="Words (tokens) of the document read.")
    fine_chunks: list[int] = Field(
        description="Indices of the chunks encoded at the word level: all of them, except for MODEL 3 "
        "reading lazily (only the chunks its hard attention picked) and for a sentence selector (the chunks "
        "that hold the sentences it picked, each read at the word level)."
    )
    fine_fraction: float = Field(description="Share of the document's words encoded at the word level.")
    picked: list[PickedSentence] | None = Field(
        default=None,
        description="A sentence selector's picks (select-rewrite), in the summary's order (the paper's); "
        "null for models that write word by word.",
    )
    pick_order: list[int] | None = Field(
        default=None,
        description="The same sentences' indices in the order the selector picked them (most wanted first); "
        "null for models that write word by word.",
    )
    cut: bool = Field(
        default=False,
        description="True when the model read only the text's first `read_limit` words (`max_words`, or the "
        "100,000 words read of any text): `chunks` hold them, the rest of the text was not read.",
    )
    read_limit: int = Field(default=0, description="The words the model reads of a text when `cut`; else 0.")
    text_words: int = Field(default=0, description="The text's words (separated by white space), read or not.")


class Limits(BaseModel):
    max_chars: int = Field(description="Longest text accepted (`c2fsum serve --max-chars`).")
    max_beam: int
    max_length: int


class Health(BaseModel):
    status: str
    model: str
    family: str
    grid: tuple[int, int] = Field(description="The trained grid, chunks M (0: unbounded) x words per chunk N.")
    chunk_len: int = Field(description="Words per chunk N.")
    hard: bool = Field(description="True for MODEL 3: a hard attention picks the chunks read at the word level.")
    defaults: DecodeDefaults
    limits: Limits
    waiting: int = Field(description="Requests waiting for the decoding thread.")
    batches: int = Field(description="Model calls so far.")
    documents: int = Field(description="Documents summarized so far.")


class ErrorBody(BaseModel):
    detail: str = Field(description="What was wrong, naming the field or limit.")
