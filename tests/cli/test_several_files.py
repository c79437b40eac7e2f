"""``c2fsum extract|summarize A.txt B.txt ...``: several files in one call on real documents; a
bad file is named on stderr, the others are still summarized, and the exit status is 2."""

from __future__ import annotations

import gzip
import json

import pytest

from c2fsum.cli.main import main
from shared_data import DATA, need_real, read_raw

pytestmark = pytest.mark.real_data


def _papers(n: int) -> list[str]:
    with gzip.open(need_real(DATA / "pubmed" / "val.jsonl.gz"), "rt") as f:
        return [json.loads(next(f))["article"] for _ in range(n)]


def _inputs(tmp_path, texts: list[str]) -> tuple[list[str], str, str]:
    """The texts as files, a missing file and a file that is not UTF-8."""
    paths = []
    for i, text in enumerate(texts):
        (tmp_path / f"doc{i}.txt").write_text(text, encoding="utf-8")
        paths.append(str(tmp_path / f"doc{i}.txt"))
    (tmp_path / "latin1.txt").write_bytes("Caf\xe9 au lait, na\xefve r\xe9sum\xe9.".encode("latin-1"))
    return paths, str(tmp_path / "missing.txt"), str(tmp_path / "latin1.txt")


def test_extract_several_files_and_bad_ones(tmp_path, capsys):
    (a, b), missing, latin1 = _inputs(tmp_path, _papers(2))
    alone = []
    for path in (a, b):
        assert main(["-q", "extract", "--words", "120", path]) == 0
        alone.append(capsys.readouterr().out)
    assert main(["-q", "extract", "--words", "120", a, missing, latin1, b]) == 2
    out, err = capsys.readouterr()
    assert out == f"==> {a} <==\n{alone[0]}\n==> {b} <==\n{alone[1]}"  # as one at a time, under headers
    assert err.splitlines() == [
        f"c2fsum extract: error: {missing}: no such file",
        f"c2fsum extract: error: {latin1}: not UTF-8 text (invalid continuation byte at byte 3)",
        f"c2fsum extract: 2 of 4 files failed: {missing}, {latin1}",
    ]
    assert main(["-q", "extract", "--json", "--words", "120", a, missing, b]) == 2
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["file"] for r in rows] == [a, b]
    assert [r["text"] + "\n" for r in rows] == alone
    assert main(["-q", "extract", "--words", "120", b]) == 0 and capsys.readouterr().out == alone[1]  # no header


def test_summarize_several_files_loads_the_model_once(tmp_path, capsys, monkeypatch):
    import c2fsum

    texts = [d["article"] for d in read_raw("test", 2, real=True)]
    (a, b), missing, _ = _inputs(tmp_path, texts)
    loads = []
    load = c2fsum.load
    monkeypatch.setattr(c2fsum, "load", lambda *args, **kw: loads.append(1) or load(*args, **kw))
    flags = ["-q", "summarize", "--model", "cnndm-small", "--beam", "1", "--max-len", "12"]
    att = tmp_path / "att.json"
    assert main([*flags, "--attention-out", str(att), a, missing, b]) == 2
    out, err = capsys.readouterr()
    assert len(loads) == 1
    assert err.splitlines() == [
        f"c2fsum summarize: error: {missing}: no such file",
        f"c2fsum summarize: 1 of 3 files failed: {missing}",
    ]
    blocks = out.split("\n\n")
    assert [x.splitlines()[0] for x in blocks] == [f"==> {a} <==", f"==> {b} <=="]
    assert [x["file"] for x in json.loads(att.read_text())] == [a, b]
    assert main([*flags, b]) == 0
    assert capsys.readouterr().out.strip() == blocks[1].split("\n", 1)[1].strip()  # the same summary alone
