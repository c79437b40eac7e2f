"""The tokenizer as it was before issue 17 (NLTK over the whole text, pysbd for the sentences), read
from git at a pinned commit instead of a frozen copy: ``git show PINNED:src/c2fsum/data/tokenize.py``.

    tok = load()                 # a module with preprocess_article, preprocess_summary, ...
    tok.preprocess_article(text)

Used by ``bench/preprocess.py`` and ``scripts/make_tokenize_golden.py --impl before``. Needs the
repository's history (a shallow clone without that commit cannot run it).
"""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PINNED = "ad0fc1873954954b3754ee76a102071ac37a25cd"
"""The last commit with the old tokenizer (the parent of the one that replaced it)."""
PATH = "src/c2fsum/data/tokenize.py"
NAME = "c2fsum_tokenize_before"


def load() -> types.ModuleType:
    """The old ``c2fsum.data.tokenize`` as the module :data:`NAME` (executed once per process)."""
    if NAME in sys.modules:
        return sys.modules[NAME]
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{PINNED}:{PATH}"], check=True, capture_output=True, text=True
    ).stdout
    module = types.ModuleType(NAME)
    module.__file__ = f"git:{PINNED[:12]}:{PATH}"
    sys.modules[NAME] = module  # dataclasses look their module up while the class is built
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module
