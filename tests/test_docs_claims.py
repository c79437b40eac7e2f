"""Claims in the docs that the code decides: kept in step with it."""

from pathlib import Path

import pytest

from c2fsum.training import trainer

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_full_scale_doc_says_the_batch_is_global_as_the_trainer_does():
    """``train.batch_size`` is the global batch (documents per optimizer step on any number of
    processes, tests/training/test_distributed.py); the GPU guide must not say it is per GPU."""
    assert "``train.batch_size`` is the global batch" in " ".join((trainer.__doc__ or "").split())
    text = " ".join((DOCS / "full-scale.md").read_text(encoding="utf-8").split())
    assert "`train.batch_size` is the *global* batch" in text
    for stale in ("each with a batch of 20", "global batch is 20 x N", "per-GPU batch", "issue 7 is building"):
        assert stale not in text, stale


@pytest.mark.parametrize("doc", ["full-scale.md", "distributed.md"])
def test_docs_do_not_call_distributed_training_unfinished(doc):
    text = (DOCS / doc).read_text(encoding="utf-8").lower()
    assert "still being built" not in text and "is building" not in text


ROOT = DOCS.parent


def _prose(path: Path) -> str:
    return " ".join(path.read_text(encoding="utf-8").split())


def test_the_defaults_the_readme_and_serving_doc_state_are_the_servers_and_the_cards():
    """Issue 39: the README gave the PubMed models' minimum length as 40 and as 200, docs/serving.md
    capped max_length at 200 (the server: 400) and captioned the page "40-100 tokens, 3 chunks read
    per step" (the model: 200-300, 2). Each figure read out of the docs is compared with what
    /health answers and what the cards say."""
    import re

    from fastapi.testclient import TestClient

    import c2fsum
    from c2fsum.pretrained.registry import PRETRAINED_DIR
    from c2fsum.serving import ServeSettings, create_app

    def health(name: str) -> dict:
        with TestClient(create_app(c2fsum.load(name))) as client:
            return client.get("/health").json()

    def card_lengths(name: str) -> tuple[int, int]:
        card = (PRETRAINED_DIR / name / "README.md").read_text(encoding="utf-8")
        m = re.search(r"^\| decoding defaults \| beam \d+, (\d+)-(\d+) tokens", card, flags=re.M)
        assert m, name
        return int(m[1]), int(m[2])

    h = {name: health(name) for name in ("cnndm-small", "pubmed-model0", "pubmed-model3")}
    lengths = {name: (d["defaults"]["min_len"], d["defaults"]["max_len"]) for name, d in h.items()}
    assert lengths == {name: card_lengths(name) for name in h}

    guide = _prose(DOCS / "guide.md")  # (the README's long sections, issue 49)
    m = re.search(
        r"Default lengths: `cnndm-small` (\d+)-(\d+) tokens, `pubmed-model0` and `pubmed-model3` (\d+)-(\d+) "
        r".*?, `pubmed-rewrite` at most (\d+)",
        guide,
    )
    assert m, "docs/guide.md: no 'Default lengths' sentence"
    assert (int(m[1]), int(m[2])) == lengths["cnndm-small"]
    assert (int(m[3]), int(m[4])) == lengths["pubmed-model0"] == lengths["pubmed-model3"]
    assert int(m[5]) == card_lengths("pubmed-rewrite")[1]  # issue 49: "the PubMed models 200-300" (it: 207)
    said = re.findall(r"`pubmed-model0` and `pubmed-model3`: (\d+)", guide)
    assert said and all(int(a) == lengths["pubmed-model3"][0] for a in said), said
    assert not re.search(r"the PubMed models:? \d", _prose(ROOT / "README.md") + guide)

    serving = _prose(DOCS / "serving.md")
    cap = re.search(
        r"`max_len` is capped at (\d+) \(the server's `max_length` limit\) and `beam` at (\d+) by default", serving
    )
    assert cap and (int(cap[1]), int(cap[2])) == (ServeSettings().max_length, ServeSettings().max_beam)
    assert h["pubmed-model3"]["limits"]["max_length"] == ServeSettings().max_length
    caption = re.search(
        r"`pubmed-model3` .*?model's defaults \(beam (\d+), (\d+)-(\d+) tokens, (\d+) chunks read per step\)", serving
    )
    assert caption, "docs/serving.md: no caption of the page's defaults"
    d = h["pubmed-model3"]["defaults"]
    assert tuple(map(int, caption.groups())) == (d["beam"], d["min_len"], d["max_len"], d["read_chunks"])
    for m in re.finditer(r"`decode.read_chunks`: (\d+) for `pubmed-model3`", serving):
        assert int(m[1]) == d["read_chunks"]


def test_the_demo_and_the_top_level_help_say_what_the_results_and_the_code_do():
    """Issue 39: the demo called pubmed-model3 "0.6 below ILP" (docs/results.md: 6.51 below), and
    the top-level help said prepare tokenizes "CNN/DailyMail" (any JSONL, CSV, Parquet or .story)."""
    import re

    from c2fsum.cli.main import build_parser

    results = _prose(DOCS / "results.md")
    gap = re.search(r"\| `pubmed-model3` - ILP \| -([\d.]+) \[", results)
    assert gap
    demo = _prose(ROOT / "scripts" / "demo.sh")
    assert f"{gap[1]} [" in demo and "0.6 below ILP" not in demo
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    prepare = next(c for c in sub._choices_actions if c.dest == "prepare")  # type: ignore[attr-defined]
    assert "SumPubMed" in prepare.help and "JSONL" in prepare.help


README = ROOT / "README.md"


def test_the_readme_is_short_and_names_every_shipped_model():
    """Issue 49: the README was 403 lines and its "Trained models by name" omitted
    ``pubmed-rewrite``, the model to read first. It is at most 150 lines, names every shipped
    model, says which to read first, and links the docs it leaves the details to."""
    from c2fsum.pretrained.registry import SHIPPED

    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    missing = [name for name in SHIPPED if f"`{name}`" not in text]
    assert not missing, missing
    assert "`pubmed-rewrite`: **the model to read first.**" in text
    for link in ("docs/guide.md", "docs/results.md", "docs/select-rewrite.md"):
        assert f"]({link})" in text and (ROOT / link).is_file(), link


def test_the_readme_states_no_figure_and_no_test_count():
    """Issue 49: the README stated 1,112 tests, ILP as 47.79 and as 47.59, "in training" models:
    figures go stale. It states none (no decimal figure, no count of tests, no speed-up, no
    share of a paper read); docs/results.md and the model cards hold them."""
    import re

    prose = _prose(README)
    stale = [
        *re.findall(r"(?<![-\w.])(?<!>= )\d+\.\d+\b", prose),  # ROUGE, seconds, intervals (not Python >= 3.11)
        *re.findall(r"[\d,]+ tests\b", prose),
        *re.findall(r"\b\d+(?:\.\d+)?x (?:faster|slower)", prose),
        *re.findall(r"\b\d+% of\b", prose),
        *re.findall(r"\bin training\b|\bto read today\b", prose),
    ]
    assert not stale, stale


def _readme_rooms() -> list[str]:
    """The rooms the README's map names, in its order (``data/`` -> ``data``, ``config.py`` -> ``config``)."""
    import re

    text = README.read_text(encoding="utf-8")
    block = text[text.index("## Rooms") :]
    block = block[block.index("```\n") + 4 :]
    block = block[: block.index("```")]
    return [re.sub(r"(/|\.py)$", "", line.split()[0]) for line in block.splitlines() if line[:1].strip()]


def test_the_readme_map_of_rooms_is_the_ranks_of_test_layers():
    """Issue 49: the README's layout omitted ``baselines/``, ``select_rewrite.py``, ``selection.py``,
    ``render.py``, ``layout.py``. Its map names every room of ``tests/test_layers.py`` that exists,
    in rank order (a room of a lower rank never after one of a higher), and the files named above."""
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    from test_layers import RANK, SRC

    rooms = _readme_rooms()
    present = [r for r in RANK if (SRC / r).is_dir() or (SRC / f"{r}.py").is_file()]
    assert sorted(set(present) - set(rooms)) == [], "rooms missing from the README's map"
    ranks = [RANK[r] for r in rooms if r in RANK]
    assert ranks == sorted(ranks), list(zip(rooms, ranks, strict=False))
    text = README.read_text(encoding="utf-8")
    for named in ("select_rewrite.py", "selection.py", "render.py", "layout.py"):
        assert named in text and list(SRC.rglob(named)), named
