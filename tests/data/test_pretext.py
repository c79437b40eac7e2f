"""Pretext examples: hand-made documents with the windows worked out by hand."""

from __future__ import annotations

import json

import pytest

from c2fsum.config import PretextSettings
from c2fsum.data.pretext import pretext_examples, write_pretext

EOS = "</s>"


def sent(text: str) -> list[str]:
    return text.split() + [EOS]


DOC = {
    "id": "d",
    "src": [
        sent("by ."),  # a byline: too short to be a lead
        sent("one two three four five six seven eight ."),
        sent("alpha beta gamma delta epsilon zeta eta theta ."),
        sent("a b c d e f g h ."),
        sent("last sentence is never a lead ."),
    ],
    "tgt": ["x"],
    "refs": [["x"]],
}


def prepared_folder(tmp_path):
    """A prepared folder: one training document ``t``, validation documents ``v0 v1 v2``."""
    data = tmp_path / "data"
    data.mkdir()
    val = [dict(DOC, id=f"v{i}") for i in range(3)]
    (data / "train.jsonl").write_text(json.dumps(dict(DOC, id="t")) + "\n")
    (data / "val.jsonl").write_text("".join(json.dumps(d) + "\n" for d in val))
    (data / "vocab.txt").write_text("<pad>\t0\n")
    return data, val


def test_lead_copies_the_window_start_and_rest_drops_it():
    lead = list(pretext_examples([DOC], PretextSettings(task="lead", stride=1)))
    rest = list(pretext_examples([DOC], PretextSettings(task="rest", stride=1)))
    assert [e["id"] for e in lead] == ["d#1l", "d#2l", "d#3l"]  # 0: byline; 4: nothing after it
    assert lead[0]["tgt"] == "one two three four five six seven eight .".split()
    assert lead[0]["src"] == DOC["src"][1:] and lead[0]["refs"] == [lead[0]["tgt"]]
    assert [e["id"] for e in rest] == ["d#1r", "d#2r", "d#3r"]
    assert rest[1]["src"] == DOC["src"][3:] and rest[1]["tgt"] == DOC["src"][2][:-1]


def test_mixed_alternates_and_stride_skips():
    mixed = list(pretext_examples([DOC], PretextSettings(task="mixed", stride=1)))
    assert [e["id"] for e in mixed] == ["d#1l", "d#2r", "d#3l"]
    assert [e["id"] for e in pretext_examples([DOC], PretextSettings(task="lead", stride=2))] == ["d#2l"]  # k = 0, 2


def test_bad_settings_are_named():
    with pytest.raises(ValueError, match="task: expected one of lead, rest, mixed, got 'copy'"):
        PretextSettings(task="copy")
    with pytest.raises(ValueError, match="stride: expected an integer >= 1, got 0"):
        PretextSettings(stride=0)


def test_write_keeps_held_out_validation_documents_out_of_training(tmp_path):
    data, _ = prepared_folder(tmp_path)
    counts = write_pretext(data, tmp_path / "out", PretextSettings(task="lead", stride=1, val_holdout=1))
    train_ids = {json.loads(line)["id"].split("#")[0] for line in open(tmp_path / "out" / "train.jsonl")}
    val_ids = {json.loads(line)["id"].split("#")[0] for line in open(tmp_path / "out" / "val.jsonl")}
    assert train_ids == {"t", "v0", "v1"} and val_ids == {"v2"}
    assert counts == {"train": 9, "val": 3}
    assert (tmp_path / "out" / "vocab.txt").read_text() == "<pad>\t0\n"


def test_with_summaries_adds_real_documents_and_keeps_the_real_validation_split(tmp_path):
    data, val = prepared_folder(tmp_path)
    counts = write_pretext(
        data, tmp_path / "out", PretextSettings(task="lead", stride=1, val_holdout=1, with_summaries=2)
    )
    train = [json.loads(line) for line in open(tmp_path / "out" / "train.jsonl")]
    real = [e for e in train if e["id"] == "t"]
    assert len(real) == 2 and real[0]["tgt"] == ["x"]  # the human summary, twice
    assert len(train) - len(real) == 9  # windows of t, v0, v1 (not of the held-out v2)
    assert (tmp_path / "out" / "val.jsonl").read_text() == (data / "val.jsonl").read_text()
    assert counts == {"train": 11, "val": 3}


def test_skip_short_keeps_the_byline_in_the_source_and_skips_it_in_the_target():
    lead = list(pretext_examples([DOC], PretextSettings(task="lead", stride=1, skip_short=True)))
    assert [e["id"] for e in lead] == ["d#0l", "d#2l", "d#3l"]  # window 1 would repeat window 0's target
    assert lead[0]["src"][0] == ["by", ".", EOS]  # the byline stays in the input ...
    assert lead[0]["tgt"] == DOC["src"][1][:-1]  # ... and the target is the first real sentence


def test_validate_on_summaries_writes_the_held_out_documents(tmp_path):
    data, val = prepared_folder(tmp_path)
    write_pretext(
        data, tmp_path / "out", PretextSettings(task="lead", stride=1, val_holdout=1, validate_on="summaries")
    )
    held = [json.loads(line) for line in open(tmp_path / "out" / "val.jsonl")]
    assert held == [val[2]]
    with pytest.raises(ValueError, match="validate_on: expected one of pretext, summaries, got 'test'"):
        write_pretext(data, tmp_path / "out2", PretextSettings(validate_on="test"))


def test_the_cli_flags_are_the_settings(tmp_path, capsys):
    """``c2fsum pretext`` makes a flag of each field of PretextSettings: the files are those of
    write_pretext with the same settings, and a value out of bounds is refused before any work."""
    from c2fsum.cli.main import main

    data, _ = prepared_folder(tmp_path)
    argv = ["-q", "pretext", "--data", str(data), "--task", "lead", "--stride", "1", "--val-holdout", "1"]
    assert main([*argv, "--out", str(tmp_path / "cli")]) == 0
    write_pretext(data, tmp_path / "api", PretextSettings(task="lead", stride=1, val_holdout=1))
    for name in ("train.jsonl", "val.jsonl"):
        assert (tmp_path / "cli" / name).read_text() == (tmp_path / "api" / name).read_text()
    stats = json.loads((tmp_path / "cli" / "stats.json").read_text())
    assert (stats["pretext"], stats["stride"], stats["skip_short"]) == ("lead", 1, False)
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--out", str(tmp_path / "bad"), "--with-summaries", "-1"])
    assert stop.value.code == 2
    assert "argument --with-summaries: expected an integer >= 0, got -1" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()
