"""``c2fsum models``: the shipped models (what each is for, its card's test scores, its size and
decoding defaults) and any run or checkpoint directories given, read from their files (no torch)."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from c2fsum.cli.options import CLIError, Command


def card_facts(card: str) -> dict[str, str]:
    """What a model card (``README.md`` of ``c2fsum export``) says in its tables: ``weights``,
    ``decoding defaults``, ``parameters`` and the ROUGE rows of its test scores, as written."""
    return {m[1]: m[2] for m in re.finditer(r"^\| ([^|]+?) \| ([^|]+?) \|(?: [^|]* \|)?$", card, flags=re.M)}


def _scores(facts: dict[str, str], where: str) -> str:
    best = " / ".join(facts.get(f"ROUGE-{k}", "?") for k in ("1", "2", "L"))
    line = f"ROUGE-1/2/L {best}"
    if "ROUGE-1, all highlights one reference" in facts:
        concat = " / ".join(facts[f"ROUGE-{k}, all highlights one reference"] for k in ("1", "2", "L"))
        line += f" (all highlights as one reference: {concat})"
    return f"{line} {where}" if "?" not in best else "no test scores on its card"


def _checkpoint(folder: Path) -> Path | None:
    """The checkpoint a directory names: itself, or a run directory's ``best`` (else ``last``)."""
    for d in (folder, folder / "best", folder / "last"):
        if (d / "model.safetensors").is_file() and (d / "config.json").is_file():
            return d
    return None


def describe(name: str, folder: Path, purpose: str) -> list[str]:
    """Lines about the checkpoint in ``folder``: purpose, scores, size, decoding defaults."""
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    card_path = folder / "README.md"
    facts = card_facts(card_path.read_text(encoding="utf-8")) if card_path.is_file() else {}
    mb = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6
    where = ""
    if card_path.is_file():
        m = re.search(r"^On ([\d,]+) documents of the (\w+) split", card_path.read_text(encoding="utf-8"), flags=re.M)
        where = f"on {m[1]} {m[2]} documents" if m else ""
    lines = [f"{name}", f"    {purpose}"]
    if facts:
        lines.append(f"    {_scores(facts, where)}")
    size = f"{mb:.1f} MB on disk"
    if "parameters" in facts:
        size = f"{facts['parameters']} parameters, {size}"
    if "weights" in facts:
        size += f" (weights {facts['weights'].split(' (')[0]})"
    lines.append(f"    {size}; family {config['model']['family']}")
    d = config.get("decode", {})
    defaults = facts.get("decoding defaults") or (
        f"beam {d.get('beam')}, up to {d.get('max_len')} tokens, "
        + (f"first {d['max_words']} words" if d.get("max_words") else "whole documents")
    )
    lines.append(f"    defaults: {defaults}")
    return lines


def cmd_models(a: argparse.Namespace) -> int:
    from c2fsum.pretrained.registry import PRETRAINED_DIR, SHIPPED, shipped_names

    out: list[str] = []
    for name in shipped_names():
        folder = PRETRAINED_DIR / name
        entry = SHIPPED.get(name)
        purpose = entry.description if entry else "shipped model"
        if not (folder / "model.safetensors").is_file():
            out += [name, f"    {purpose}", f"    not installed: run `{entry.command if entry else 'c2fsum export'}`"]
            continue
        out += describe(name, folder, purpose)
    for given in a.runs:
        ckpt = _checkpoint(Path(given))
        if ckpt is None:
            raise CLIError(f"{given}: not a run or checkpoint directory (no model.safetensors and config.json)")
        config = json.loads((ckpt / "config.json").read_text(encoding="utf-8"))
        out += describe(str(given), ckpt, f"checkpoint {ckpt} (preset {config.get('name') or '?'})")
    print("\n".join(out))
    return 0


def _arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("runs", nargs="*", metavar="RUN_DIR", help="run or checkpoint directories to describe too")


COMMAND = Command(
    "models",
    help="list the shipped models (what for, test scores, size, defaults) and the runs given",
    run=cmd_models,
    arguments=_arguments,
)
