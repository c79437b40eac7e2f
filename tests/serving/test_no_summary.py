"""Issue 49: a text the model gives no summary of is a 422 naming why, not a 200 with an empty
``"summary"`` (the shipped ``pubmed-rewrite`` copies or rewrites whole sentences: a one-word text,
headings only or a line without punctuation hold none)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from c2fsum.serving import create_app


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app("pubmed-rewrite")) as c:
        yield c


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("tuberculosis", "text: no summary: its 1 word holds no sentence end"),
        ("INTRODUCTION\n\nMETHODS\n\nRESULTS\n", "text: no summary: its 3 words hold no sentence end"),
    ],
)
def test_no_summary_is_a_422_that_says_why(client, text, said):
    r = client.post("/summarize", json={"text": text})
    assert r.status_code == 422 and r.json()["detail"].startswith(said), r.json()


def test_a_paper_still_gets_its_summary(client):
    text = (
        "Tuberculosis remains a leading cause of death from a single infectious agent worldwide. "
        "We treated 120 patients with the new drug daily for twelve weeks in the trial. "
        "The treatment reduced the bacterial load in most patients by the eighth week."
    )
    r = client.post("/summarize", json={"text": text})
    assert r.status_code == 200 and r.json()["summary"]
