"""``c2fsum models`` lists the shipped models with what each is for, its card's test scores, size
and decoding defaults, and describes the run directories given; ``--model``'s help names them."""

from __future__ import annotations

import re
import shutil

from c2fsum.cli.main import build_parser, main
from c2fsum.pretrained.registry import PRETRAINED_DIR, SHIPPED, shipped_names


def test_models_lists_every_shipped_model_with_its_cards_facts(capsys):
    assert main(["-q", "models"]) == 0
    out = capsys.readouterr().out
    blocks = dict(re.findall(r"^(\S+)\n((?:    .*\n?)+)", out, flags=re.M))
    assert list(blocks) == shipped_names()
    for name, text in blocks.items():
        card = (PRETRAINED_DIR / name / "README.md").read_text(encoding="utf-8")
        rouge1 = re.search(r"^\| ROUGE-1 \| ([\d.]+) \|", card, flags=re.M)[1]  # type: ignore[index]
        params = re.search(r"^\| parameters \| ([\d,]+) \|", card, flags=re.M)[1]  # type: ignore[index]
        row = re.search(r"^\| decoding defaults \| (.*) \|$", card, flags=re.M)[1]  # type: ignore[index]
        assert SHIPPED[name].description in text
        assert f"ROUGE-1/2/L {rouge1} / " in text and f"{params} parameters" in text and " MB" in text
        assert f"defaults: {row}\n" in text + "\n"
        disk, weights = re.search(r"([\d.]+) MB on disk \(weights \w+, ([\d.]+) MB\)", text).groups()  # type: ignore[union-attr]
        on_disk = sum(p.stat().st_size for p in (PRETRAINED_DIR / name).rglob("*") if p.is_file()) / 1e6
        # printed to one decimal: within 0.05 MB of every file of the folder (a rewriter inside included)
        assert abs(float(disk) - on_disk) <= 0.05 and float(disk) >= float(weights) - 0.05, text


def test_models_describes_the_directories_given_and_refuses_others(tmp_path, capsys):
    mine = tmp_path / "mine"
    shutil.copytree(PRETRAINED_DIR / "cnndm-small", mine / "best")  # a run directory's best checkpoint
    assert main(["-q", "models", str(mine)]) == 0
    out = capsys.readouterr().out
    assert f"\n{mine}\n    checkpoint {mine / 'best'} (preset cnndm-small)\n" in out
    assert main(["-q", "models", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"c2fsum models: error: {tmp_path}: not a run or checkpoint directory (no model.safetensors and config.json)"
    )


def test_the_model_option_names_the_shipped_models():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices  # type: ignore[attr-defined]
    for command in ("summarize", "evaluate", "serve"):
        help_text = next(a.help for a in sub[command]._actions if a.dest == "model")
        assert all(name in help_text for name in shipped_names()) and "c2fsum models" in help_text, command
