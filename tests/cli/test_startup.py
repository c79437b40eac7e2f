"""`c2fsum --help` and `--version` answer at once: building the parser imports neither torch nor the
other heavy libraries (lazy imports in c2fsum/cli), and every flag of every command says what it does."""

from __future__ import annotations

import argparse
import subprocess
import sys

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
