"""The README's quick start runs as written: its command lines and its Python example, on the
shipped models, give text a reader can use (a capital first, a sentence end last, no internal
tokens)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
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


SET_UP = ["make install", ". .venv/bin/activate"]
"""The quick start's first lines: the environment, then the shell that finds ``c2fsum`` in it."""


def test_quick_start_command_lines_run_as_written(inputs, capsys):
    lines, _ = quick_start_blocks()
    assert lines[:2] == SET_UP
    lines = lines[2:]
    assert len(lines) == 6 and all(line.startswith(("c2fsum summarize", "c2fsum extract")) for line in lines)
    for line in lines:
        args = shlex.split(line)[1:]
        assert main(["-q", *args]) == 0, line
        out = capsys.readouterr().out.strip().splitlines()
        if "--tokens" in args:
            assert out and out[0] == out[0].lower() and " . " in out[0]
        elif "--json" in args:  # one object: the summary's text, the picked sentences, the model
            (row,) = map(json.loads, out)
            assert readable(row["text"]) and row["sentences"] and row["model"] == args[args.index("--model") + 1]
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


ROOT = README.parent


def test_the_first_command_after_set_up_is_found_as_printed():
    """Issue 39: after `make install`, `c2fsum` was "command not found" (nothing said to activate
    .venv). The quick start's set-up lines, run in a fresh shell whose PATH has no .venv, make its
    first `c2fsum` line find the command."""
    lines, _ = quick_start_blocks()
    activate = ROOT / ".venv" / "bin" / "activate"
    if not activate.is_file():
        pytest.skip(f"no {activate}: this checkout was not set up with `make install`")
    shell = " && ".join([*lines[1:2], "command -v c2fsum", "c2fsum --version"])
    env = {"PATH": "/usr/bin:/bin", "HOME": str(ROOT)}
    done = subprocess.run(["bash", "-c", shell], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    found, version = done.stdout.split()[0], done.stdout.split()[1:]
    assert Path(found) == activate.parent / "c2fsum" and version[0] == "c2fsum"
    bare = subprocess.run(["bash", "-c", "command -v c2fsum"], cwd=ROOT, env=env, capture_output=True)
    assert bare.returncode != 0  # without the second line the shell would not find it: the line is needed
    make = subprocess.run(["make", "-n", "install"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert ". .venv/bin/activate" in make.stdout  # `make install` says it too


def _recipe(target: str) -> list[str]:
    """The command lines of a Makefile target."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    body = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n)+)", text, flags=re.M)
    assert body, target
    return [line.strip() for line in body[1].splitlines()]


def test_the_readme_test_command_installs_what_every_test_needs():
    """Issue 39: on a fresh machine `make test` skipped the 6 ROUGE-1.5.5 agreement tests, whose
    Perl modules only .ci/run installed. The README's test command is `make test`, and it installs
    them, and the browser; CI runs that same command."""
    text = README.read_text(encoding="utf-8")
    setup = text[text.index("## Set-up") :]
    assert re.search(r"^make test\b", setup, flags=re.M)
    recipe = " ; ".join(_recipe("test"))
    for script in (".ci/install-perl.sh", ".ci/install-browser.sh"):
        assert f"bash {script}" in recipe, script
        assert (ROOT / script).is_file()
    rouge_tests = (ROOT / "tests" / "metrics" / "test_rouge.py").read_text(encoding="utf-8")
    perl = (ROOT / ".ci" / "install-perl.sh").read_text(encoding="utf-8")
    for module in re.findall(r"-M([\w:]+)", rouge_tests):  # the modules the tests need, the script checks
        assert f"-M{module}" in perl, module
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
