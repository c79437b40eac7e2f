"""The warnings ``summarize`` and ``extract`` print about their input name the file, and the line
with ``--lines``, and are printed once (issue 49): a text over the 100,000 words read (it named
"text 0"), a line that is not UTF-8 (printed twice with ``--lines``)."""

from __future__ import annotations

import pytest

import c2fsum.pipeline
from c2fsum.cli.main import main

SENTENCE = "The mayor said on Tuesday that the old bridge will close for three months of repairs."
"""15 words."""


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]


def test_a_text_over_the_words_read_is_named_by_its_file(tmp_path, capsys, caplog):
    doc = tmp_path / "paper.txt"
    doc.write_text(" ".join([SENTENCE] * 6_700), encoding="utf-8")  # 100,500 words
    with caplog.at_level("WARNING"):
        assert main(["-q", "extract", "--method", "lead", "--words", "40", str(doc)]) == 0
    assert capsys.readouterr().out.strip() == f"{SENTENCE}\n{SENTENCE}"
    assert _warnings(caplog) == [f"{doc}: longer than 100,000 words; only the first 100,000 are read"]


@pytest.mark.parametrize("command", ["extract", "summarize"])
def test_with_lines_a_long_line_is_named_by_file_and_line(command, tmp_path, capsys, caplog, monkeypatch):
    """The same warning from the model's reading (``summarize``) and from ILP's (``extract``), the
    limit lowered to 40 words for speed: line 3 is long, line 2 has no words (not an article)."""
    monkeypatch.setattr(c2fsum.pipeline, "MAX_INPUT_WORDS", 40)
    doc = tmp_path / "papers.txt"
    doc.write_text(f"{SENTENCE}\n \n{' '.join([SENTENCE] * 3)}\n", encoding="utf-8")
    args = ["--model", "cnndm-small", "--max-words", "0", "--beam", "1"] if command == "summarize" else []
    with caplog.at_level("WARNING"):
        assert main(["-q", command, *args, "--lines", str(doc)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3
    assert _warnings(caplog) == [f"{doc}:3: longer than 40 words; only the first 40 are read"]


def test_with_lines_a_line_not_utf8_is_named_once(tmp_path, capsys, caplog):
    """The check before loading and the command's own read both read the lines: one warning."""
    doc = tmp_path / "a.txt"
    doc.write_bytes(SENTENCE.encode() + b"\nThe \xff bridge.\n" + SENTENCE.encode() + b"\n")
    with caplog.at_level("WARNING"):
        assert main(["-q", "extract", "--method", "lead", "--lines", str(doc)]) == 0
    assert capsys.readouterr().out.splitlines() == [SENTENCE, "", SENTENCE]
    assert _warnings(caplog) == [
        f"{doc}:2: not UTF-8 text (invalid start byte at byte 4 of the line); its output line is empty"
    ]
