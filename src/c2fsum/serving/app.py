"""The FastAPI app: ``POST /summarize``, ``GET /health``, the page at ``/``, OpenAPI docs at ``/docs``.

    app = create_app("runs/model2-cpu")            # loads the model once
    uvicorn.run(app, host="127.0.0.1", port=8000)  # what `c2fsum serve` does

Status codes: 200 a summary; 413 a body or text over the limits; 422 a malformed request
(not JSON or not UTF-8, unknown or mistyped field, a value out of range, a text with no words, a text the
model gives no summary of: ``"text: no summary: ..."`` says why); 503 the queue
is full; 504 the request took longer than the timeout; 500 a bug (its traceback is logged).
Every error body is ``{"detail": "..."}`` naming the field or the limit.
The docs pages use the Swagger UI / ReDoc files shipped in the ``fastapi-offline`` package,
so they work without internet.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException

from c2fsum.data.sentences import MARKS, sentence_cells
from c2fsum.decoding.options import DecodeOptions
from c2fsum.errors import InputError, UserError
from c2fsum.pipeline import MAX_INPUT_WORDS, Pipeline, Summary
from c2fsum.serving.batcher import Batcher, QueueFullError, RequestTimeoutError
from c2fsum.serving.limits import BodySizeLimit
from c2fsum.serving.schemas import DecodeDefaults, ErrorBody, Health, SummarizeRequest, SummarizeResponse
from c2fsum.serving.settings import ServeSettings

log = logging.getLogger(__name__)

STATIC = Path(str(resources.files("c2fsum.serving") / "static"))
"""The page's HTML, JS and CSS (package data)."""

_ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorBody, "description": "Body or text too large"},
    422: {"model": ErrorBody, "description": "Malformed request"},
    503: {"model": ErrorBody, "description": "Queue full"},
    504: {"model": ErrorBody, "description": "Timed out"},
}


def summary_to_response(s: Summary, *, chunk_len: int, text: str = "", max_words: int = 0) -> dict:
    """The JSON body for one :class:`~c2fsum.pipeline.Summary` of ``text``, read with ``max_words``.

    ``s.attention`` is ``(T, M, N)`` with ``T = len(tokens) + eos``; the ``</s>`` row is dropped and
    each remaining row is summed over the N words of each chunk: ``(len(tokens), M')`` for the
    ``M'`` chunks that hold words. Weights are rounded to 5 decimals. ``grid`` is the grid the
    document was read on, ``(M', N)``; ``fine_chunks`` the chunks encoded at the word level;
    ``picked`` a sentence selector's sentences (:func:`picked_sentences`), else None; ``cut``
    whether the model read only the text's first ``read_limit`` words (``max_words``, or
    :data:`~c2fsum.pipeline.MAX_INPUT_WORDS`) of its ``text_words``.
    """
    rows = [s.source[i : i + chunk_len] for i in range(0, len(s.source), chunk_len)]
    n_tok, n_rows = len(s.tokens), len(rows)
    per_chunk = s.attention[:n_tok].float().sum(-1)[:, :n_rows]  # (T', M')
    coarse = s.coarse[:n_tok, :n_rows].float() if s.coarse is not None else None  # (T', M')
    fine = list(range(n_rows)) if s.fine_chunks is None else [m for m in s.fine_chunks if m < n_rows]
    return {
        "summary": s.text,
        "tokens": list(s.tokens),
        "chunks": [" ".join(w for w in row if w != "</s>") for row in rows],
        "attention": [[round(float(x), 5) for x in r] for r in per_chunk.tolist()],
        "coarse": None if coarse is None else [[round(float(x), 5) for x in r] for r in coarse.tolist()],
        "score": float(s.score),
        "eos": bool(s.eos),
        "grid": (n_rows, chunk_len),
        "words": sum(w != "</s>" for w in s.source),
        "fine_chunks": fine,
        "fine_fraction": round(float(s.fine_fraction), 5),
        "picked": None if s.sentences is None else picked_sentences(s.source, s.sentences, chunk_len),
        "pick_order": None if s.picked is None else list(s.picked),
        "cut": s.cut,
        "read_limit": (max_words or MAX_INPUT_WORDS) if s.cut else 0,
        "text_words": len(text.split()),
    }


def picked_sentences(source: list[str], sentences: list[int], chunk_len: int) -> list[dict]:
    """A sentence selector's picks, in the summary's order: each one's index among the document's
    sentences, the chunk it starts in (``chunks[i]`` of the response) and its words."""
    cells = sentence_cells(source)
    return [
        {
            "sentence": j,
            "chunk": cells[j][0] // chunk_len,
            "text": " ".join(source[c] for c in cells[j] if source[c] not in MARKS),
        }
        for j in sentences
    ]


def _validation_message(exc: RequestValidationError) -> str:
    """One line naming each problem: ``field: message (got value)``."""
    parts = []
    for err in exc.errors():
        loc = [str(x) for x in err.get("loc", ()) if x != "body"]
        got = err.get("input")
        if err.get("type") == "json_invalid":
            parts.append(f"the request body is not valid JSON ({err.get('ctx', {}).get('error', err['msg'])})")
        elif not loc and err.get("type") == "missing":
            parts.append('the request body is empty; send a JSON object like {"text": "..."}')
        elif not loc and isinstance(got, bytes | str):
            parts.append(
                'the request body must be JSON (Content-Type: application/json), an object like {"text": "..."}'
            )
        elif not loc:
            parts.append(f'the request body must be a JSON object like {{"text": "..."}}, got {type(got).__name__}')
        else:
            got_text = "" if err.get("type") == "missing" else f" (got {repr(got)[:60]})"
            parts.append(f"{'.'.join(loc) or 'body'}: {err['msg']}{got_text}")
    return "; ".join(parts) or "malformed request"


def _summarizer(pipeline: Pipeline, chunk_len: int) -> Callable[[list[str], DecodeOptions], list[dict | InputError]]:
    """The batcher's work: summarize a batch of texts with ``pipeline`` (chunks of ``chunk_len`` words)."""

    def summarize(texts: list[str], o: DecodeOptions) -> list[dict | InputError]:
        """Each text's response body, or the :class:`InputError` that refuses a text the model gives
        no summary of (``Summary.refusal``): a 422 naming why, never a 200 with an empty summary."""
        try:
            out = pipeline.summarize(texts, o)
        except UserError as e:  # "text 0: empty article ..." -> "text: empty article ..."
            raise InputError(re.sub(r"^text \d+: ", "text: ", str(e))) from e
        return [
            InputError(f"text: no summary: {s.refusal}")
            if s.refusal
            else summary_to_response(s, chunk_len=chunk_len, text=text, max_words=o.max_words)
            for s, text in zip(out, texts, strict=True)
        ]

    return summarize


async def _malformed(request: Request, exc: RequestValidationError) -> JSONResponse:
    """A request FastAPI could not validate: 422 naming each problem (:func:`_validation_message`)."""
    return JSONResponse(status_code=422, content={"detail": _validation_message(exc)})


async def _unparsable(request: Request, exc: StarletteHTTPException) -> Response:
    """FastAPI answers a body that ``json.loads`` cannot decode for another reason than bad JSON
    syntax (bytes that are not UTF-8, nesting deeper than Python's recursion limit) with 400
    "There was an error parsing the body": make it the 422 of every other malformed body."""
    cause = exc.__cause__
    if exc.status_code != 400 or cause is None:
        return await http_exception_handler(request, exc)
    if isinstance(cause, UnicodeDecodeError):
        why = f"not UTF-8 text ({cause.reason} at byte {cause.start})"
    elif isinstance(cause, RecursionError):
        why = "nested too deeply"
    else:
        why = type(cause).__name__
    return JSONResponse(status_code=422, content={"detail": f"the request body is not valid JSON: {why}"})


async def _bug(request: Request, exc: Exception) -> JSONResponse:
    """A bug, not the request's fault (those are :class:`~c2fsum.errors.UserError`, 422): 500,
    its traceback in the server's log."""
    log.error("%s %s: internal error", request.method, request.url.path, exc_info=exc)
    detail = f"internal error ({type(exc).__name__}); the server's log has its traceback"
    return JSONResponse(status_code=500, content={"detail": detail})


def _error(status: int, detail: str, headers: dict | None = None) -> JSONResponse:
    """An error answer: ``{"detail": detail}`` with ``status``."""
    return JSONResponse(status_code=status, content={"detail": detail}, headers=headers)


def _refused_text(text: str, settings: ServeSettings) -> JSONResponse | None:
    """The answer to a request whose text cannot be summarized at all (413 too long, 422 not valid
    Unicode or without anything but whitespace), else None."""
    if len(text) > settings.max_chars:
        return _error(
            413,
            f"text: {len(text)} characters; this server accepts at most {settings.max_chars} "
            "(start it with a larger `c2fsum serve --max-chars` to raise the limit)",
        )
    bad = _unpaired_surrogate(text)
    if bad is not None:
        return _error(422, f"text: not valid Unicode (unpaired surrogate U+{ord(text[bad]):04X} at character {bad})")
    if not text.strip():
        return _error(422, "text: empty or only whitespace, nothing to summarize")
    return None


def _health(pipeline: Pipeline, settings: ServeSettings, batcher: Batcher, defaults: DecodeDefaults) -> dict:
    """The ``/health`` body: the model, its grid and decoding ``defaults``, the server's limits and
    the batcher's counts."""
    cfg = pipeline.config
    M, N = cfg.data.chunks, cfg.data.chunk_len
    return {
        "status": "ok",
        "model": str(pipeline.path),
        "family": cfg.model.family,
        "grid": (M, N),
        "chunk_len": N,
        "hard": pipeline.model.capabilities.hard,
        "defaults": defaults.model_dump(),
        "limits": {
            "max_chars": settings.max_chars,
            "max_beam": settings.max_beam,
            "max_length": settings.max_length,
        },
        "waiting": batcher.waiting,
        "batches": batcher.batches,
        "documents": batcher.documents,
    }


def _add_routes(app: FastAPI, pipeline: Pipeline, batcher: Batcher, settings: ServeSettings) -> None:
    """Register the page at ``/``, ``GET /health`` and ``POST /summarize`` on ``app``."""

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    defaults = DecodeDefaults(**served_defaults(pipeline.defaults, settings).to_dict())  # a request leaving all out

    @app.get("/health", response_model=Health, summary="Liveness, model facts and the model's decoding defaults")
    async def health() -> dict:
        return _health(pipeline, settings, batcher, defaults)

    @app.post(
        "/summarize",
        response_model=SummarizeResponse,
        responses=_ERRORS,
        summary="Summarize one article and show where the model read",
    )
    async def summarize_endpoint(req: SummarizeRequest):
        refused = _refused_text(req.text, settings)
        if refused is not None:
            return refused
        try:
            options = request_options(pipeline.defaults, req, settings)
        except InputError as e:
            return _error(422, str(e))
        try:
            body = await batcher.submit(req.text, options, timeout=settings.timeout)
            if isinstance(body, InputError):
                return _error(422, str(body))
            return body
        except QueueFullError as e:
            return _error(503, str(e), headers={"Retry-After": "1"})
        except RequestTimeoutError as e:
            return _error(504, str(e))
        except UserError as e:  # what the request asked for; anything else is a bug: 500, traceback logged
            return _error(422, str(e).splitlines()[0] if str(e) else "text: cannot be summarized")


def create_app(model: Pipeline | str | Path, *, settings: ServeSettings | None = None, device: str = "cpu") -> FastAPI:
    """An ASGI app serving ``model`` (a loaded :class:`Pipeline` or a run directory, loaded once here)."""
    settings = settings or ServeSettings()
    pipeline = model if isinstance(model, Pipeline) else Pipeline(model, device=device)
    cfg = pipeline.config
    M, N = cfg.data.chunks, cfg.data.chunk_len
    batcher = Batcher(
        _summarizer(pipeline, N),
        max_batch=settings.max_batch,
        max_queue=settings.max_queue,
        batch_wait=settings.batch_wait,
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await batcher.start()
        log.info("serving %s (%s, grid %dx%d)", pipeline.path, cfg.model.family, M, N)
        yield
        await batcher.stop()

    app = FastAPIOffline(
        title="c2fsum",
        version=_version(),
        lifespan=lifespan,
        description="Abstractive summaries of long documents with coarse-to-fine attention "
        "(Ling & Rush 2017). The page at `/` shows which chunks the model reads for each word.",
    )
    app.state.pipeline, app.state.batcher, app.state.settings = pipeline, batcher, settings
    app.add_middleware(BodySizeLimit, max_bytes=settings.body_bytes)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.exception_handler(RequestValidationError)(_malformed)
    app.exception_handler(StarletteHTTPException)(_unparsable)
    app.exception_handler(Exception)(_bug)
    _add_routes(app, pipeline, batcher, settings)
    return app


def served_defaults(defaults: DecodeOptions, settings: ServeSettings, max_len: int | None = None) -> DecodeOptions:
    """What a request that leaves an option out gets: the model's ``defaults`` within the server's
    limits (beam and maximum length capped), with ``max_len`` if the request gives one; the
    model's minimum length capped at the maximum."""
    max_len = min(defaults.max_len, settings.max_length) if max_len is None else max_len
    return replace(
        defaults, beam=min(defaults.beam, settings.max_beam), max_len=max_len, min_len=min(defaults.min_len, max_len)
    )


def request_options(defaults: DecodeOptions, req: SummarizeRequest, settings: ServeSettings) -> DecodeOptions:
    """A request's decoding options: the model's (:func:`served_defaults`) with the request's
    fields applied and checked once (:meth:`DecodeOptions.override`). InputError naming the field."""
    given = req.options()
    for name, limit in (("beam", settings.max_beam), ("max_len", settings.max_length)):
        if given[name] is not None and given[name] > limit:
            raise InputError(f"{name}: {given[name]} is larger than this server allows ({limit})")
    return served_defaults(defaults, settings, given["max_len"]).override(**given)


def _unpaired_surrogate(text: str) -> int | None:
    """Index of the first lone surrogate code point (JSON ``"\\ud800"`` decodes to one), else None."""
    try:
        text.encode("utf-8")
        return None
    except UnicodeEncodeError as e:
        return e.start


def _version() -> str:
    from c2fsum import __version__

    return __version__
