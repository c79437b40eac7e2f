"""`summarize` and `evaluate` read whole documents unless `--max-words` cuts them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tiny
from c2fsum.cli.main import main

TINY = [
    *tiny.SMALL,
    "data.vocab_size=3000",
    "data.val_holdout=0",
    "model.chunk_filters=16",
]


@pytest.fixture(scope="module")
def run3(prepared_small, tmp_path_factory):
    run = tmp_path_factory.mktemp("long") / "model3"
    cfg = Path(__file__).resolve().parents[2] / "configs" / "model3-cpu.yaml"
    assert main(tiny.train_argv(cfg, prepared_small, run, 2, TINY)) == 0
    return run


def test_evaluate_max_words_reproduces_the_trained_grid_and_default_reads_everything(
    run3, prepared_small, tmp_path, capsys
):
    import c2fsum
    from c2fsum.data.prepare import read_split

    cut, whole = tmp_path / "cut", tmp_path / "whole"
    common = [
        "-q",
        "evaluate",
        "--model",
        str(run3),
        "--data",
        str(prepared_small),
        "--split",
        "test",
        "--beam",
        "2",
        "--limit",
        "3",
    ]
    assert main([*common, "--out", str(cut), "--max-words", "80"]) == 0
    assert main([*common, "--out", str(whole)]) == 0
    capsys.readouterr()
    assert json.loads((cut / "metrics.json").read_text())["max_words"] == 80
    assert json.loads((whole / "metrics.json").read_text())["max_words"] == 0
    # --max-words 80 on a 4x20 model is exactly the paper's behaviour (the trained grid)
    model = c2fsum.load(run3)
    docs = read_split(prepared_small, "test", limit=3)
    examples = model.encode_documents(docs, max_words=80)
    assert all(len(e.words) == 80 for e in examples)
    bounded = model.decode(examples, model.options(beam=2))
    cut_preds = [json.loads(x)["candidate"] for x in (cut / "predictions.jsonl").read_text().splitlines()]
    assert cut_preds == [d.text for d in bounded]
    # without --max-words the model reads whole articles (the corpus articles are longer than 80 words)
    long_examples = model.encode_documents(docs)
    assert all(len(e.words) > 80 for e in long_examples)


def test_summarize_reads_long_text_whole_unless_max_words(run3, tmp_path, capsys):
    import c2fsum
    from shared_data import read_raw

    text = " ".join(d["article"] for d in read_raw("test", 4))
    model = c2fsum.load(run3)
    whole = model.summarize(text, beam=2, max_len=8)[0]
    cut = model.summarize(text, beam=2, max_len=8, max_words=100)[0]
    assert len(whole.source) > 1000 and whole.attention.shape[1] == -(-len(whole.source) // 20)
    assert cut.source == whole.source[:100] and cut.attention.shape[1:] == (5, 20)
    path = tmp_path / "long.txt"
    path.write_text(text, encoding="utf-8")
    assert (
        main(
            [
                "summarize",
                "--model",
                str(run3),
                "--beam",
                "2",
                "--max-len",
                "8",
                "--max-words",
                "100",
                "--attention-out",
                str(tmp_path / "a.json"),
                str(path),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert len(json.loads((tmp_path / "a.json").read_text())[0]["source"]) == 100
    with pytest.raises(SystemExit):
        main(["summarize", "--model", str(run3), "--max-words", "-3", str(path)])
