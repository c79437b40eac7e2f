"""User errors print one line ``c2fsum COMMAND: error: ...`` (exit 2); bugs show their traceback;
``C2FSUM_DEBUG=1`` shows the traceback of user errors too. And the faults of ``summarize`` seen by
users (issue 27): a directory as input, ``--attention-out`` into a missing directory, ``--lines``
with blank lines, ``--min-len`` above the maximum length."""

from __future__ import annotations

import pytest

from c2fsum.cli import main as cli
from c2fsum.cli.main import main
from c2fsum.errors import InputError, is_user_error

MODEL = "cnndm-small"
ARTICLE = "The mayor said on Tuesday that the bridge will close for three months. Drivers should use the tunnel."


def _err(capsys) -> list[str]:
    return capsys.readouterr().err.strip().splitlines()


def test_which_errors_are_the_users():
    assert is_user_error(InputError("x")) and is_user_error(FileNotFoundError(2, "No such file", "a.txt"))
    assert is_user_error(OSError(28, "No space left on device", "out.json"))  # disk full
    assert not is_user_error(ValueError("a bug's ValueError")) and not is_user_error(KeyError("k"))
    assert not is_user_error(OSError(9, "Bad file descriptor"))  # the code's fault, not the user's


def test_a_bug_shows_its_traceback_a_user_error_one_line(monkeypatch, capsys, tmp_path):
    def bug(a):
        raise ValueError("internal: shapes differ")

    (tmp_path / "m.json").write_text("{}")
    parser = cli.build_parser
    monkeypatch.setattr(
        cli, "build_parser", lambda: _with_func(parser(), "table", bug)
    )  # the table subcommand now raises a plain ValueError
    with pytest.raises(ValueError, match="internal: shapes differ"):
        main(["-q", "table", str(tmp_path / "m.json")])


def _with_func(p, command, func):
    sub = next(a for a in p._actions if a.dest == "command")
    sub.choices[command].set_defaults(func=func)
    return p


def test_user_errors_have_one_prefix_and_debug_shows_the_traceback(tmp_path, capsys, monkeypatch):
    assert main(["-q", "summarize", "--model", MODEL, str(tmp_path / "none.txt")]) == 2
    assert _err(capsys) == [f"c2fsum summarize: error: {tmp_path / 'none.txt'}: no such file"]
    assert main(["-q", "table", str(tmp_path / "none.json")]) == 2  # a CLIError: the same form
    assert _err(capsys) == [f"c2fsum table: error: {tmp_path / 'none.json'}: no such file"]
    monkeypatch.setenv("C2FSUM_DEBUG", "1")
    assert main(["-q", "table", str(tmp_path / "none.json")]) == 2
    err = _err(capsys)
    assert err[0] == "Traceback (most recent call last):" and err[-1].startswith("c2fsum table: error: ")


def test_a_directory_as_input_is_named(tmp_path, capsys):
    assert main(["-q", "summarize", "--model", MODEL, str(tmp_path)]) == 2
    assert _err(capsys) == [f"c2fsum summarize: error: {tmp_path}: a directory; expected a text file (or - for stdin)"]


def test_attention_out_never_creates_directories(tmp_path, capsys):
    doc, target = tmp_path / "a.txt", tmp_path / "nonexistent" / "dir" / "a.json"
    doc.write_text(ARTICLE)
    assert main(["-q", "summarize", "--model", MODEL, "--attention-out", str(target), str(doc)]) == 2
    assert "--attention-out" in _err(capsys)[0] and not (tmp_path / "nonexistent").exists()


def test_lines_writes_one_output_line_per_input_line(tmp_path, capsys):
    doc = tmp_path / "a.txt"
    doc.write_text(f"{ARTICLE}\n\n   \n{ARTICLE} More text here.\n")
    assert main(["-q", "summarize", "--model", MODEL, "--lines", "--beam", "1", str(doc)]) == 0
    out = capsys.readouterr().out.split("\n")
    assert out[-1] == "" and len(out[:-1]) == 4  # 4 input lines, 4 output lines
    assert out[0].strip() and out[1] == "" and out[2] == "" and out[3].strip()


def test_min_len_above_the_maximum_is_refused(tmp_path, capsys):
    doc = tmp_path / "a.txt"
    doc.write_text(ARTICLE)
    assert main(["-q", "summarize", "--model", MODEL, "--min-len", "500", "--max-len", "40", str(doc)]) == 2
    assert _err(capsys) == [
        "c2fsum summarize: error: min_len: got 500, above the maximum summary length 40 (max_len); expected <= 40"
    ]


def _summarize_lines(doc, capsys) -> list[str]:
    assert main(["-q", "summarize", "--model", MODEL, "--lines", "--beam", "1", "--max-len", "8", str(doc)]) == 0
    out = capsys.readouterr().out
    assert out.endswith("\n")
    return out[:-1].split("\n")


def test_lines_a_line_that_is_not_utf8_gets_an_empty_line_and_is_named(tmp_path, capsys, caplog):
    """One bad byte refuses its own line (named FILE:LINE), not the file (issue 27 campaign)."""
    doc = tmp_path / "a.txt"
    doc.write_bytes(ARTICLE.encode() + b"\nThe \xff bridge.\n" + ARTICLE.encode() + b"\n")
    with caplog.at_level("WARNING", logger="c2fsum.cli.summarize"):
        out = _summarize_lines(doc, capsys)
    assert len(out) == 3 and out[0] and out[1] == "" and out[2] == out[0]
    assert f"{doc}:2: not UTF-8 text (invalid start byte at byte 4 of the line)" in caplog.text


def test_lines_an_invisible_only_line_gets_an_empty_line(tmp_path, capsys):
    """Zero-width spaces, a BOM, blanks: no words, so an empty output line, not a refusal."""
    doc = tmp_path / "a.txt"
    doc.write_text(f"\u200b\u200b\n{ARTICLE}\n\ufeff \u200b\t\n", encoding="utf-8")
    out = _summarize_lines(doc, capsys)
    assert len(out) == 3 and out[0] == "" and out[1] and out[2] == ""


def test_lines_are_split_on_newline_only(tmp_path, capsys):
    """\\x0b \\x0c \\x1c-\\x1e \\x85 U+2028 U+2029 stay inside their line (str.splitlines would split
    on them); \\r\\n ends a line like \\n; a BOM at the start is dropped."""
    inside = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
    text = "\ufeff" + "\r\n".join(f"{ARTICLE}{sep}{ARTICLE}" for sep in inside) + "\r\n"
    doc = tmp_path / "a.txt"
    doc.write_text(text, encoding="utf-8", newline="")
    out = _summarize_lines(doc, capsys)
    assert len(out) == len(inside) and all(out)


def test_whole_file_bom_and_invisible_text_is_refused_naming_the_file(tmp_path, capsys):
    doc = tmp_path / "a.txt"
    doc.write_bytes(b"\xef\xbb\xbf" + "\u200b \u200b\n".encode())
    assert main(["-q", "summarize", "--model", MODEL, str(doc)]) == 2
    assert _err(capsys) == [f"c2fsum summarize: error: {doc}: empty input, no words to summarize"]
    doc.write_bytes(b"\xef\xbb\xbf" + ARTICLE.encode())  # a BOM before words: read like the words alone
    assert main(["-q", "summarize", "--model", MODEL, "--beam", "1", "--max-len", "8", str(doc)]) == 0
    with_bom = capsys.readouterr().out
    doc.write_bytes(ARTICLE.encode())
    assert main(["-q", "summarize", "--model", MODEL, "--beam", "1", "--max-len", "8", str(doc)]) == 0
    assert capsys.readouterr().out == with_bom
