"""What the page says about a summary agrees with the API and is true (issue 49): a sentence
selector's chunks read at the word level are those holding the sentences it picked (not every
chunk), a model that reads a text's first words says so and says the rest was cut, and the
heatmap of a long document never shows a chunk the summary did not read.

The page's words come from ``static/facts.js`` (pure functions of the /health and /summarize
responses), run here in node on the API's own responses (Starlette's TestClient); skipped where
node is not installed. tests/serving/test_page_in_browser.py drives the page itself.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient

from c2fsum.config import Config
from c2fsum.data.tokenize import preprocess_article
from c2fsum.data.vocab import Vocab
from c2fsum.decoding.options import DecodeOptions
from c2fsum.decoding.selection import MARKS, sentence_cells
from c2fsum.pipeline import Pipeline
from c2fsum.serving import ServeSettings, create_app
from c2fsum.serving.app import STATIC
from tiny import tiny_model

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed: the page's facts.js is not run")


def facts(fn: str, *args):
    """``facts.js``'s function ``fn`` applied to ``args`` (JSON), run in node."""
    script = (
        f"const f = require({json.dumps(str(STATIC / 'facts.js'))});"
        "let s = ''; process.stdin.on('data', (d) => { s += d; });"
        f"process.stdin.on('end', () => {{ console.log(JSON.stringify(f[{json.dumps(fn)}](...JSON.parse(s)))); }});"
    )
    done = subprocess.run([NODE, "-e", script], input=json.dumps(args), capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def post(client, body: dict) -> dict:
    r = client.post("/summarize", json=body)
    assert r.status_code == 200, r.text
    return r.json()


PAPER = " ".join(
    f"The {topic} study of group {k} measured the plasma levels in treated mice."
    for k in range(30)
    for topic in ("first", "second")
)
"""60 sentences of 14 tokens and a </s>: 113 chunks of 8 words."""


@pytest.fixture(scope="module")
def selector() -> Pipeline:
    """A sentence selector (select-rewrite, built, not trained) served with a budget of 30 words:
    it picks two or three of the paper's 60 sentences."""
    words = [w for s in preprocess_article(PAPER) for w in s]
    vocab = Vocab.from_tokens(words)
    cfg = Config()
    cfg = replace(cfg, model=replace(cfg.model, family="select-rewrite"), data=replace(cfg.data, chunk_len=8))
    p = Pipeline.__new__(Pipeline)  # what Pipeline(run_dir) holds, without a run directory
    p.model, p.config, p.vocab, p.path, p.device = (
        tiny_model("select-rewrite", len(vocab), seed=3),
        cfg,
        vocab,
        "sel",
        "cpu",
    )
    p.defaults, p._rewriter = DecodeOptions(max_len=30, min_len=20, beam=1), None
    return p


@needs_node
def test_a_selectors_chunks_read_at_the_word_level_are_those_of_its_picks(selector):
    with TestClient(create_app(selector)) as client:
        out = post(client, {"text": PAPER})
    m = len(out["chunks"])
    assert m == 113 and out["picked"] and out["grid"] == [m, 8]
    # the chunks that hold the picked sentences, not all 113 (before: fine_chunks listed every chunk)
    cells = sentence_cells([w for s in preprocess_article(PAPER) for w in s])
    held = sorted({c // 8 for p in out["picked"] for c in cells[p["sentence"]]})
    assert out["fine_chunks"] == held and len(held) < 10
    # and fine_fraction counts the words of those sentences (14 of each sentence's 15 cells)
    assert out["fine_fraction"] == pytest.approx(len(out["picked"]) / 60, abs=1e-5)
    assert facts("docInfo", out) == (
        f"the document: 113 chunks of 8 words ({out['words']:,} words) · read at the word level: "
        f"{len(held)} chunks ({round(100 * out['fine_fraction'], 1)}% of its words)"
    )
    heat = facts("heatmap", out, facts("chunkTotals", out))
    assert heat["columns"] == held
    assert heat["caption"] == f"summary words × the {len(held)} chunks read at the word level (of 113)"


@pytest.fixture(scope="module")
def first_words(served_run) -> Pipeline:
    """The tiny MODEL 2 with a model's own ``max_words`` 30, as cnndm-small reads its first 400."""
    p = Pipeline(served_run)
    p.defaults = replace(p.defaults, max_words=30)
    return p


@needs_node
def test_a_model_that_reads_the_first_words_says_so_and_that_the_rest_was_cut(first_words, articles):
    settings = ServeSettings(max_beam=2, max_length=14)
    with TestClient(create_app(first_words, settings=settings)) as client:
        health = client.get("/health").json()
        assert facts("modelReads", health) == "reads the first 30 words of a document in chunks of 20 words"
        text = articles[0]
        out = post(client, {"text": text, "beam": 1})
        assert out["cut"] is True and out["read_limit"] == 30 and out["text_words"] == len(text.split()) > 300
        assert len(out["chunks"]) == 2 and out["words"] <= 30
        info = facts("docInfo", out)
        assert info.startswith(
            f"the document: 2 chunks of 20 words ({out['words']} words) · cut: the model reads the first 30 "
            f"words of a text; this one has {len(text.split()):,}, the rest was not read · "
        ), info  # before: "reads whole documents", and no word of the cut
        whole = post(client, {"text": text, "beam": 1, "max_words": 0})
    assert whole["cut"] is False and whole["read_limit"] == 0 and len(whole["chunks"]) > 2
    assert "cut" not in facts("docInfo", whole)
    health["defaults"]["max_words"] = 0
    assert facts("modelReads", health) == "reads whole documents in chunks of 20 words"


def _long_result(read: dict[int, float], m: int = 60) -> dict:
    """A /summarize response over ``m`` chunks, all read at the word level (a soft model), whose
    two summary words put their attention on the chunks of ``read`` only."""
    row = [read.get(i, 0.0) for i in range(m)]
    return {
        "chunks": [f"chunk {i}" for i in range(m)],
        "attention": [row, row],
        "fine_chunks": list(range(m)),
        "fine_fraction": 1.0,
        "grid": [m, 40],
        "words": 40 * m,
        "cut": False,
        "read_limit": 0,
        "text_words": 40 * m,
    }


@needs_node
def test_the_heatmap_and_the_most_read_never_show_a_chunk_the_summary_did_not_read():
    """Of 60 chunks the summary read 5: before, "the 40 chunks most read" showed 35 unread ones (0.0%)."""
    out = _long_result({3: 0.5, 17: 0.2, 41: 0.15, 50: 0.1, 59: 0.00004})
    total = facts("chunkTotals", out)
    assert facts("heatmap", out, total) == {
        "columns": [3, 17, 41, 50, 59],
        "caption": "summary words × the 5 chunks read (of 60)",
    }
    assert facts("mostRead", total, 8) == [3, 17, 41, 50, 59]
    assert facts("pct", total[59]) == "<0.1%"  # read, a little: not "0.0%"
    # more than 40 chunks read: the 40 most read, none of them unread
    out = _long_result({i: 1 / 50 for i in range(50)})
    heat = facts("heatmap", out, facts("chunkTotals", out))
    assert heat["caption"] == "summary words × the 40 chunks most read (of 60)" and len(heat["columns"]) == 40
    assert set(heat["columns"]) <= set(range(50))


def test_the_page_loads_its_facts_before_its_script(client_page):
    html = client_page.get("/").text
    assert html.index("/static/facts.js") < html.index("/static/app.js")
    assert client_page.get("/static/facts.js").status_code == 200


@pytest.fixture(scope="module")
def client_page(selector):
    with TestClient(create_app(selector)) as c:
        yield c


def test_the_selectors_words_read_are_its_picks_words(selector):
    """``fine_fraction`` and ``fine_chunks`` count the same sentences: each picked sentence's
    words lie in the chunks listed, and no listed chunk is without a picked word."""
    s = selector.summarize(PAPER)[0]
    cells = sentence_cells(s.source)
    held = {c // 8 for j in s.picked for c in cells[j] if s.source[c] not in MARKS}
    assert s.fine_chunks == sorted(held)
