"""Each shipped model decodes, by default, with what its card says it was trained and measured with
(issue 39): the card's "decoding defaults" row and the settings of its test scores are the model's
defaults through the Python API, the CLI and the HTTP server alike; every shipped model blocks
back-to-back repeats; the models trained on a document's first 400 words read those by default."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import c2fsum
from c2fsum.cli.main import main
from c2fsum.pretrained.registry import PRETRAINED_DIR, shipped_names
from c2fsum.serving import create_app

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_pubmed_models import PAPER  # noqa: E402  (a made-up 1,840-word paper)

NAMES = shipped_names()


def card_row(name: str) -> dict:
    """The card's "decoding defaults" row, e.g. ``beam 4, 200-300 tokens, trigram blocking, repeat
    blocking, 2 chunks read per step, whole documents``, as option values."""
    card = (PRETRAINED_DIR / name / "README.md").read_text(encoding="utf-8")
    row = re.search(r"^\| decoding defaults \| (.*) \|$", card, flags=re.M)
    assert row, f"{name}: the card has no decoding defaults row"
    parts = [p.strip() for p in row[1].split(",")]
    beam = re.fullmatch(r"beam (\d+)", parts[0])
    lengths = re.fullmatch(r"(\d+)-(\d+) tokens", parts[1])
    assert beam and lengths, parts
    chunks = next((int(m[1]) for p in parts if (m := re.fullmatch(r"(\d+) chunks read per step", p))), 1)
    words = next((int(m[1]) for p in parts if (m := re.fullmatch(r"first (\d+) words", p))), None)
    assert words is not None or "whole documents" in parts, f"{name}: the row says not what the model reads"
    return {
        "beam": int(beam[1]),
        "min_len": int(lengths[1]),
        "max_len": int(lengths[2]),
        "block_trigrams": "trigram blocking" in parts,
        "block_repeats": "repeat blocking" in parts,
        "read_chunks": chunks,
        "max_words": words or 0,
    }


def card_measured(name: str) -> dict:
    """The settings the card's test scores were measured with ("beam 4 with trigram blocking and
    repeat blocking, 2 chunks read per step, whole documents")."""
    card = (PRETRAINED_DIR / name / "README.md").read_text(encoding="utf-8")
    line = re.search(r"^On [\d,]+ documents of the test split, (.*?); perplexity", card, flags=re.M)
    assert line, f"{name}: the card does not say how its scores were measured"
    text = line[1]
    words = re.search(r"first (\d+) words", text)
    chunks = re.search(r"(\d+) chunks read per step", text)
    return {
        "beam": int(re.match(r"beam (\d+)", text)[1]),  # type: ignore[index]
        "block_trigrams": "trigram blocking" in text,
        "block_repeats": "repeat blocking" in text,
        "read_chunks": int(chunks[1]) if chunks else 1,
        "max_words": int(words[1]) if words else 0,
    }


@pytest.fixture(scope="module", params=NAMES)
def shipped(request):
    return request.param, c2fsum.load(request.param)


def test_the_api_defaults_are_the_cards(shipped):
    name, model = shipped
    row, measured = card_row(name), card_measured(name)
    got = {k: getattr(model.defaults, k) for k in row}
    assert got == row
    assert {k: row[k] for k in measured} == measured  # the defaults are what the scores were measured with
    assert model.defaults.block_repeats, f"{name} lets a word follow itself ('helped her her')"


def test_the_server_defaults_are_the_cards(shipped):
    name, model = shipped
    row = card_row(name)
    with TestClient(create_app(model)) as client:
        d = client.get("/health").json()["defaults"]
    assert d == {  # every decoding option by its one name (config.DecodeConfig)
        "beam": row["beam"],
        "max_len": row["max_len"],
        "min_len": row["min_len"],
        "length_norm": model.defaults.length_norm,
        "block_trigrams": row["block_trigrams"],
        "block_repeats": row["block_repeats"],
        "replace_unk": model.defaults.replace_unk,
        "batch_size": model.defaults.batch_size,
        "read_chunks": row["read_chunks"] if model.model.capabilities.hard else model.defaults.read_chunks,
        "read_budget": model.defaults.read_budget,
        "max_words": row["max_words"],
        "rewrite_min_share": model.defaults.rewrite_min_share,
    }


def test_pubmed_model0_reads_the_first_400_words_through_cli_api_and_server(tmp_path):
    """The issue's case: a 1,840-word paper is read as its first 400 words (10 chunks), not as 47
    chunks, unless the caller asks for more; the three ways in read alike."""
    model = c2fsum.load("pubmed-model0")
    paper = tmp_path / "paper.txt"
    paper.write_text(PAPER, encoding="utf-8")
    out = tmp_path / "attention.json"
    assert main(["-q", "summarize", "--model", "pubmed-model0", "--attention-out", str(out), str(paper)]) == 0
    (cli,) = json.loads(out.read_text(encoding="utf-8"))
    api = model.summarize([PAPER])[0]
    with TestClient(create_app(model)) as client:
        served = client.post("/summarize", json={"text": PAPER}).json()
    words = [w for w in api.source if w != "</s>"]
    assert len(api.source) <= 400 and api.attention.shape[1:] == (10, 40)  # the grid's cells hold the </s> marks too
    assert cli["source"] == api.source and cli["tokens"] == api.tokens
    assert served["words"] == len(words) and served["grid"] == [10, 40] and served["tokens"] == api.tokens
    whole = model.summarize([PAPER], max_words=0)[0]  # asked for: the whole paper
    assert len([w for w in whole.source if w != "</s>"]) > 1800


def test_no_shipped_model_writes_a_word_twice_in_a_row():
    """cnndm-small wrote "For for the Malaysian Prix" and "helped her her" with repeat blocking off."""
    articles = [
        "(CNN) -- Her coach said the win helped her in the final. She won the race by one second. "
        "For the Malaysian Grand Prix, she will start from the front row, one second ahead of her rival.",
        PAPER[:4000],
    ]
    for name in NAMES:
        for s in c2fsum.load(name).summarize(articles):
            words = s.tokens
            assert not [w for a, w in zip(words, words[1:], strict=False) if a == w], (name, s.tokens)
