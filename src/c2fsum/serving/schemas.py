"""Request and response bodies of the HTTP API (pydantic; they also make the OpenAPI schema)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SummarizeRequest(BaseModel):
    """``POST /summarize``: one article. Options left out take the model's decoding config."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "text": "The mayor said on Tuesday that the bridge will close for three months. "
                    "Drivers should use the tunnel instead.",
                    "beam": 3,
                    "max_length": 40,
                    "block_trigrams": True,
                }
            ]
        },
    )

    text: str = Field(description="The article, raw text (it is tokenized like the training data).")
    beam: int | None = Field(None, ge=1, description="Beam size (1 = greedy); default: the model's config.")
    max_length: int | None = Field(None, ge=1, description="Most summary tokens; default: the model's config.")
    min_length: int | None = Field(
        None,
        ge=0,
        description="Fewest summary tokens before `</s>` is allowed; default: the model's (the 5th percentile "
        "of its training summaries' lengths, capped at max_length); 0 allows an empty summary.",
    )
    block_trigrams: bool | None = Field(None, description="Never repeat a trigram (Paulus et al. 2017).")
    block_repeats: bool | None = Field(
        None,
        description="Never a word or word pair right after itself (`--block-repeats`); default: the model's.",
    )
    replace_unk: bool | None = Field(
        None,
        description="Write the most attended source word in place of `<unk>` (`c2fsum summarize --replace-unk`); "
        "default: the model's config.",
    )
    read_chunks: int | None = Field(
        None,
        ge=1,
        description="MODEL 3 only: chunks read at the word level per step, the k of highest coarse weight "
        "(`--read-chunks`; 1 = the thesis's argmax); default: the model's. Refused for other models.",
    )
    read_budget: float | None = Field(
        None,
        gt=0,
        le=1,
        description="MODEL 3 only: once this share of the document's words was read at the word level, read "
        "again only chunks already read (`--read-budget`; 1 = no limit); default: the model's.",
    )
    max_words: int | None = Field(
        None,
        ge=0,
        description="Read only the first max_words words (`--max-words`; 400 = the paper's setting); "
        "default and 0: the whole document.",
    )


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
    eos: bool = Field(description="False when the summary was cut at max_length.")
    grid: tuple[int, int] = Field(description="The grid the document was read on: chunks M x words per chunk N.")
    words: int = Field(description="Words (tokens) of the document read.")
    fine_chunks: list[int] = Field(
        description="Indices of the chunks encoded at the word level: all of them, except for MODEL 3 "
        "reading lazily (only the chunks its hard attention picked)."
    )
    fine_fraction: float = Field(description="Share of the document's words encoded at the word level.")


class DecodeDefaults(BaseModel):
    """What a request that leaves an option out gets: the model's own decoding config."""

    beam: int
    max_length: int
    min_length: int
    block_trigrams: bool
    block_repeats: bool
    replace_unk: bool
    read_chunks: int | None = Field(description="MODEL 3's chunks read per step; null for other models.")
    read_budget: float | None = Field(description="MODEL 3's reading budget; null for other models.")
    max_words: int = Field(description="Words of a document read (its first max_words; 0: the whole document).")


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
