"""Hostile text: random Unicode, control characters, empty and whitespace-only text, a single
1,000,000-word line, binary data and mixed encodings fed to ``prepare`` and to
``c2fsum.load(...).summarize``. Each gives a summary or a clear error naming the text, file or
line; nothing else crashes, the other documents go on, and memory stays bounded.

(The 1,000,000-word line through ``prepare`` takes seconds: its time and peak memory are in
``bench/hostile_input.py``; here ``prepare`` gets a 50,000-word line.)
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import c2fsum
import tiny
from c2fsum.cli.main import main
from c2fsum.data.prepare import prepare

TINY = [
    *tiny.TINY,
    "data.vocab_size=500",
    "decode.max_len=6",
    "decode.beam=2",
]
WHITESPACE = " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2007\u200a\u2028\u2029\u202f\u205f\u3000"
INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"


def _mixed(parts: tuple[str, str]) -> str:
    """UTF-8 bytes followed by Latin-1 / CP1252 bytes, decoded as UTF-8 the forgiving ways."""
    raw = parts[0].encode("utf-8") + parts[1].encode("cp1252", "replace")
    return raw.decode("utf-8", "surrogateescape")


hostile = st.one_of(
    st.text(max_size=400),  # any Unicode (no surrogates)
    st.text(st.characters(categories=["Cc", "Cf", "Co", "Cs", "Zl", "Zp", "Zs", "Mn"]), max_size=200),
    st.text(alphabet=WHITESPACE + INVISIBLE, max_size=60),  # empty / whitespace only
    st.binary(max_size=400).map(lambda b: b.decode("latin-1")),  # binary read as Latin-1
    st.binary(max_size=400).map(lambda b: b.decode("utf-8", "surrogateescape")),  # binary with lone surrogates
    st.tuples(st.text(max_size=100), st.text(max_size=100)).map(_mixed),  # mixed encodings
    st.lists(
        st.sampled_from(
            [
                "the",
                "</s>",
                "<unk>",
                "-lrb-",
                "''",
                "``",
                "#",
                "...",
                "http://x.y/z?a=1",
                "\x00",
                "\u202e",
                "e\u0301",
                "\U0001f600",
                "\ufffd",
                "n't",
                "'s",
                "<pad>",
            ]
        ),
        max_size=80,
    ).map(" ".join),  # tokens that mean something
)


@pytest.fixture(scope="module")
def model(prepared_small, tmp_path_factory):
    out = tmp_path_factory.mktemp("hostile") / "run"
    return c2fsum.load(tiny.train_tiny(prepared_small, out, TINY + ["train.max_steps=1"]))


def _summarize_or_clear_error(model, text: str) -> None:
    try:
        out = model.summarize(["A normal first article about the city council.", text], beam=2, max_len=6)
    except ValueError as e:
        assert str(e).startswith("text 1: empty article"), e  # names the text, says what is wrong
        return
    assert len(out) == 2 and all(isinstance(s.text, str) for s in out)
    json.dumps([s.to_json() for s in out])  # serializable (the API and --attention-out)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=hostile)
def test_summarize_gives_a_summary_or_a_clear_error(model, text):
    _summarize_or_clear_error(model, text)


@pytest.mark.parametrize("text", ["", " ", "\n\n\t", WHITESPACE, INVISIBLE, "\ufeff \u200b"])
def test_empty_and_whitespace_only_text_is_a_clear_error(model, text):
    with pytest.raises(ValueError, match="text 1: empty article, nothing to summarize"):
        model.summarize(["Fine text.", text], beam=1)


def test_a_single_million_word_line_is_summarized_in_bounded_memory(model):
    text = " ".join(["word"] * 1_000_000)  # 5 MB, one line, no sentence end
    tracemalloc.start()
    try:
        out = model.summarize([text], beam=2, max_len=6)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # whole documents are read (issue 5) up to the pipeline's safety bound of 100,000 words
    assert out[0].source[:3] == ["word", "word", "word"] and 100_000 <= len(out[0].source) <= 100_001
    assert peak < 100 * 2**20, f"peak Python memory {peak / 2**20:.1f} MiB"  # a prefix is read, not the text


def test_non_str_input_is_a_clear_error(model):
    with pytest.raises(ValueError, match="text 0: expected a str, got bytes"):
        model.summarize([b"bytes are not text"])


def test_the_cli_refuses_binary_and_mixed_encoding_files_by_name(model, tmp_path, capsys):
    for name, data in [("binary.bin", bytes(range(256)) * 4), ("mixed.txt", "caf\u00e9 ".encode() + b"na\xefve")]:
        f = tmp_path / name
        f.write_bytes(data)
        assert main(["-q", "summarize", "--model", str(model.path), str(f)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"{f}: not UTF-8 text" in err[0], err


# -- prepare ----------------------------------------------------------------------------------------------
GOOD = {
    "id": "good",
    "article": "The council met on Monday. It voted to build a new bridge over the river.",
    "highlights": "Council votes for a new bridge.",
}


def _prepare_lines(folder: Path, lines: list[bytes]) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "in").mkdir(exist_ok=True)
    (folder / "in" / "train.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return prepare(folder / "in" / "train.jsonl", folder / "out", vocab_size=1000, workers=1, progress=False)


def _accounted(stats: dict) -> int:
    s = stats["splits"]["train"]
    return s["documents"] + sum(s["dropped"].values()) + sum(s["skipped"].values())


@settings(max_examples=25, deadline=None)
@given(article=hostile, highlights=hostile)
def test_prepare_keeps_good_documents_and_accounts_for_every_hostile_one(tmp_path_factory, article, highlights):
    folder = tmp_path_factory.mktemp("p")
    bad = json.dumps({"id": "hostile", "article": article, "highlights": highlights}).encode()
    stats = _prepare_lines(folder, [json.dumps(GOOD).encode(), bad, json.dumps({**GOOD, "id": "good2"}).encode()])
    assert stats["splits"]["train"]["documents"] >= 2 and _accounted(stats) == 3  # nothing dropped silently
    ids = [json.loads(x)["id"] for x in (folder / "out" / "train.jsonl").read_text(encoding="utf-8").splitlines()]
    assert ids[0] == "good" and ids[-1] == "good2"


def test_prepare_reports_binary_and_mixed_encoding_lines_and_goes_on(tmp_path, caplog):
    lines = [
        json.dumps(GOOD).encode(),
        b'{"id": "latin1", "article": "na\xefve caf\xe9", "highlights": "x"}',  # Latin-1 inside UTF-8 JSON
        bytes(b for b in range(256) if b != 10),  # binary garbage, one line
        b"\x00" * 64,  # NUL bytes
        json.dumps({**GOOD, "id": "lone", "article": "bad \udc80 surrogate"}).encode(),  # escaped lone surrogate
        json.dumps({**GOOD, "id": "empty", "article": " \t "}).encode(),
        json.dumps({**GOOD, "id": "good2"}).encode(),
    ]
    stats = _prepare_lines(tmp_path, lines)
    s = stats["splits"]["train"]
    assert s["documents"] >= 2 and _accounted(stats) == len(lines), s
    log = caplog.text
    assert "train.jsonl:2: skipped (not_utf8)" in log and "train.jsonl:3: skipped" in log, log
    assert "train.jsonl:6: dropped (empty_article)" in log or s["dropped"], log


def test_prepare_a_50k_word_single_line(tmp_path):
    doc = {**GOOD, "id": "long", "article": " ".join(["word"] * 50_000)}
    stats = _prepare_lines(tmp_path, [json.dumps(doc).encode()])
    assert stats["splits"]["train"]["documents"] == 1 and stats["splits"]["train"]["words"] == 50_000
