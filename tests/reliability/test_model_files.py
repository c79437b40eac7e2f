"""Model files: loading never unpickles, and every damaged or mismatched file gets a clear error.

Each test copies the checkpoint of one tiny trained run, injects one fault and checks that
``load_checkpoint`` (and through it ``c2fsum.load`` and the CLI) names the file and the problem.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

import c2fsum
import tiny
from c2fsum.cli.main import main
from c2fsum.config import load_config
from c2fsum.errors import CheckpointError
from c2fsum.models.checkpoint import FORMAT_VERSION, load_checkpoint, write_manifest
from c2fsum.training.trainer import Trainer

TINY = [
    *tiny.TINY,
    "train.seed=3",
    "data.vocab_size=500",
    "decode.max_len=8",
    "decode.beam=2",
]


@pytest.fixture(scope="module")
def run(prepared_small, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ckpt") / "run"
    return tiny.train_tiny(prepared_small, out, TINY + ["train.max_steps=1"])


@pytest.fixture
def ckpt(run, tmp_path) -> Path:
    """A private copy of the run's ``last`` checkpoint, to damage."""
    return Path(shutil.copytree(run / "last", tmp_path / "ckpt"))


def test_a_saved_checkpoint_lists_every_file_in_its_manifest(ckpt, prepared_small):
    from c2fsum.data.vocab import Vocab

    manifest = json.loads((ckpt / "manifest.json").read_text())
    assert manifest["version"] == FORMAT_VERSION and manifest["format"] == "c2fsum-checkpoint"
    assert set(manifest["files"]) == {p.name for p in ckpt.iterdir()} - {"manifest.json"}
    loaded = load_checkpoint(ckpt)
    # the training vocabulary: the 4 specials and the data's 500 most frequent words, in order
    assert loaded.vocab.itos == Vocab.load(prepared_small / "vocab.txt").itos[: 500 + 4]
    saved = load_file(str(ckpt / "model.safetensors"))
    own = loaded.model.state_dict()
    assert saved.keys() == own.keys() and all(torch.equal(saved[k], own[k]) for k in saved)


def test_truncated_weights(ckpt):
    f = ckpt / "model.safetensors"
    size = f.stat().st_size
    with open(f, "r+b") as fh:
        fh.truncate(size // 2)
    with pytest.raises(CheckpointError, match=rf"model.safetensors: truncated: {size // 2} bytes, .* says {size}"):
        load_checkpoint(ckpt)
    # without a manifest the safetensors reader itself refuses the file
    (ckpt / "manifest.json").unlink()
    with pytest.raises(CheckpointError, match="model.safetensors: not a readable safetensors file"):
        load_checkpoint(ckpt)


def test_tampered_bytes(ckpt):
    f = ckpt / "model.safetensors"
    good = f.read_bytes()
    data = bytearray(good)
    data[-10] ^= 0xFF  # one byte of a tensor, the file still parses
    f.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="model.safetensors: content altered"):
        load_checkpoint(ckpt)
    f.write_bytes(good)
    (ckpt / "vocab.txt").write_text("tampered\n")
    with pytest.raises(CheckpointError, match="truncated"):
        load_checkpoint(ckpt)


def _rewrite_weights(ckpt: Path, change) -> None:
    w = load_file(str(ckpt / "model.safetensors"))
    change(w)
    save_file(w, str(ckpt / "model.safetensors"))
    write_manifest(ckpt)  # a consistent manifest: the fault is in the content itself


def test_missing_tensor(ckpt):
    name = sorted(load_file(str(ckpt / "model.safetensors")))[0]
    _rewrite_weights(ckpt, lambda w: w.pop(name))
    with pytest.raises(CheckpointError, match=rf"missing tensor\(s\) \['{name}'\]"):
        load_checkpoint(ckpt)


def test_unexpected_tensor_and_wrong_dtype_and_nan(ckpt):
    _rewrite_weights(ckpt, lambda w: w.update(extra=torch.zeros(2)))
    with pytest.raises(CheckpointError, match=r"unexpected tensor\(s\) \['extra'\]"):
        load_checkpoint(ckpt)
    _rewrite_weights(ckpt, lambda w: w.pop("extra"))
    name = next(k for k, v in load_file(str(ckpt / "model.safetensors")).items() if v.is_floating_point())
    _rewrite_weights(ckpt, lambda w: w.update({name: w[name].double()}))
    with pytest.raises(CheckpointError, match=rf"tensor '{name}' has dtype torch.float64, expected torch.float32"):
        load_checkpoint(ckpt)
    _rewrite_weights(ckpt, lambda w: w.update({name: torch.full_like(w[name], float("nan")).float()}))
    with pytest.raises(CheckpointError, match=rf"tensor '{name}' holds NaN or Inf"):
        load_checkpoint(ckpt)


def test_wrong_vocabulary_size(ckpt):
    lines = (ckpt / "vocab.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    (ckpt / "vocab.txt").write_text("".join(lines[:300]), encoding="utf-8")  # 300 entries, weights have 504
    write_manifest(ckpt)
    with pytest.raises(CheckpointError, match=r"has shape \[504, 16\], .* expects \[300, 16\].*wrong vocabulary size"):
        load_checkpoint(ckpt)


def test_other_format_version_and_not_a_manifest(ckpt):
    m = json.loads((ckpt / "manifest.json").read_text())
    (ckpt / "manifest.json").write_text(json.dumps({**m, "version": FORMAT_VERSION + 1}))
    with pytest.raises(
        CheckpointError,
        match=rf"format version {FORMAT_VERSION + 1}, this c2fsum reads version "
        rf"{FORMAT_VERSION}",
    ):
        load_checkpoint(ckpt)
    (ckpt / "manifest.json").write_text('{"weights": 1}')
    with pytest.raises(CheckpointError, match="not a c2fsum checkpoint manifest"):
        load_checkpoint(ckpt)
    (ckpt / "manifest.json").write_text('{"format": "c2fsum-checkpoint", "vers')
    with pytest.raises(CheckpointError, match="manifest.json: unreadable manifest"):
        load_checkpoint(ckpt)


def test_damaged_config_names_the_file(ckpt):
    cfg = json.loads((ckpt / "config.json").read_text())
    cfg["model"]["no_such_field"] = 1
    (ckpt / "config.json").write_text(json.dumps(cfg))
    write_manifest(ckpt)
    with pytest.raises(CheckpointError, match="config.json: .*no_such_field"):
        load_checkpoint(ckpt)
    (ckpt / "config.json").write_text("{not json")
    write_manifest(ckpt)
    with pytest.raises(CheckpointError, match="config.json"):
        load_checkpoint(ckpt)


class _Payload:
    """Unpickling this would create the file named ``marker``."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def test_a_pickle_in_place_of_the_weights_is_refused_and_never_run(ckpt, tmp_path):
    marker = tmp_path / "pwned"
    (ckpt / "model.safetensors").write_bytes(pickle.dumps(_Payload(str(marker)), protocol=4))
    (ckpt / "manifest.json").unlink()
    with pytest.raises(CheckpointError, match="pickle or torch.save file, not safetensors; c2fsum never unpickles"):
        load_checkpoint(ckpt)
    torch.save({"w": torch.zeros(1)}, ckpt / "model.safetensors")
    with pytest.raises(CheckpointError, match="pickle or torch.save file"):
        load_checkpoint(ckpt)
    assert not marker.exists()


def test_loading_and_resuming_never_unpickle(run, prepared_small, tmp_path, monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("something unpickled")

    copy = Path(shutil.copytree(run, tmp_path / "run"))
    text = ["The cat sat on the mat. It was a sunny day in the city."]
    expected = c2fsum.load(copy).summarize(text)[0]
    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    monkeypatch.setattr(torch, "load", refuse)
    summary = c2fsum.load(copy).summarize(text)[0]
    assert summary.tokens and summary.tokens == expected.tokens and summary.text == expected.text
    t = Trainer(load_config(None, TINY + ["train.max_steps=2"]), prepared_small, copy, resume=True, progress=False)
    assert t.fit()["steps"] == 2


def test_the_cli_prints_one_line_naming_the_file(run, tmp_path, capsys):
    copy = Path(shutil.copytree(run, tmp_path / "run"))
    for name in ("best", "last"):
        f = copy / name / "model.safetensors"
        f.write_bytes(f.read_bytes()[:100])
    doc = tmp_path / "doc.txt"
    doc.write_text("The cat sat on the mat.\n")
    assert main(["-q", "summarize", "--model", str(copy), str(doc)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "model.safetensors: truncated: 100 bytes" in err, err
