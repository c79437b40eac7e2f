"""Models by name: shipped folders, local directories, Hugging Face hub repositories (no network),
and ``c2fsum export`` (weights only, float16, model card) read back through the verified path.

A tiny MODEL 0 trained for a few steps on the 40 corpus documents stands in for the real
shipped weights (which are made later by ``make model``); the hub is a temporary folder laid out
like the hub cache (``models--owner--name/{blobs,snapshots/<commit>,refs/main}``) read with
``HF_HUB_OFFLINE=1``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import huggingface_hub.constants
import pytest
import torch

import c2fsum
import c2fsum.pretrained.registry as registry
import tiny
from c2fsum.cli.main import main
from c2fsum.errors import CheckpointError
from c2fsum.evaluation.significance import bootstrap_mean
from c2fsum.models.checkpoint import load_checkpoint, read_tensors
from c2fsum.reports.export import export_model

ROOT = Path(__file__).resolve().parents[2]
TINY = [
    *tiny.TINY,
    "data.vocab_size=800",
    "train.optimizer=adam",
    "train.lr=0.01",
    "train.seed=5",
    "train.log_every=4",
    "train.eval_every=20",
    "decode.beam=3",
    "decode.min_len=4",
    "decode.max_len=12",
    "decode.replace_unk=true",  # a model this small writes mostly <unk>: show the words it attends to
]
COMMIT = "0123456789abcdef0123456789abcdef01234567"
FILES = {"model.safetensors", "config.json", "vocab.txt", "lengths.json", "export.json", "README.md", "manifest.json"}


def _train(data: Path, out: Path, seed: int) -> Path:
    return tiny.train_tiny(data, out, [*TINY, f"train.seed={seed}", "train.max_steps=40"])


@pytest.fixture(scope="module")
def run(prepared_small, tmp_path_factory) -> Path:
    return _train(prepared_small, tmp_path_factory.mktemp("ship") / "run", seed=5)


@pytest.fixture(scope="module")
def other_run(prepared_small, tmp_path_factory) -> Path:
    """A second model (another seed) to tell which folder a name resolved to."""
    return _train(prepared_small, tmp_path_factory.mktemp("ship") / "other", seed=6)


@pytest.fixture(scope="module")
def evaluated(run, prepared_small, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ship") / "eval"
    assert (
        main(["-q", "evaluate", "--model", str(run), "--data", str(prepared_small), "--out", str(out), "--limit", "8"])
        == 0
    )
    return out


@pytest.fixture(scope="module")
def exported(run, evaluated, prepared_small, tmp_path_factory) -> dict[str, Path]:
    """The run exported as float32 and float16, the second with test scores, data statistics and notes."""
    root = tmp_path_factory.mktemp("exported")
    notes = root / "notes.md"
    notes.write_text("- Hand-written note: copies the first sentence too often.", encoding="utf-8")
    export_model(run, root / "f32", name="cnndm-small")
    export_model(
        run,
        root / "f16",
        name="cnndm-small",
        dtype="float16",
        eval_dir=evaluated,
        data_dir=prepared_small,
        notes=notes,
    )
    return {"f32": root / "f32", "f16": root / "f16"}


@pytest.fixture(scope="module")
def articles(raw_small) -> list[str]:
    lines = (raw_small / "test.jsonl").read_text(encoding="utf-8").splitlines()[:4]
    return [json.loads(line)["article"] for line in lines]


@pytest.fixture
def shipped(exported, tmp_path, monkeypatch) -> Path:
    """An installed-package stand-in: PRETRAINED_DIR holding the float16 export as ``cnndm-small``."""
    pre = tmp_path / "pretrained"
    shutil.copytree(exported["f16"], pre / "cnndm-small")
    monkeypatch.setattr(registry, "PRETRAINED_DIR", pre)
    return pre


def hub_cache(root: Path, repo: str, folder: Path, commit: str = COMMIT, ref: str = "main") -> Path:
    """Lay ``folder``'s files out like ``huggingface_hub``'s cache: content-addressed blobs, a
    snapshot of relative symlinks per commit, and ``refs/<ref>`` naming the commit."""
    owner, name = repo.split("/")
    store = root / f"models--{owner}--{name}"
    (store / "blobs").mkdir(parents=True, exist_ok=True)
    snap = store / "snapshots" / commit
    snap.mkdir(parents=True)
    extra = root / "gitattributes"  # every hub repository has one; the manifest does not list it
    extra.write_text("*.safetensors filter=lfs diff=lfs merge=lfs -text\n", encoding="utf-8")
    for f in [*sorted(folder.iterdir()), extra]:
        data = f.read_bytes()
        blob = store / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        (snap / (".gitattributes" if f == extra else f.name)).symlink_to(Path("..") / ".." / "blobs" / blob.name)
    (store / "refs").mkdir(exist_ok=True)
    (store / "refs" / ref).write_text(commit, encoding="utf-8")
    return snap


@pytest.fixture
def hub(exported, tmp_path, monkeypatch) -> Path:
    """A hub cache in tmp with ``owner/name`` (the float16 export), read offline."""
    cache = tmp_path / "hf" / "hub"
    hub_cache(cache, "owner/name", exported["f16"])
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # huggingface_hub reads its environment once, at import: set what it already read, too
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    return cache


# -- export ---------------------------------------------------------------------------------
def test_export_writes_only_the_model_and_reads_back_verified(run, exported):
    for kind, folder in exported.items():
        assert {p.name for p in folder.iterdir()} == FILES, kind
        manifest = json.loads((folder / "manifest.json").read_text())
        assert set(manifest["files"]) == FILES - {"manifest.json"}
    src = read_tensors(run / "best" / "model.safetensors")
    f32 = read_tensors(exported["f32"] / "model.safetensors")
    f16 = read_tensors(exported["f16"] / "model.safetensors")
    assert set(src) == set(f32) == set(f16)
    for k, v in src.items():
        assert torch.equal(f32[k], v), k
        assert f16[k].dtype == (torch.float16 if v.is_floating_point() else v.dtype), k
    # float16 weights load back as float32, equal to the rounded originals
    loaded = load_checkpoint(exported["f16"])
    for k, v in loaded.model.state_dict().items():
        assert v.dtype == src[k].dtype, k
        assert torch.equal(v, src[k].half().float() if src[k].is_floating_point() else src[k]), k
    meta = json.loads((exported["f16"] / "export.json").read_text())
    err = max(float((v.half().float() - v).abs().max()) for v in src.values() if v.is_floating_point())
    assert meta["weights_dtype"] == "float16" and meta["max_abs_rounding_error"] == pytest.approx(err)
    assert meta["parameters"] == sum(v.numel() for v in src.values())
    w16 = (exported["f16"] / "model.safetensors").stat().st_size
    w32 = (exported["f32"] / "model.safetensors").stat().st_size
    assert w16 < 0.55 * w32  # half the bytes, plus the header
    # the default minimum summary length travels with the model
    assert loaded.lengths == json.loads((run / "best" / "lengths.json").read_text())


def test_float16_export_summarizes_like_float32(exported, articles):
    a, b = c2fsum.load(str(exported["f32"])), c2fsum.load(str(exported["f16"]))
    sa, sb = a.summarize(articles), b.summarize(articles)
    assert [s.text for s in sa] == [s.text for s in sb]
    assert len({s.text for s in sa}) > 1  # the summaries depend on the document
    for x, y in zip(sa, sb, strict=True):
        assert x.score == pytest.approx(y.score, abs=1e-2)
        assert x.attention.shape == y.attention.shape
        assert float((x.attention - y.attention).abs().max()) < 1e-3


def test_model_card_holds_the_facts(run, evaluated, exported):
    card = (exported["f16"] / "README.md").read_text()
    state = json.loads((run / "last" / "trainer.json").read_text())
    metrics = json.loads((evaluated / "metrics.json").read_text())
    assert card.startswith("# cnndm-small\n")
    assert f"| steps | {state['position']['step']} (" in card
    assert "c2fsum summarize --model cnndm-small" in card and "`make model`" in card
    assert "Hand-written note: copies the first sentence too often." in card
    assert "\ntrain    40 " in card  # the statistics table of `c2fsum prepare`
    assert f"On {metrics['n_docs']} documents of the test split" in card
    assert f"Measured with the weights in `{run / 'best'}`." in card
    concat = ", all highlights one reference"
    for label, key in (
        ("ROUGE-1", "rouge1"),
        ("ROUGE-2", "rouge2"),
        ("ROUGE-L", "rougeL"),
        (f"ROUGE-1{concat}", "rouge1_concat"),
        (f"ROUGE-L{concat}", "rougeL_concat"),
    ):
        row = next(line for line in card.splitlines() if line.startswith(f"| {label} |"))
        score, ci = (c.strip() for c in row.strip("|").split("|")[1:3])
        low, high = (float(x) for x in ci.strip("[]").split(","))
        assert float(score) == pytest.approx(metrics[key], abs=0.006)
        assert low <= float(score) <= high, row
    assert "empty summaries" in card and "`<unk>` is" in card and "Lowest ROUGE-L: document" in card
    seconds = f"{metrics['seconds_per_doc']:.2f}"
    assert f"Decoding: {seconds} s per document" in card and "100.0% of them through the word-level" in card
    assert "Not measured" not in card and "Not recorded" not in card
    bare = (exported["f32"] / "README.md").read_text()  # no --eval/--data: says what is missing
    assert "Not measured yet (export with `--eval EVAL_DIR`" in bare and "Not recorded" in bare


def test_a_lone_checkpoint_exports_with_what_it_knows(run, tmp_path):
    """A checkpoint copied out of its run (no metrics.jsonl): steps and best perplexity from trainer.json."""
    lone = shutil.copytree(run / "best", tmp_path / "lone")
    state = json.loads((lone / "trainer.json").read_text())
    export_model(lone, tmp_path / "out")
    card = (tmp_path / "out" / "README.md").read_text()
    assert f"| steps | {state['position']['step']} (" in card
    best = state["schedule"]["best"]
    assert f"| validation perplexity | best {best:,.2f} (step {state['schedule']['best_step']}), last n/a |" in card


def test_bootstrap_mean_golden_values():
    assert bootstrap_mean([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)
    mean, low, high = bootstrap_mean([0.0, 10.0], samples=2000, seed=1)
    # resampling two documents gives a mean of 0, 5 or 10 with chances 1/4, 1/2, 1/4
    assert (mean, low, high) == (5.0, 0.0, 10.0)
    assert bootstrap_mean([1.0, 4.0, 9.0], seed=3) == bootstrap_mean([1.0, 4.0, 9.0], seed=3)
    with pytest.raises(ValueError, match="non-empty"):
        bootstrap_mean([])


def test_export_refuses_a_folder_over_the_size_bound(run, tmp_path):
    with pytest.raises(CheckpointError, match=r"more than 0.01 MB .*try --dtype float16.*nothing written"):
        export_model(run, tmp_path / "big", max_mb=0.01)
    assert not (tmp_path / "big").exists() and not list(tmp_path.glob(".big.*"))


def test_the_card_claims_what_made_the_weights_only_when_told(run, tmp_path):
    """Without --made-by the card names the source run and the registry's recipe, never claiming
    that the recipe made these weights (the shipped PubMed weights came from staged runs)."""
    export_model(run, tmp_path / "pubmed-model3", name="pubmed-model3")
    card = (tmp_path / "pubmed-model3" / "README.md").read_text()
    assert "Made from nothing" not in card
    assert (
        "`make model NAME=pubmed-model3` in a c2fsum source checkout trains a model by the documented recipe " in card
    )
    assert f"of the run `{load_checkpoint(run).path}`" in card
    for name in ("pubmed-model3", "pubmed-model0"):  # the shipped cards say the same
        shipped = (registry.PRETRAINED_DIR / name / "README.md").read_text()
        assert "Made from nothing" not in shipped and f"`make model NAME={name}`" in shipped


def test_export_command_end_to_end(run, tmp_path, capsys):
    out = tmp_path / "pretrained" / "mine"
    argv = ["-q", "export", "--model", str(run), "--out", str(out), "--dtype", "float16", "--made-by", "by hand"]
    assert main(argv) == 0
    said = capsys.readouterr().out
    assert f"as 'mine' to {out}" in said and "stored as float16" in said
    assert load_checkpoint(out).path == out
    assert "Made from nothing by `by hand`" in (out / "README.md").read_text()
    assert main(["-q", "export", "--model", str(run), "--out", str(tmp_path / "y"), "--max-mb", "0.01"]) == 2
    assert capsys.readouterr().err.startswith(f"c2fsum export: error: {tmp_path / 'y'}: the export would be 0.")
    assert main(["-q", "export", "--model", str(run), "--out", str(tmp_path / "x"), "--eval", "nope"]) == 2
    assert "nope/metrics.json: missing" in capsys.readouterr().err
    # decoding defaults travel with the export; a key the decode section lacks is refused
    argv = ["-q", "export", "--model", str(run), "--out", str(tmp_path / "d"), "--decode", "read_chunks=3", "beam=2"]
    assert main(argv) == 0
    shipped = load_checkpoint(tmp_path / "d").config.decode
    assert (shipped.read_chunks, shipped.beam) == (3, 2)
    assert main(["-q", "export", "--model", str(run), "--out", str(tmp_path / "e"), "--decode", "nope=1"]) == 2
    assert "decode.nope" in capsys.readouterr().err and not (tmp_path / "e").exists()


# -- names ----------------------------------------------------------------------------------
def test_a_shipped_name_loads_the_shipped_folder_before_a_local_one(shipped, other_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(other_run, tmp_path / "cnndm-small")  # a local run with the same name
    assert registry.shipped_names() == ["cnndm-small", "pubmed-model0", "pubmed-model3", "pubmed-rewrite"]
    by_name = c2fsum.load("cnndm-small")
    assert by_name.path == shipped / "cnndm-small"
    local = c2fsum.load("./cnndm-small")
    assert local.path == Path("cnndm-small") / "best"
    w_ship, w_local = by_name.model.state_dict(), local.model.state_dict()
    assert any(not torch.equal(w_ship[k], w_local[k]) for k in w_ship)


def test_a_local_directory_comes_before_a_hub_id(hub, other_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(other_run, tmp_path / "owner" / "name")
    assert c2fsum.load("owner/name").path == Path("owner/name/best")
    monkeypatch.chdir(tmp_path / "owner")
    assert c2fsum.load("owner/name").path == hub / "models--owner--name" / "snapshots" / COMMIT


@pytest.mark.parametrize("spec", ["owner/name", "owner/name@main", f"owner/name@{COMMIT}"])
def test_a_hub_id_loads_from_the_hub_cache_offline(hub, exported, articles, spec):
    model = c2fsum.load(spec)
    assert model.path == hub / "models--owner--name" / "snapshots" / COMMIT
    want = c2fsum.load(str(exported["f16"])).summarize(articles[:2])
    assert [s.text for s in model.summarize(articles[:2])] == [s.text for s in want]


def test_an_unknown_hub_repo_or_revision_is_a_clear_error(hub, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CheckpointError, match=r"owner/name@v9: no such model: .*owner/name@v9 could not be fetched"):
        c2fsum.load("owner/name@v9")
    with pytest.raises(CheckpointError, match=r"nobody/nothing: .*could not be fetched \(LocalEntryNotFoundError"):
        c2fsum.load("nobody/nothing")


def test_an_unknown_name_lists_the_shipped_names_and_what_was_tried(shipped, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CheckpointError) as e:
        c2fsum.load("cnndm-large")
    assert str(e.value) == (
        "cnndm-large: no such model: not a shipped model (cnndm-small, pubmed-model0, pubmed-model3, pubmed-rewrite), "
        "no such directory, and not a Hugging Face hub repository id (owner/name[@revision])"
    )
    doc = tmp_path / "doc.txt"
    doc.write_text("A short article about a dog. It ran far.", encoding="utf-8")
    assert main(["-q", "summarize", "--model", "cnndm-large", str(doc)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"c2fsum summarize: error: {e.value}"


def test_a_shipped_name_without_its_weights_says_how_to_make_them(tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "PRETRAINED_DIR", tmp_path / "pretrained")
    with pytest.raises(
        CheckpointError,
        match=r"pubmed-model3: a shipped model name, but its weights are not in .*"
        r"run `make model NAME=pubmed-model3` in a c2fsum source checkout",
    ):
        c2fsum.load("pubmed-model3")
    with pytest.raises(CheckpointError, match=r"cnndm-small: .*run `make model` in"):
        c2fsum.load("cnndm-small")


@pytest.mark.parametrize("where", ["shipped", "hub"])
def test_tampered_weights_in_a_shipped_or_hub_folder_are_refused(where, shipped, hub):
    folder = shipped / "cnndm-small" if where == "shipped" else hub / "models--owner--name" / "snapshots" / COMMIT
    f = (folder / "model.safetensors").resolve()  # the hub's blob behind the symlink
    data = bytearray(f.read_bytes())
    data[-3] ^= 0x01  # one weight's low bits: the file still parses, the loader must notice
    f.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"model.safetensors: content altered \(SHA-256 differs"):
        c2fsum.load("cnndm-small" if where == "shipped" else "owner/name")


def test_a_forged_dtype_declaration_is_refused(shipped):
    meta = shipped / "cnndm-small" / "export.json"
    meta.write_text(meta.read_text().replace('"float16"', '"float64"'), encoding="utf-8")
    with pytest.raises(CheckpointError, match="export.json: content altered"):
        c2fsum.load("cnndm-small")


def test_the_cli_loads_a_hub_id_from_the_environment(exported, articles, tmp_path):
    """End to end in a fresh process: HF_HUB_CACHE and HF_HUB_OFFLINE as a user would set them."""
    cache = tmp_path / "cache"
    hub_cache(cache, "owner/name", exported["f16"])
    doc = tmp_path / "doc.txt"
    doc.write_text(articles[0], encoding="utf-8")
    env = {
        **os.environ,
        "HF_HOME": str(tmp_path / "home"),
        "HF_HUB_CACHE": str(cache),
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "OMP_NUM_THREADS": "1",
    }
    cmd = [sys.executable, "-m", "c2fsum", "-q", "summarize", "--model", "owner/name", str(doc)]
    got = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stderr
    assert got.stdout.strip() == c2fsum.load(str(exported["f16"])).summarize(articles[0])[0].text.strip()
