"""The README's quick start runs as written: its command lines and its Python example, on the
shipped models, give text a reader can use (a capital first, a sentence end last, no internal
tokens)."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from c2fsum.cli.main import main

README = Path(__file__).resolve().parents[1] / "README.md"
sys.path.insert(0, str(Path(__file__).resolve().parent / "pretrained"))
from test_pubmed_models import PAPER  # noqa: E402  (a made-up 1,840-word paper)

ARTICLE = (
    "(CNN) -- The U.S. space agency said on Monday it will send a new rover to Mars in 2030, two years "
    "later than planned, because of budget cuts. The rover will look for signs of ancient life. NASA "
    "officials said the delay would cost an extra $300 million."
)


def quick_start_blocks() -> tuple[list[str], str]:
    """The quick start's command lines (without comments) and its Python code."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Quick start") :]
    section = section[: section.index("\n## ", 5)]
    shell, python = re.findall(r"```(?:python)?\n(.*?)```", section, flags=re.S)
    lines = [line.split("#")[0].strip() for line in shell.splitlines() if line.strip()]
    return lines, python


def readable(text: str) -> bool:
    first = next(c for c in text if c.isalpha())
    return (
        first.isupper()
        and text.rstrip()[-1] in ".!?\u201d)"
        and not any(bad in text for bad in ("#", "<unk>", "-lrb-", " .", " ,", "<dig>", "< dig"))
    )


@pytest.fixture()
def inputs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "paper.txt").write_text(PAPER, encoding="utf-8")
    (tmp_path / "article.txt").write_text(ARTICLE, encoding="utf-8")
    (tmp_path / "papers.txt").write_text(PAPER[:3000] + "\n" + PAPER[3000:6000] + "\n", encoding="utf-8")
    return tmp_path


def test_quick_start_command_lines_run_as_written(inputs, capsys):
    lines, _ = quick_start_blocks()
    assert len(lines) == 5 and all(line.startswith(("c2fsum summarize", "c2fsum extract")) for line in lines)
    for line in lines:
        args = shlex.split(line)[1:]
        assert main(["-q", *args]) == 0, line
        out = capsys.readouterr().out.strip().splitlines()
        if "--tokens" in args:
            assert out and out[0] == out[0].lower() and " . " in out[0]
        elif args[0] == "extract":  # the paper's own sentences, one per line
            assert out and all(readable(o) for o in out), (line, out)
        else:
            assert len(out) == (2 if "--lines" in args else 1) and all(readable(o) for o in out), (line, out)


def test_quick_start_python_example_runs_as_written(inputs, capsys):
    _, code = quick_start_blocks()
    scope: dict = {}
    exec(compile(code, str(README), "exec"), scope)  # noqa: S102 - the README's own example
    summary = scope["summary"]
    assert readable(summary.text) and capsys.readouterr().out.strip() == summary.text
    T, M, N = summary.attention.shape
    assert N == 40 and M == -(-len(summary.source) // 40) and 0 < summary.fine_fraction < 1
