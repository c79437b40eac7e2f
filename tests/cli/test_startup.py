"""`c2fsum --help` and `--version` answer at once: building the parser imports neither torch nor the
other heavy libraries (lazy imports in c2fsum/cli), and every flag of every command says what it does."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

HEAVY = ("torch", "numpy", "omegaconf", "pandas", "scipy", "matplotlib", "nltk")


def _modules_after(args: list[str]) -> set[str]:
    code = (
        "import sys\n"
        "from c2fsum.cli.main import main\n"
        "try:\n"
        f"    main({args!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(' '.join(sorted(m for m in sys.modules if '.' not in m)), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    return set(done.stderr.split())


def test_help_and_version_import_no_heavy_library():
    for args in (["--version"], ["--help"], ["summarize", "--help"]):
        loaded = _modules_after(args)
        assert not loaded & set(HEAVY), (args, sorted(loaded & set(HEAVY)))


def _parsers(parser: argparse.ArgumentParser, path: str = "c2fsum"):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{path} {name}")


def test_every_flag_has_help_text():
    from c2fsum.cli.main import build_parser

    missing = [
        f"{path} {action.option_strings[0]}"
        for path, parser in _parsers(build_parser())
        for action in parser._actions
        if action.option_strings and not action.help and action.dest != "help"
    ]
    assert not missing, missing


def test_refusals_come_before_any_heavy_import(tmp_path):
    """Bad input and an unknown model are refused before torch loads (issue 39: they took 3.4-4.5 s;
    bench/refusal_time.py times them): the command exits 2 with the error it always gave."""
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "blank.txt").write_bytes(b" \n\t\n")
    (tmp_path / "latin1.txt").write_bytes("Caf\u00e9 na\u00efve.".encode("latin-1"))
    (tmp_path / "good.txt").write_text("The bridge will close. It reopens in May.", encoding="utf-8")
    (tmp_path / "folder").mkdir()
    (tmp_path / "empty.pt").write_bytes(b"")
    cases = {
        "empty.txt": (["summarize", "--model", "pubmed-model3"], "empty input, no words to summarize"),
        "blank.txt": (["extract"], "empty input, no words to summarize"),
        "folder": (["summarize", "--model", "cnndm-small"], "a directory; expected a text file"),
        "latin1.txt": (["summarize", "--model", "cnndm-small"], "not UTF-8 text"),
        "missing.txt": (["summarize", "--lines", "--model", "cnndm-small"], "no such file"),
        "good.txt": (["summarize", "--model", "pubmed-model9"], "pubmed-model9: no such model: not a shipped model"),
        # issue 49: extract's --model was loaded (1.33 s) before it was found to name nothing, and a
        # 0-byte file as --model was loaded as a folder ("expected FILE/best or FILE/last")
        "good.txt ": (["extract", "--model", "nosuch"], "nosuch: no such model: not a shipped model"),
        "good.txt  ": (["summarize", "--model", str(tmp_path / "empty.pt")], "empty.pt: an empty file; a model is"),
        "good.txt   ": (["extract", "--model", str(tmp_path / "empty.pt")], "empty.pt: an empty file; a model is"),
    }
    for name, (args, why) in cases.items():
        code = (
            "import sys\n"
            "from c2fsum.cli.main import main\n"
            f"status = main({[*args, str(tmp_path / name.strip())]!r})\n"
            "print(status, ' '.join(sorted(m for m in sys.modules if '.' not in m)))\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        status, *loaded = done.stdout.split()
        assert status == "2" and why in done.stderr and done.stderr.count("\n") == 1, (name, done.stderr)
        assert not set(loaded) & set(HEAVY), (name, sorted(set(loaded) & set(HEAVY)))


@pytest.mark.real_data
def test_extract_imports_no_torch(tmp_path):
    """``c2fsum extract`` (ILP and LEAD, no ``--model``) never loads torch (issue 36: its import was
    most of the command's time on a 100,000-word paper), and the summary it prints is the same as
    the one :func:`c2fsum.pipeline.extract` gives in a process that has torch."""
    import gzip
    import json

    from c2fsum.pipeline import extract
    from shared_data import DATA, need_real

    with gzip.open(need_real(DATA / "pubmed" / "val.jsonl.gz"), "rt") as f:
        paper = json.loads(next(f))["article"]
    (tmp_path / "paper.txt").write_text(paper, encoding="utf-8")
    for method in ("ilp", "lead"):
        args = ["-q", "extract", "--method", method, "--words", "120", str(tmp_path / "paper.txt")]
        code = (
            "import sys\n"
            "from c2fsum.cli.main import main\n"
            f"status = main({args!r})\n"
            "print(status, ' '.join(sorted(m for m in sys.modules if '.' not in m)), file=sys.stderr)\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        status, *loaded = done.stderr.split("\n")[-2].split()
        assert status == "0", done.stderr
        assert "torch" not in loaded, method
        assert done.stdout == extract(paper, method=method, words=120)[0].text + "\n"


def test_the_tokenizer_imports_nltk_without_scipy_stats():
    """``import nltk`` loads ``scipy.stats`` for one collocation measure (0.8 s of every command's start);
    c2fsum's tokenizer imports NLTK without it, and NLTK's measure still computes SciPy's value when asked."""
    code = (
        "import sys\n"
        "import c2fsum.data.tokenize\n"
        "print('scipy.stats' in sys.modules)\n"
        "from nltk.metrics.association import BigramAssocMeasures\n"
        "mine = BigramAssocMeasures.fisher(5, (10, 20), 100)\n"
        "from scipy.stats import fisher_exact\n"
        "print(mine == fisher_exact([[5, 5], [15, 75]], alternative='less')[1])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["False", "True"], done.stderr
