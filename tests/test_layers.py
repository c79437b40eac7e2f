"""Layers import downward only: the architecture written down first, then the code checked against it.

The ranks below are the intended architecture (STYLE.md, "The layout we aim for"), not a fit to
whatever the code imports today. A module may import a module of a strictly lower rank; two
rooms of the same rank never import each other.

====  ==========================  ==============================================================
rank  rooms                       what they are
====  ==========================  ==============================================================
-1    errors                      the user-error classes, which every room raises (config's too)
0     utils, config, pretrained   leaves: file helpers, typed configs, the shipped model folders
                                  (data, and pretrained/registry.py: names -> folders, no torch)
1     data, metrics               text -> prepared documents -> grids and batches; ROUGE, entropy
2     modules, losses, baselines  network parts and loss functions on plain tensors; the
                                  summarizers that need no model (FIRST, LEAD, ILP, BERKELEY)
3     models                      model families, and reading a checkpoint back into one
                                  (models/checkpoint.py)
4     decoding                    greedy, sampling, beam search over a model
5     pipeline                    the one inference path: load, read (text or prepared
                                  documents), encode, decode
6     __init__, evaluation        the package's face (``c2fsum.load``, ``__version__``);
                                  perplexity, validation, ROUGE of predictions, scoring baselines
7     training                    the step loop; it writes checkpoints and validates through
                                  evaluation
8     reports, serving, batch     tables and figures from files on disk; the HTTP API; a corpus
                                  summarized in shards on a process pool or a Ray cluster
9     experiments                 train + evaluate + report, for many presets
10    cli                         the ``c2fsum`` command; only ``__main__`` imports it
11    __main__                    ``python -m c2fsum``
====  ==========================  ==============================================================

Training sits above evaluation because it validates with evaluation's perplexity and ROUGE;
evaluation and the inference path never import training.
"""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "c2fsum"
RANK = {
    "utils": 0,
    "config": 0,
    "errors": -1,
    "pretrained": 0,
    "data": 1,
    "metrics": 1,
    "modules": 2,
    "losses": 2,
    "baselines": 2,
    "models": 3,
    "decoding": 4,
    "pipeline": 5,
    "__init__": 6,
    "evaluation": 6,
    "training": 7,
    "reports": 8,
    "serving": 8,
    "batch": 8,
    "experiments": 9,
    "cli": 10,
    "__main__": 11,
}
PENDING: set[tuple[str, str]] = set()
"""Edges known to break the ranks, each named (importer, imported) below ``c2fsum.``."""
RUNS_NO_MODEL = ("reports",)
"""Rooms built only from files: they never decode, so never import these."""
DECODERS = ("c2fsum.pipeline", "c2fsum.decoding")


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("c2fsum"):
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names if a.name.startswith("c2fsum")]
    return names


def _modules(src: Path = SRC):
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src.parent).with_suffix("")
        yield ".".join(rel.parts), path


def upward_imports(src: Path = SRC) -> list[str]:
    """Every import under ``src`` that goes to the same or a higher rank (PENDING edges aside)."""
    bad = []
    for module, path in _modules(src):
        me = _layer(module)
        for n in _imports(path):
            other = _layer(n)
            if other == me or (module.removeprefix("c2fsum."), n.removeprefix("c2fsum.")) in PENDING:
                continue
            if (other == "cli" and me != "__main__") or RANK[other] >= RANK[me]:
                bad.append(f"{module} (rank {RANK[me]}) imports {n} (rank {RANK[other]})")
    return bad


def test_every_room_has_a_rank():
    names = {p.stem if p.is_file() else p.name for p in SRC.iterdir() if not p.name.startswith("__py")}
    assert names == set(RANK), (names - set(RANK), set(RANK) - names)


def test_imports_go_downward_only():
    bad = upward_imports()
    assert not bad, "\n".join(bad)


def test_pending_exceptions_still_exist():
    """An exception that no longer happens is removed from PENDING, so it cannot hide a new edge."""
    edges = {(m.removeprefix("c2fsum."), n.removeprefix("c2fsum.")) for m, p in _modules() for n in _imports(p)}
    assert PENDING <= edges, PENDING - edges


def test_reports_never_run_a_model():
    bad = [
        f"{module} imports {n}"
        for module, path in _modules()
        if _layer(module) in RUNS_NO_MODEL
        for n in _imports(path)
        if n.startswith(DECODERS)
    ]
    assert not bad, "\n".join(bad)


def test_the_rank_check_catches_an_upward_import(tmp_path):
    """The check can fail: a tree where evaluation reads checkpoints through training is flagged."""
    src = tmp_path / "c2fsum"
    (src / "evaluation").mkdir(parents=True)
    (src / "evaluation" / "scores.py").write_text("from c2fsum.training.checkpoint import load_checkpoint\n")
    (src / "errors.py").write_text("from c2fsum.training.trainer import TrainingError\n")
    (src / "pipeline.py").write_text("from c2fsum.models.checkpoint import load_checkpoint\n")
    assert upward_imports(src) == [
        "c2fsum.errors (rank -1) imports c2fsum.training.trainer (rank 7)",
        "c2fsum.evaluation.scores (rank 6) imports c2fsum.training.checkpoint (rank 7)",
    ]
