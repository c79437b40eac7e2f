"""select-rewrite from the command line: train (and resume) through the project's trainer, evaluate,
extract with the selector's own sentences, and the picked sentences on ``Summary``."""

import json
from pathlib import Path

import pytest

import c2fsum
import tiny
from c2fsum.cli.main import main
from c2fsum.data.prepare import read_split
from c2fsum.data.tokenize import preprocess_article
from c2fsum.decoding.selection import _trigrams, sentence_cells

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "select-rewrite-cpu.yaml"
SETS = [*tiny.SHRINK, "decode.min_len=20", "decode.max_len=60"]


@pytest.fixture(scope="module")
def run(prepared_small, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("select") / "run"
    assert main(tiny.train_argv(CONFIG, prepared_small, out, 2, SETS)) == 0
    assert main(tiny.train_argv(CONFIG, prepared_small, out, 3, SETS, "--resume")) == 0
    return out


def test_training_runs_through_the_trainer_and_resumes(run):
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    val = [r for r in rows if r["split"] == "val"]
    assert [r["step"] for r in val] == [2, 3]
    assert all(1 < r["ppl"] < 1e6 for r in val)  # perplexity of the picks, not of words
    state = json.loads((run / "last" / "trainer.json").read_text())
    assert state["position"]["step"] == 3


def test_evaluate_writes_predictions_and_the_fine_fraction(run, prepared_small, tmp_path):
    out = tmp_path / "eval"
    argv = ["-q", "evaluate", "--model", str(run), "--data", str(prepared_small), "--split", "test"]
    assert main([*argv, "--out", str(out), "--limit", "3"]) == 0
    m = json.loads((out / "metrics.json").read_text())
    preds = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert m["n_docs"] == 3 and m["seconds_per_doc"] > 0
    assert 0 < m["fine_fraction"] < 1
    # the selector's own sentences: every one a verbatim copy, nothing compressed
    assert (m["verbatim_share"], m["rewritten_share"], m["compression"]) == (100.0, 0.0, 1.0)
    docs = read_split(prepared_small, "test", limit=3)
    for p, d in zip(preds, docs, strict=True):
        words = p["candidate"].split()
        n = sum(1 for s in d["src"] for w in s if w != "</s>")
        # every picked sentence is read at the word level; a pick too short to be a summary sentence
        # (fewer than 4 words) is read and left out, so the fraction is at least the summary's words
        read = p["fine_fraction"] * n
        assert 20 <= len(words) and read >= len(words) - 1e-6 and read == pytest.approx(round(read))


def test_extract_with_a_selector_gives_its_own_sentences(run, prepared_small, tmp_path, capsys):
    doc = read_split(prepared_small, "test", limit=1)[0]
    text = " ".join(w for s in doc["src"] for w in s if w != "</s>")
    f = tmp_path / "paper.txt"
    f.write_text(text)
    assert main(["extract", str(f), "--model", str(run), "--words", "60", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    sents = preprocess_article(text)
    picked = [w for j in got["sentences"] for w in sents[j] if w not in ("<s>", "</s>")]
    assert got["sentences"] and picked == got["tokens"] and len(got["tokens"]) <= 60
    summary = c2fsum.load(str(run)).summarize(text)[0]
    assert summary.sentences == got["sentences"] and summary.tokens == got["tokens"]


def test_the_server_returns_the_picked_sentences_and_their_chunks(run, prepared_small):
    from fastapi.testclient import TestClient

    from c2fsum.serving import create_app

    doc = read_split(prepared_small, "test", limit=1)[0]
    text = " ".join(w for s in doc["src"] for w in s if w != "</s>")
    pipe = c2fsum.load(str(run))
    with TestClient(create_app(pipe)) as client:
        body = client.post("/summarize", json={"text": text}).json()
    summary = pipe.summarize(text)[0]
    assert [p["sentence"] for p in body["picked"]] == summary.sentences == sorted(summary.sentences)  # paper order
    assert body["pick_order"] == summary.picked and sorted(summary.picked) == summary.sentences
    sents = preprocess_article(text)
    for p in body["picked"]:
        assert p["text"] == " ".join(w for w in sents[p["sentence"]] if w not in ("<s>", "</s>"))
        assert p["text"].split()[0] in body["chunks"][p["chunk"]].split()  # it starts in that chunk


def test_picked_sentences_name_their_chunk_and_words_by_hand():
    from c2fsum.serving.app import picked_sentences

    source = "a b . </s> c d . </s> <pad> e f . </s>".split()  # chunks of 4: [a b . </s>] [c d . </s>] [<pad> e f .]
    assert picked_sentences(source, [2, 0], 4) == [
        {"sentence": 2, "chunk": 2, "text": "e f ."},
        {"sentence": 0, "chunk": 0, "text": "a b ."},
    ]


def test_extract_refuses_a_model_that_writes_words(prepared_small, tmp_path, capsys):
    run = tmp_path / "m0"
    assert main(tiny.train_argv(CONFIG.with_name("model0-cpu.yaml"), prepared_small, run, 1, tiny.SHRINK)) == 0
    f = tmp_path / "paper.txt"
    f.write_text("The drug worked. It was cheap.")
    assert main(["extract", str(f), "--model", str(run)]) != 0
    assert "sentence selector" in capsys.readouterr().err


def test_with_a_rewriter_each_pick_is_rewritten_and_no_rewrite_repeats_a_trigram(prepared_small, tmp_path):
    """A (barely trained) pointer-generator as the rewriter: summarize runs through it, starts from the
    selector's first pick, and no trigram of the summary appears twice. Exported, the rewriter ships
    inside the model's folder, and the moved folder summarizes alike."""
    rewriter = tmp_path / "rewriter"
    sets = [*tiny.SHRINK, "model.pointer=true", "decode.beam=2", "decode.max_len=12", "decode.min_len=3"]
    assert main(tiny.train_argv(CONFIG.with_name("model0-cpu.yaml"), prepared_small, rewriter, 2, sets)) == 0
    selector = tmp_path / "selector"
    assert main(tiny.train_argv(CONFIG, prepared_small, selector, 2, [*SETS, f"model.rewriter={rewriter}"])) == 0
    doc = read_split(prepared_small, "test", limit=1)[0]
    text = " ".join(w for s in doc["src"] for w in s if w != "</s>")
    pipe = c2fsum.load(str(selector))
    summary = pipe.summarize(text)[0]
    picked = pipe.extract(text)[0]
    assert summary.sentences and summary.sentences[0] == picked.sentences[0]
    assert len(set(summary.sentences)) == len(summary.sentences) and len(summary.tokens) <= 60  # decode.max_len
    decoded = pipe.decode(pipe.encode_texts([text]))[0]
    assert [w for s in decoded.written for w in s] == summary.tokens
    seen: set = set()
    cells = sentence_cells(decoded.example.words)
    for j, written in zip(decoded.sentences, decoded.written, strict=True):
        source = [decoded.example.words[c] for c in cells[j] if decoded.example.words[c] != "</s>"]
        if written != source:  # a rewrite repeats no content trigram of the summary before it
            assert not _trigrams(written) & seen
        seen |= _trigrams(written)
    assert summary.tokens != picked.tokens  # rewritten, not the picked sentences themselves

    shipped = tmp_path / "export" / "pubmed-rewrite"
    assert main(["-q", "export", "--model", str(selector), "--out", str(shipped)]) == 0
    config = json.loads((shipped / "config.json").read_text())
    assert config["model"]["rewriter"] == "rewriter" and (shipped / "rewriter" / "model.safetensors").is_file()
    moved = tmp_path / "elsewhere"
    shipped.rename(moved)
    rewriter.rename(tmp_path / "gone")  # the exported model needs its own copy only
    again = c2fsum.load(str(moved)).summarize(text)[0]
    assert again.tokens == summary.tokens and again.sentences == summary.sentences
    half = tmp_path / "export" / "half"  # weights stored as float16, the rewriter's too; they load as float32
    assert main(["-q", "export", "--model", str(moved), "--out", str(half), "--dtype", "float16"]) == 0
    assert json.loads((half / "rewriter" / "export.json").read_text())["weights_dtype"] == "float16"
    assert c2fsum.load(str(half)).summarize(text)[0].sentences
