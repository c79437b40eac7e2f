"""Issue 49, as a newcomer meets it: no empty summary said by nothing, ``summarize --json``, no
control character reaching the terminal, one line for a bad option value.

The shipped ``pubmed-rewrite`` (a sentence selector with a rewriter) is the model these ran into:
on a text without a sentence it can take it wrote nothing, and the command printed an empty line
and exited 0; the server answered 200 with ``"summary": ""``.
"""

from __future__ import annotations

import json
import unicodedata

import pytest

from c2fsum.cli.main import main

PAPER = (
    "Tuberculosis remains a leading cause of death from a single infectious agent worldwide. "
    "We treated 120 patients with 10\u201320 mg of the new drug daily for twelve weeks in the trial. "
    "The \x1b[31mtreatment\x1b[0m reduced\x07 the bacterial load in most\x00 patients by the eighth week. "
    "Side effects were mild and resolved after the end of the treatment in all patients. "
    "These results support a larger trial of the drug in patients with resistant tuberculosis."
)
NO_SENTENCE = {
    "headings.txt": ("INTRODUCTION\n\nMETHODS\n\nRESULTS\n\nDISCUSSION\n", "its 4 words hold no sentence end"),
    "word.txt": ("tuberculosis\n", "its 1 word holds no sentence end"),
    "line.txt": (" ".join(["cells", "protein", "patients", "gene", "expression"] * 10_000), "its 50,000 words hold"),
}


def _controls(text: str) -> list[str]:
    """The control characters of ``text`` other than the newline."""
    return [ch for ch in text if unicodedata.category(ch) == "Cc" and ch != "\n"]


@pytest.mark.parametrize("command", ["summarize", "extract"])
@pytest.mark.parametrize("name", sorted(NO_SENTENCE))
def test_a_text_the_model_gives_nothing_for_is_refused_naming_the_file(tmp_path, capsys, command, name):
    text, said = NO_SENTENCE[name]
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    assert main(["-q", command, "--model", "pubmed-rewrite", str(f)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # was "\n", exit status 0
    assert captured.err.startswith(f"c2fsum {command}: error: {f}: no summary from pubmed-rewrite: {said}")
    assert captured.err.count("\n") == 1


def test_with_lines_a_refused_line_is_named_and_the_others_summarized(tmp_path, capsys, caplog):
    f = tmp_path / "lines.txt"
    f.write_text(f"{PAPER}\ntuberculosis\n", encoding="utf-8")
    assert main(["-q", "summarize", "--model", "pubmed-rewrite", "--lines", str(f)]) == 0
    out = capsys.readouterr().out.split("\n")
    assert len(out) == 3 and out[0] and out[1] == ""
    assert f"{f}:2: no summary from pubmed-rewrite: its 1 word holds no sentence end" in caplog.text
    assert main(["-q", "summarize", "--model", "pubmed-rewrite", "--lines", "--json", str(f)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows[0]["text"] and rows[1]["text"] is None and rows[1]["refusal"].startswith("its 1 word")


def test_summarize_json_gives_the_text_the_picks_in_pick_order_and_the_model(tmp_path, capsys):
    import c2fsum

    f = tmp_path / "paper.txt"
    f.write_text(PAPER, encoding="utf-8")
    assert main(["-q", "summarize", "--model", "pubmed-rewrite", "--json", str(f)]) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    (s,) = c2fsum.load("pubmed-rewrite").summarize(PAPER)
    assert row["text"] == s.text and row["tokens"] == s.tokens and row["model"] == "pubmed-rewrite"
    assert row["sentences"] == s.sentences and row["sentences"] == sorted(row["sentences"])  # the paper's order
    assert sorted(row["picked"]) == row["sentences"] and row["picked"] == s.picked  # and the pick order
    assert {"score", "eos", "fine_fraction"} <= set(row) and "refusal" not in row
    g = tmp_path / "other.txt"
    g.write_text(PAPER, encoding="utf-8")
    assert main(["-q", "summarize", "--model", "pubmed-rewrite", "--json", str(f), str(g)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["file"] for r in rows] == [str(f), str(g)] and rows[1]["text"] == s.text


@pytest.mark.parametrize("command", [["summarize", "--model", "pubmed-rewrite"], ["extract"]])
def test_no_control_character_reaches_the_terminal(tmp_path, capsys, command):
    f = tmp_path / "paper.txt"
    f.write_text(PAPER, encoding="utf-8")
    assert main(["-q", *command, "--words" if command == ["extract"] else "--max-len", "200", str(f)]) == 0
    out = capsys.readouterr().out
    assert "bacterial load" in out and not _controls(out), _controls(out)


def test_printable_drops_escapes_and_controls_and_keeps_white_space():
    from c2fsum.pipeline import printable

    assert printable("a\x1b[31mred\x1b[0m b\x07el\x00l back\x08space \x1b]0;title\x07x \x9b1mC1") == (
        "ared bell backspace x C1"
    )
    assert (
        printable("tab\there\nline\r\nform\x0cfeed \u2013 caf\u00e9")
        == "tab\there\nline\r\nform\x0cfeed \u2013 caf\u00e9"
    )


def test_a_bad_option_value_is_one_line_with_its_bounds(tmp_path, capsys):
    f = tmp_path / "paper.txt"
    f.write_text(PAPER, encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        main(["summarize", "--model", "pubmed-rewrite", "--rewrite-min-share", "2", str(f)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "usage:" not in err  # it was a 10-line usage block first
    assert err.splitlines() == [
        "c2fsum summarize: error: argument --rewrite-min-share: expected a number in [0, 1], got 2",
        "c2fsum summarize --help lists the options",
    ]
