"""The rewriter's recipe end to end on the test corpus: `c2fsum prepare`, `c2fsum pairs`, the preset
configs/rewriter-cpu.yaml a few steps without coverage, then the coverage stage started from it
(See et al. 2017's second stage: every weight copied, w_c new), then beam search from the CLI."""

from pathlib import Path

from safetensors.torch import load_file

from c2fsum.cli.main import main
from c2fsum.data.prepare import read_prepared
from tiny import SHRINK, train_argv

ROOT = Path(__file__).resolve().parents[2]


def test_pairs_then_rewriter_then_coverage_stage(tmp_path, caplog):
    corpus = ROOT / "tests" / "data" / "corpus"
    prep, pairs = tmp_path / "prep", tmp_path / "pairs"
    assert main(["-q", "prepare", "--input", str(corpus), "--output", str(prep), "--workers", "1"]) == 0
    assert main(["-q", "pairs", "--data", str(prep), "--out", str(pairs), "--workers", "1"]) == 0
    preset = ROOT / "configs" / "rewriter-cpu.yaml"
    first, second = tmp_path / "run", tmp_path / "run-cov"
    assert main(train_argv(preset, pairs, first, 2, SHRINK)) == 0
    sets = [*SHRINK, "model.coverage=true", f"train.init_from={first}", "train.coverage_weight=1.0"]
    caplog.set_level("INFO")
    assert main(train_argv(preset, pairs, second, 2, sets)) == 0
    assert "new: attention.coverage_w" in caplog.text
    before = load_file(next(first.glob("**/last/model.safetensors")))
    after = load_file(next(second.glob("**/last/model.safetensors")))
    assert set(after) - set(before) == {"attention.coverage_w"}
    out = tmp_path / "eval"
    assert (
        main(
            [
                "-q",
                "evaluate",
                "--model",
                str(second),
                "--data",
                str(pairs),
                "--split",
                "val",
                "--out",
                str(out),
                "--limit",
                "3",
                "--beam",
                "2",
            ]
        )
        == 0
    )
    assert len((out / "predictions.jsonl").read_text().splitlines()) == min(
        3, len(list(read_prepared(pairs / "val.jsonl")))
    )
