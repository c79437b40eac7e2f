"""Layers import downward only (STYLE.md): a module never reaches up into a higher layer."""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "c2fsum"
RANK = {
    "config": 0,
    "utils": 0,
    "pretrained": 0,  # shipped model folders (data); its __init__ imports nothing
    "data": 1,
    "metrics": 1,
    "modules": 2,
    "losses": 2,
    "models": 3,
    "decoding": 4,
    "training": 5,
    "evaluation": 6,
    "reports": 7,
    "pipeline": 7,
    "experiments": 7.5,
    "errors": 8,
    "__init__": 8.5,
    "serving": 8.7,
    "cli": 9,
    "__main__": 10,
}


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_package_has_a_rank():
    names = {p.stem if p.is_file() else p.name for p in SRC.iterdir() if not p.name.startswith("__py")}
    assert names <= set(RANK), names - set(RANK)


def test_imports_go_downward_only():
    bad = []
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC.parent).with_suffix("")
        me = _layer(".".join(rel.parts))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("c2fsum"):
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.startswith("c2fsum")]
            for n in names:
                other = _layer(n)
                # only the entry point `python -m c2fsum` (__main__) may import the CLI
                if other != me and ((other == "cli" and me != "__main__") or RANK[other] >= RANK[me]):
                    bad.append(f"{rel}: imports {n}")
    assert not bad, "\n".join(bad)
