"""Every preset in configs/ trains a few steps and evaluates from the CLI (sizes shrunk, options kept)."""

import json
from pathlib import Path

import pytest

from c2fsum.cli.main import main

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "configs").glob("*.yaml"))
SHRINK = [
    "model.emb_dim=16",
    "model.hidden=24",
    "model.chunk_filters=8",
    "data.vocab_size=2000",
    "train.batch_size=8",
    "data.val_holdout=0",
    "data.max_tgt_len=10",
    "train.eval_every=0",
]


def test_there_is_a_preset_for_every_row_of_table_6_1():
    names = {p.stem for p in CONFIGS}
    rows = [
        "model0",
        "model1",
        "model2",
        "model2-bow",
        "model2-pos",
        "model2-5x80",
        "model2-2x200",
        "model3",
        "model3-pos",
        "model3-multi2",
        "model3-pos-multi2",
        "model3-multi3",
        "model3-pretrain",
        "model3-alternate",
        "paulus-ml",
        "paulus-rl",
    ]
    for r in rows:
        assert r in names and f"{r}-cpu" in names, r


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.stem)
def test_preset_trains_and_evaluates(config, prepared_small, tmp_path, capsys):
    run, out = tmp_path / "run", tmp_path / "eval"
    assert (
        main(
            [
                "-q",
                "train",
                "--config",
                str(config),
                "--data",
                str(prepared_small),
                "--out",
                str(run),
                "--max-steps",
                "2",
                "--set",
                *SHRINK,
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["steps"] == 2
    assert (
        main(
            [
                "-q",
                "evaluate",
                "--model",
                str(run),
                "--data",
                str(prepared_small),
                "--split",
                "test",
                "--out",
                str(out),
                "--limit",
                "2",
                "--beam",
                "2",
            ]
        )
        == 0
    )
    m = json.loads((out / "metrics.json").read_text())
    assert m["n_docs"] == 2 and m["ppl"] > 1 and 0 <= m["entropy"] <= m["entropy_uniform"] + 1e-6
