"""The synthetic sanity task (:mod:`c2fsum.data.synthetic`) trained through ``c2fsum train``: MODEL 3
(hard attention, REINFORCE) must pick the cued chunk at every step with near-zero coarse entropy,
MODEL 2 must put its coarse mass there, and the pointer must copy the out-of-vocabulary words.
The controls (no REINFORCE signal, no pointer) show the checks fail when the mechanism is missing.
The larger version with its figures: ``bench/sanity_task.py``."""

from __future__ import annotations

import contextlib
import io
import json
import math
import random
from pathlib import Path

import pytest

from c2fsum.cli.main import main
from c2fsum.data.synthetic import CUE, PLAIN, sanity_document, write_sanity_data
from c2fsum.data.vocab import Vocab
from c2fsum.evaluation.sanity import sanity_figures

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "sanity.yaml"


@pytest.fixture(scope="module")
def sanity_data(tmp_path_factory):
    return write_sanity_data(tmp_path_factory.mktemp("sanity"), sizes=(1000, 20, 100), seed=0)


def train(data, out, *overrides: str) -> None:
    args = ["-q", "train", "--config", str(CONFIG), "--data", str(data), "--out", str(out)]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main([*args, "--set", "train.max_steps=300", *overrides]) == 0


def test_documents_are_built_as_described(sanity_data):
    vocab = Vocab.load(sanity_data / "vocab.txt")
    docs = [json.loads(x) for x in open(sanity_data / "train.jsonl")]
    n_oov = n_words = 0
    for d in docs:
        words = d["src"][0]
        chunks = [words[i : i + 4] for i in range(0, 12, 4)]
        assert len(words) == 12 and [c[0] for c in chunks].count(CUE) == 1
        assert chunks[d["cue"]][0] == CUE and all(c[0] in (CUE, PLAIN) for c in chunks)
        assert d["tgt"] == chunks[d["cue"]][1:] and d["refs"] == [d["tgt"]]
        n_oov += sum(w not in vocab for w in words)
        n_words += 9  # content words
    assert 0.2 < n_oov / n_words < 0.3  # oov_rate 0.25
    assert len({d["cue"] for d in docs}) == 3
    with pytest.raises(ValueError, match="chunk"):
        sanity_document(random.Random(0), "x", chunks=3, chunk_len=1, n_content=4, oov_rate=0.1)


def test_model3_reinforce_picks_the_cued_chunk_and_copies(sanity_data, tmp_path):
    train(sanity_data, tmp_path / "m3", "model.family=model3")
    fig = sanity_figures(tmp_path / "m3", sanity_data)
    assert fig["on_cue"] >= 0.95
    assert fig["entropy"] < 0.05 * math.log(3)
    assert fig["n_oov"] > 50 and fig["oov_copy"] >= 0.95


def test_model2_soft_attention_puts_its_mass_on_the_cued_chunk(sanity_data, tmp_path):
    train(sanity_data, tmp_path / "m2", "model.family=model2")
    fig = sanity_figures(tmp_path / "m2", sanity_data)
    assert fig["on_cue"] >= 0.95 and fig["cue_mass"] > 0.9
    assert fig["oov_copy"] >= 0.95 and fig["exact"] >= 0.9


def test_controls_fail_the_checks(sanity_data, tmp_path):
    """Without the REINFORCE term MODEL 3's chunk scorer gets no gradient: its choice stays near
    uniform (the decoder cannot write the target). Without the pointer no OOV word is written."""
    train(sanity_data, tmp_path / "m3", "model.family=model3", "train.reinforce_scale=0")
    fig = sanity_figures(tmp_path / "m3", sanity_data)
    assert fig["on_cue"] < 0.6 and fig["entropy"] > 0.9 * math.log(3)
    train(sanity_data, tmp_path / "m2", "model.family=model2", "model.pointer=false")
    fig = sanity_figures(tmp_path / "m2", sanity_data)
    assert fig["oov_copy"] == 0.0 and fig["exact"] < 0.5
