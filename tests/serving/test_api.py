"""The HTTP API in-process (Starlette's TestClient) on a tiny trained MODEL 2 (4 chunks x 20 words)."""

from __future__ import annotations

import json
import logging
import threading
import time

import pytest
import torch
from fastapi.testclient import TestClient

from c2fsum.config import decode_fields
from c2fsum.data.grid import flatten_sentences
from c2fsum.data.tokenize import preprocess_article
from c2fsum.errors import InputError
from c2fsum.pipeline import Pipeline
from c2fsum.serving import ServeSettings, create_app

LIMITS = ServeSettings(max_chars=6000, max_body_bytes=60_000, timeout=30, max_beam=4, max_length=30)


@pytest.fixture(scope="module")
def pipeline(served_run) -> Pipeline:
    return Pipeline(served_run)


@pytest.fixture(scope="module")
def client(pipeline):
    with TestClient(create_app(pipeline, settings=LIMITS)) as c:
        yield c


def post(client, body, **kw):
    """POST a JSON body (``json.dumps`` escapes lone surrogates, which httpx refuses to encode)."""
    return client.post(
        "/summarize", content=json.dumps(body).encode(), headers={"content-type": "application/json"}, **kw
    )


def test_health_names_the_model_and_its_grid(client, served_run):
    r = client.get("/health")
    assert r.status_code == 200
    h = r.json()
    assert h["status"] == "ok" and h["family"] == "model2" and h["grid"] == [4, 20]
    assert h["model"].startswith(str(served_run))
    # what the page starts from: the model's own decoding config (conftest), within the server's limits
    assert h["chunk_len"] == 20 and h["hard"] is False
    assert set(h["defaults"]) == set(decode_fields())  # every decoding option, by its name
    expected = {  # the conftest's decode config, within this server's limits
        "beam": 2,
        "max_len": 14,
        "min_len": 6,
        "length_norm": 0.0,
        "block_trigrams": True,
        "block_repeats": False,
        "replace_unk": False,
        "batch_size": 10,
        "read_chunks": 1,
        "read_budget": 1.0,
        "max_words": 0,
    }
    assert {k: h["defaults"][k] for k in expected} == expected
    assert h["limits"] == {"max_chars": 6000, "max_beam": 4, "max_length": 30}


def test_a_request_without_options_decodes_with_the_models_defaults(client, pipeline, articles):
    out = post(client, {"text": articles[2]}).json()
    ref = pipeline.summarize(articles[2])[0]
    assert out["tokens"] == ref.tokens and out["score"] == pytest.approx(ref.score, abs=1e-4)


def test_summary_chunks_and_attention_of_an_article(client, articles):
    text = articles[0]
    r = post(client, {"text": text, "beam": 2, "max_len": 12, "block_trigrams": True})
    assert r.status_code == 200, r.text
    out = r.json()
    tokens, chunks, att = out["tokens"], out["chunks"], out["attention"]
    assert 6 <= len(tokens) <= 12  # the fixture's min_len is 6
    # the summary a reader gets: the model's tokens rendered (c2fsum.decoding.render), never the tokens
    assert out["summary"] != " ".join(tokens) and out["summary"][0].isupper() and out["summary"][-1] in ".!?"
    assert "#" not in out["summary"] and " ." not in out["summary"] and "<unk>" not in out["summary"]
    # the whole tokenized article (no --max-words) in chunks of 20 words, without the </s> markers
    words = flatten_sentences(preprocess_article(text))
    assert len(words) > 80  # longer than the 4 x 20 grid the model was trained on
    expected = [" ".join(w for w in words[i : i + 20] if w != "</s>") for i in range(0, len(words), 20)]
    assert chunks == expected
    # one row per summary word, one weight per chunk, each row a distribution
    assert len(att) == len(tokens) and all(len(row) == len(expected) for row in att)
    assert all(abs(sum(row) - 1) < 1e-3 for row in att)
    # MODEL 2: word attention = coarse x fine with fine summing to 1 in each chunk,
    # so the mass read in a chunk is exactly its coarse weight
    assert out["coarse"] is not None
    assert torch.allclose(torch.tensor(att), torch.tensor(out["coarse"]), atol=2e-5)
    # the grid the document was read on (not the trained 4 x 20), all of it at the word level
    assert out["grid"] == [len(expected), 20] and isinstance(out["score"], float)
    assert out["words"] == len([w for w in words if w != "</s>"])
    assert out["fine_chunks"] == list(range(len(expected))) and out["fine_fraction"] == 1.0


def test_the_api_returns_what_the_pipeline_returns(client, pipeline, articles):
    text = articles[1]
    out = post(client, {"text": text, "beam": 3, "max_len": 10, "block_trigrams": False}).json()
    ref = pipeline.summarize(text, beam=3, max_len=10, block_trigrams=False, min_len=6)[0]
    assert out["tokens"] == ref.tokens and out["summary"] == ref.text and out["eos"] == ref.eos
    assert out["score"] == pytest.approx(ref.score, abs=1e-4)
    per_chunk = ref.attention[: len(ref.tokens)].sum(-1)[:, : len(out["chunks"])]
    assert torch.allclose(torch.tensor(out["attention"]), per_chunk, atol=1e-4)


def test_the_old_names_max_length_and_min_length_still_work(client, articles):
    """Clients written before the options had one spelling send ``max_length`` / ``min_length``."""
    new = post(client, {"text": articles[1], "beam": 2, "max_len": 9, "min_len": 7}).json()
    old = post(client, {"text": articles[1], "beam": 2, "max_length": 9, "min_length": 7}).json()
    assert old == new and len(new["tokens"]) >= 7
    r = post(client, {"text": "a b c", "max_length": 31})
    assert r.status_code == 422 and r.json()["detail"].startswith("max_len: 31 is larger than this server allows")


def test_a_short_text_has_fewer_chunks(client):
    r = post(
        client,
        {"text": "The bridge will close for three months. Drivers should use the tunnel.", "beam": 1, "max_len": 8},
    )
    out = r.json()
    assert r.status_code == 200 and out["chunks"] == [
        "the bridge will close for three months . drivers should use the tunnel ."
    ]
    assert all(row == [pytest.approx(1.0, abs=1e-4)] for row in out["attention"])


def test_batched_decoding_gives_each_document_its_single_decoding(pipeline, articles):
    """The server decodes waiting requests together; that must not change any summary."""
    together = pipeline.summarize(articles, beam=2, max_len=12)
    for text, batched in zip(articles, together, strict=True):
        alone = pipeline.summarize(text, beam=2, max_len=12)[0]
        assert batched.tokens == alone.tokens
        assert batched.score == pytest.approx(alone.score, abs=1e-4)


def test_concurrent_requests_each_get_their_own_summary(client, pipeline, articles):
    expected = {i: pipeline.summarize(articles[i % 3], beam=2, max_len=10)[0].tokens for i in range(3)}
    results: dict[int, tuple[int, list[str]]] = {}

    def worker(i):
        r = post(client, {"text": articles[i % 3], "beam": 2, "max_len": 10})
        results[i] = (r.status_code, r.json().get("tokens"))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(9)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(results) == list(range(9))
    assert all(results[i] == (200, expected[i % 3]) for i in range(9))


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({}, 422, "text: Field required"),
        ({"text": 5}, 422, "text: Input should be a valid string (got 5)"),
        ({"text": "   \n\t "}, 422, "text: empty or only whitespace"),
        ({"text": "a b c", "beam": 0}, 422, "beam: Input should be greater than or equal to 1 (got 0)"),
        ({"text": "a b c", "beam": 9}, 422, "beam: 9 is larger than this server allows (4)"),
        ({"text": "a b c", "max_len": 31}, 422, "max_len: 31 is larger than this server allows (30)"),
        ({"text": "a b c", "max_len": 5, "min_len": 6}, 422, "min_len: got 6, above the maximum summary length 5"),
        ({"text": "a b c", "read_budget": 0}, 422, "read_budget: Input should be greater than 0 (got 0)"),
        ({"text": "a b c", "block_trigrams": "maybe"}, 422, "block_trigrams: Input should be a valid boolean"),
        ({"text": "a b c", "beams": 2}, 422, "beams: Extra inputs are not permitted"),
        ({"text": "\ud800 x"}, 422, "text: not valid Unicode (unpaired surrogate U+D800 at character 0)"),
        (
            {"text": "x" * 6001},
            413,
            "text: 6001 characters; this server accepts at most 6000 (start it with a larger `c2fsum serve "
            "--max-chars`",
        ),
    ],
)
def test_bad_requests_get_a_clear_4xx(client, body, status, message):
    r = post(client, body)
    assert r.status_code == status
    assert r.json()["detail"].startswith(message), r.json()


@pytest.mark.parametrize(
    ("content", "ctype", "message"),
    [
        (b'{"text": "unclosed', "application/json", "the request body is not valid JSON"),
        (  # not a 400 "There was an error parsing the body" (issue 27 campaign)
            b'{"text": "The \xff bridge."}',
            "application/json",
            "the request body is not valid JSON: not UTF-8 text (invalid start byte at byte 14)",
        ),
        (b"[" * 10_000, "application/json", "the request body is not valid JSON: nested too deeply"),
        (b"[1, 2]", "application/json", 'the request body must be a JSON object like {"text": "..."}, got list'),
        (b"\xff\xfe\x00binary", "application/octet-stream", "the request body must be JSON"),
        (b"", "application/json", 'the request body is empty; send a JSON object like {"text": "..."}'),
    ],
)
def test_malformed_bodies_get_422(client, content, ctype, message):
    r = client.post("/summarize", content=content, headers={"content-type": ctype})
    assert r.status_code == 422 and r.json()["detail"].startswith(message), r.text


def test_oversized_bodies_get_413_before_parsing(client):
    big = json.dumps({"text": "word " * 20_000}).encode()  # 100 kB > 60 kB
    r = client.post("/summarize", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert r.json()["detail"] == (
        f"request body is {len(big)} bytes; this server accepts at most 60000"
        " (start it with a larger `c2fsum serve --max-chars` to raise the limit)"  # the setting that raises it
    )

    def chunked():  # no Content-Length: counted while read
        for _ in range(10):
            yield b"x" * 10_000

    r = client.post("/summarize", content=chunked(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and "this server accepts at most 60000" in r.json()["detail"]


def test_wrong_method_and_path(client):
    assert client.get("/summarize").status_code == 405
    assert client.post("/nowhere", json={}).status_code == 404


def test_the_cli_reading_options_reach_the_pipeline(client, pipeline, articles):
    """`max_words`, `replace_unk` and `read_chunks` do what `c2fsum summarize` does with them."""
    text = articles[0]
    out = post(client, {"text": text, "beam": 2, "max_len": 10, "max_words": 20}).json()
    ref = pipeline.summarize(text, beam=2, max_len=10, max_words=20)[0]
    assert out["tokens"] == ref.tokens and len(out["chunks"]) == 1  # the first 20 words: one chunk
    out = post(client, {"text": text, "beam": 2, "max_len": 10, "replace_unk": True}).json()
    ref = pipeline.summarize(text, beam=2, max_len=10, replace_unk=True)[0]
    assert out["tokens"] == ref.tokens and out["summary"] == ref.text
    r = post(client, {"text": text, "read_chunks": 2})  # the served model is a MODEL 2
    assert r.status_code == 422
    assert r.json()["detail"] == "read_chunks=2: chunks per step are chosen by MODEL 3's hard attention only"
    r = post(client, {"text": text, "read_chunks": 0})
    assert r.status_code == 422 and r.json()["detail"].startswith(
        "read_chunks: Input should be greater than or equal to 1"
    )
    whole = post(client, {"text": text, "beam": 2, "max_len": 10}).json()
    assert post(client, {"text": text, "beam": 2, "max_len": 10, "max_words": 0}).json() == whole  # 0: all


def test_the_request_options_are_passed_as_given(pipeline, monkeypatch):
    seen = {}

    def spy(texts, options):
        seen.update(options.to_dict())
        raise InputError("text 0: stop here")

    monkeypatch.setattr(pipeline, "summarize", spy)
    with TestClient(create_app(pipeline, settings=LIMITS)) as c:
        body = {"text": "a b c", "beam": 1, "max_len": 5, "read_chunks": 3, "replace_unk": True, "max_words": 7}
        r = post(c, body)
    assert r.status_code == 422 and r.json()["detail"] == "text: stop here"
    assert (seen["read_chunks"], seen["replace_unk"], seen["max_words"]) == (3, True, 7)


def test_a_bug_is_a_500_with_its_traceback_logged(pipeline, monkeypatch, caplog):
    """Only the project's user errors are the request's fault (422); a ValueError from a bug is not."""

    def bug(texts, options):
        raise ValueError("a bug deep in the decoder")

    monkeypatch.setattr(pipeline, "summarize", bug)
    with TestClient(create_app(pipeline, settings=LIMITS), raise_server_exceptions=False) as c:
        with caplog.at_level(logging.ERROR, logger="c2fsum.serving.app"):
            r = post(c, {"text": "The bridge will close.", "beam": 1, "max_len": 5})
    assert r.status_code == 500
    assert r.json()["detail"] == "internal error (ValueError); the server's log has its traceback"
    (record,) = [rec for rec in caplog.records if rec.name == "c2fsum.serving.app"]
    assert record.exc_info is not None and "a bug deep in the decoder" in caplog.text
    assert "Traceback" in caplog.text and "in bug" in caplog.text


def _slow(pipeline, monkeypatch, seconds):
    real = pipeline.summarize

    def slow(*args, **kw):
        time.sleep(seconds)
        return real(*args, **kw)

    monkeypatch.setattr(pipeline, "summarize", slow)


def test_a_request_over_the_timeout_gets_504(pipeline, monkeypatch):
    _slow(pipeline, monkeypatch, 1.0)
    settings = ServeSettings(timeout=0.2, batch_wait=0.0)
    with TestClient(create_app(pipeline, settings=settings)) as c:
        t0 = time.perf_counter()
        r = post(c, {"text": "The bridge will close.", "beam": 1, "max_len": 5})
        assert r.status_code == 504 and r.json()["detail"] == "the request took longer than 0.2 s and was abandoned"
        assert time.perf_counter() - t0 < 0.9  # answered at the timeout, not when decoding ended


def test_a_full_queue_gets_503_with_retry_after(pipeline, monkeypatch):
    _slow(pipeline, monkeypatch, 0.6)
    settings = ServeSettings(max_queue=1, max_batch=1, batch_wait=0.0)
    statuses: list[int] = []
    with TestClient(create_app(pipeline, settings=settings)) as c:

        def worker():
            statuses.append(post(c, {"text": "The bridge will close.", "beam": 1, "max_len": 5}).status_code)

        threads = [threading.Thread(target=worker) for _ in range(2)]  # one decoding, one waiting
        for t in threads:
            t.start()
            time.sleep(0.15)
        r = post(c, {"text": "One too many.", "beam": 1, "max_len": 5})
        for t in threads:
            t.join(10)
    assert r.status_code == 503 and r.headers["retry-after"] == "1"
    assert r.json()["detail"] == "the server is busy: 1 requests are already waiting; retry later"
    assert statuses == [200, 200]


def test_openapi_schema_and_offline_docs(client):
    schema = client.get("/openapi.json").json()
    body = schema["paths"]["/summarize"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    ref = body["$ref"].rsplit("/", 1)[-1]
    assert {"text", "beam", "max_len", "block_trigrams"} <= set(schema["components"]["schemas"][ref]["properties"])
    assert {"413", "422", "503", "504"} <= set(schema["paths"]["/summarize"]["post"]["responses"])
    docs = client.get("/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()
    assert "cdn.jsdelivr" not in docs.text and "unpkg" not in docs.text  # works without internet


def test_the_page_and_its_assets_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for ref in ('id="article"', 'id="summary"', 'id="chunks"', 'id="heatmap"', "/static/app.js", "/static/style.css"):
        assert ref in page.text
    js = client.get("/static/app.js")
    assert js.status_code == 200 and 'fetch("/summarize"' in js.text
    assert client.get("/static/style.css").status_code == 200


def test_the_api_takes_every_option_the_cli_does(client, pipeline, articles):
    """replace_unk, read_chunks and max_words as well as beam, lengths and trigram blocking."""
    body = {"text": articles[0], "beam": 2, "max_len": 10, "replace_unk": True, "max_words": 30}
    out = post(client, body).json()
    ref = pipeline.summarize(articles[0], beam=2, max_len=10, min_len=6, replace_unk=True, max_words=30)[0]
    assert out["tokens"] == ref.tokens and len(out["chunks"]) == 2  # 30 words: two chunks of 20
    r = post(client, {"text": articles[0], "read_chunks": 2})  # MODEL 2 reads every chunk softly
    assert r.status_code == 422 and "MODEL 3" in r.json()["detail"]
    r = post(client, {"text": articles[0], "max_words": -1})
    assert r.status_code == 422 and r.json()["detail"].startswith("max_words: Input should be greater than or equal")
