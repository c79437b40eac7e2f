"""Disk full and read-only output: a clear error naming the file and the reason, no partial
files left behind, and nothing already written lost.

Real faults where the machine allows it (a tiny tmpfs, remounted read-only; needs root and
mount rights, else those tests skip), and the same faults injected with monkeypatch everywhere.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest
import torch
from safetensors import SafetensorError
from safetensors.torch import load_file

import tiny
from c2fsum.cli.main import main
from c2fsum.data.prepare import prepare
from c2fsum.errors import CheckpointError
from c2fsum.models import checkpoint as checkpoint_format
from c2fsum.models.checkpoint import load_checkpoint
from c2fsum.training import checkpoint
from c2fsum.training.checkpoint import save_checkpoint
from c2fsum.utils.io import atomic_write_text

TINY = [
    *tiny.TINY,
    "data.vocab_size=500",
    "decode.max_len=6",
    "decode.beam=1",
]


@contextmanager
def tmpfs(path: Path, size: str):
    path.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({r.stderr.decode().strip()})")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def remount_read_only(path: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(path)], check=True)


def fill(path: Path) -> None:
    """Fill the file system of ``path`` up to the last byte."""
    with open(path / "filler", "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError as e:
            assert e.errno == errno.ENOSPC


def listing(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


@pytest.fixture(scope="module")
def run(prepared_small, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("disk") / "run"
    return tiny.train_tiny(prepared_small, out, TINY + ["train.max_steps=1"])


def test_disk_full_while_saving_a_checkpoint_keeps_the_previous_one(run, tmp_path):
    loaded = load_checkpoint(run, which="last")
    with tmpfs(tmp_path / "fs", "2m") as fs:
        shutil.copytree(run / "last", fs / "last")
        fill(fs)
        before = listing(fs)
        with pytest.raises(CheckpointError, match=r"fs/last: cannot write the checkpoint \(.*No space left on device"):
            save_checkpoint(fs / "last", model=loaded.model, config=loaded.config, vocab=loaded.vocab)
        assert listing(fs) == before  # no temporary folder left behind
        again = load_checkpoint(fs / "last")  # the previous checkpoint is intact
        assert all(torch.equal(v, loaded.model.state_dict()[k]) for k, v in again.model.state_dict().items())


def test_disk_full_during_prepare_leaves_no_partial_split(raw_small, tmp_path):
    with tmpfs(tmp_path / "fs", "64k") as fs:
        with pytest.raises(OSError, match="No space left on device") as e:
            prepare(raw_small, fs / "data", vocab_size=1000, workers=1, progress=False)
        assert e.value.errno == errno.ENOSPC
        assert listing(fs / "data") == []  # the .train.jsonl.tmp was removed


def test_read_only_output_directory(run, raw_small, tmp_path, capsys):
    loaded = load_checkpoint(run)
    doc = tmp_path / "doc.txt"
    doc.write_text("The cat sat on the mat. The dog barked at the cat all day long.\n")
    with tmpfs(tmp_path / "fs", "1m") as fs:
        (fs / "data").mkdir()
        atomic_write_text(fs / "data" / "old.txt", "kept\n")
        remount_read_only(fs)
        with pytest.raises(CheckpointError, match=r"cannot write the checkpoint \(Read-only file system \[EROFS\]"):
            save_checkpoint(fs / "best", model=loaded.model, config=loaded.config, vocab=loaded.vocab)
        with pytest.raises(OSError, match="Read-only file system"):
            atomic_write_text(fs / "data" / "old.txt", "new\n")
        assert (fs / "data" / "old.txt").read_text() == "kept\n"
        assert main(["-q", "prepare", "--input", str(raw_small), "--output", str(fs / "data"), "--workers", "1"]) == 2
        assert "Read-only file system" in capsys.readouterr().err
        assert (
            main(
                [
                    "-q",
                    "summarize",
                    "--model",
                    str(run),
                    "--beam",
                    "1",
                    "--attention-out",
                    str(fs / "attn.json"),
                    str(doc),
                ]
            )
            == 2
        )
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "Read-only file system" in err[0] and "attn.json" in err[0], err
        assert listing(fs) == ["data", "data/old.txt"]


# -- the same faults injected, on any machine ---------------------------------------------------------------
def test_injected_disk_full_in_the_middle_of_the_weights(run, tmp_path, monkeypatch):
    loaded = load_checkpoint(run, which="last")
    ckpt = Path(shutil.copytree(run / "last", tmp_path / "last"))
    real = checkpoint_format.save_file  # what every checkpoint file's writer calls

    def half_then_enospc(tensors, filename, metadata=None):
        real(tensors, filename, metadata)
        with open(filename, "r+b") as f:
            f.truncate(os.path.getsize(filename) // 2)
        raise SafetensorError("Error while serializing: I/O error: No space left on device (os error 28)")

    monkeypatch.setattr(checkpoint_format, "save_file", half_then_enospc)
    with pytest.raises(CheckpointError, match=r"last: cannot write the checkpoint .*No space left on device"):
        save_checkpoint(ckpt, model=loaded.model, config=loaded.config, vocab=loaded.vocab)
    assert listing(tmp_path) == sorted(["last"] + [f"last/{p.name}" for p in ckpt.iterdir()])  # no temporary folder
    load_checkpoint(ckpt)


def test_injected_disk_full_stops_training_with_one_line_and_a_good_checkpoint(
    prepared_small, tmp_path, monkeypatch, capsys
):
    out = tmp_path / "run"
    args = [
        "-q",
        "train",
        "--config",
        str(Path(__file__).resolve().parents[2] / "configs" / "model0-cpu.yaml"),
        "--data",
        str(prepared_small),
        "--out",
        str(out),
        "--max-steps",
        "2",
        "--set",
        *TINY,
        "data.val_holdout=0",
        "train.eval_every=1",
    ]
    real, calls = checkpoint.write_manifest, {"n": 0}

    def enospc_on_the_third_save(folder):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(folder / "manifest.json"))
        real(folder)

    monkeypatch.setattr(checkpoint, "write_manifest", enospc_on_the_third_save)
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot write the checkpoint (No space left on device [ENOSPC])" in err[0], err
    step1 = load_file(str(out / "last" / "model.safetensors"))
    assert load_checkpoint(out, which="last") and not list(out.glob(".*.tmp"))
    monkeypatch.setattr(checkpoint, "write_manifest", real)  # space freed: resume and finish
    assert main(args + ["--resume"]) == 0
    assert any(not torch.equal(step1[k], v) for k, v in load_file(str(out / "last" / "model.safetensors")).items())


def test_injected_read_only_directory_for_small_files(tmp_path, monkeypatch):
    (tmp_path / "metrics.json").write_text("old\n")

    def erofs(*a, **k):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(tmp_path))

    monkeypatch.setattr("tempfile.mkstemp", erofs)
    with pytest.raises(OSError, match="Read-only file system"):
        atomic_write_text(tmp_path / "metrics.json", "new\n")
    assert listing(tmp_path) == ["metrics.json"] and (tmp_path / "metrics.json").read_text() == "old\n"
