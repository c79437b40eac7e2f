"""``c2fsum vectors``: word2vec on a prepared corpus, its files, and a model started from them."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from c2fsum.config import Word2VecSettings
from c2fsum.data.vectors import WordVectors, read_vectors, save_vectors, train_vectors, words_path
from c2fsum.data.vocab import SPECIALS, Vocab
from tiny import TINY


@pytest.fixture(scope="module")
def trained(prepared_small, tmp_path_factory):
    """Vectors of 16 dimensions trained by the CLI on the committed corpus's 40 training documents."""
    from c2fsum.cli.main import main

    out = tmp_path_factory.mktemp("vectors") / "w2v.safetensors"
    argv = ["-q", "vectors", "--data", str(prepared_small), "--out", str(out), "--dim", "16"]
    assert main([*argv, "--epochs", "2", "--min-count", "2", "--workers", "1"]) == 0
    return out


def test_vocabulary_is_the_prepared_one_less_specials_and_rare_words(trained, prepared_small):
    vectors = read_vectors(trained)
    vocab = Vocab.load(prepared_small / "vocab.txt")
    count = dict(zip(vocab.itos, vocab.counts, strict=True))
    assert words_path(trained).name == "w2v.words.txt" and words_path(trained).is_file()
    assert vectors.matrix.shape == (len(vectors.words), 16) and vectors.matrix.dtype == np.float32
    assert not set(vectors.words) & set(SPECIALS)
    assert set(vectors.words) <= set(vocab.itos)
    # vocab.txt counts articles + first highlight; the vectors count every highlight: at least as many
    assert all(count[w] >= 1 for w in vectors.words)
    often = {w for w, c in count.items() if c >= 2 and w not in SPECIALS}
    assert often <= set(vectors.words)
    assert np.isfinite(vectors.matrix).all() and np.abs(vectors.matrix).sum() > 0


def test_a_tiny_model_starts_from_the_vectors_exactly(trained, prepared_small, tmp_path):
    from c2fsum.config import load_config
    from c2fsum.training.trainer import Trainer

    vectors = read_vectors(trained)
    row = {w: i for i, w in enumerate(vectors.words)}
    cfg = load_config(None, [*TINY, f"model.pretrained_emb={trained}"])
    torch.manual_seed(0)
    trainer = Trainer(cfg, prepared_small, tmp_path / "run", progress=False)
    itos = trainer.vocab.itos
    found = [i for i, w in enumerate(itos) if w in row]
    assert len(found) == len(vectors.words)  # every vector's word is in the model's vocabulary
    for emb in (trainer.model.source.emb, trainer.model.tgt_emb):
        weight = emb.weight.detach()
        expected = torch.from_numpy(vectors.matrix[[row[itos[i]] for i in found]])
        assert torch.equal(weight[found], expected)
        assert torch.equal(weight[0], torch.zeros(16))  # padding stays zero
        missing = [i for i in range(1, len(itos)) if itos[i] not in row]
        assert missing and weight[missing].abs().max() <= cfg.model.init_range  # random, as before


def test_the_emb_size_must_match(trained, prepared_small, tmp_path):
    from c2fsum.config import load_config
    from c2fsum.training.trainer import Trainer

    cfg = load_config(None, [*TINY, "model.emb_dim=24", f"model.pretrained_emb={trained}"])
    with pytest.raises(ValueError, match=r"w2v\.safetensors: vectors have 16 dimensions.*have 24 \(model\.emb_dim\)"):
        Trainer(cfg, prepared_small, tmp_path / "run", progress=False)


def test_text_format_reads_back_exactly(trained, tmp_path):
    vectors = read_vectors(trained)
    (text,) = save_vectors(vectors, tmp_path / "w2v.txt")
    again = read_vectors(text)
    assert again.words == vectors.words
    assert np.array_equal(again.matrix, vectors.matrix)
    header = text.read_text(encoding="utf-8").splitlines()[0]
    assert header == f"{len(vectors.words)} 16"


def test_hand_written_word2vec_text_loads_exactly(tmp_path):
    from c2fsum.modules.embeddings import load_pretrained, make_embedding

    path = tmp_path / "hand.vec"
    path.write_text("3 2\ncat 0.1 -2.5e-3\ndog 1e10 -0.333333343\nemu 7 8\n", encoding="utf-8")
    itos = ["<pad>", "<unk>", "<s>", "</s>", "dog", "yak", "cat"]
    torch.manual_seed(0)
    emb = make_embedding(len(itos), 2)
    yak = emb.weight[5].detach().clone()
    assert load_pretrained(emb, itos, path) == 2
    assert emb.weight[6].tolist() == [np.float32(0.1), np.float32(-2.5e-3)]
    assert emb.weight[4].tolist() == [np.float32(1e10), np.float32(-0.333333343)]
    assert torch.equal(emb.weight[5], yak)


def test_bad_files_are_named(tmp_path):
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("this is not\na vector file at all\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"garbage\.txt: not a word2vec or GloVe text vector file"):
        read_vectors(garbage)
    empty = tmp_path / "empty.vec"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match=r"empty\.vec"):
        read_vectors(empty)
    with pytest.raises(FileNotFoundError, match=r"nope\.safetensors"):
        read_vectors(tmp_path / "nope.safetensors")

    vectors = WordVectors(["a", "b"], np.eye(2, dtype=np.float32))
    st, words = save_vectors(vectors, tmp_path / "v.safetensors")
    words.write_text("a\nb\nc\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"v\.words\.txt: 3 words for the 2 vectors of .*v\.safetensors"):
        read_vectors(st)
    words.write_text("a\na\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"v\.safetensors: the word 'a' has two vectors"):
        read_vectors(st)
    words.unlink()
    with pytest.raises(FileNotFoundError, match=r"v\.words\.txt: the word list of .*v\.safetensors"):
        read_vectors(st)
    (tmp_path / "broken.safetensors").write_bytes(b"\x00\x01not safetensors")
    (tmp_path / "broken.words.txt").write_text("a\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken\.safetensors: not a readable safetensors file"):
        read_vectors(tmp_path / "broken.safetensors")
    with pytest.raises(ValueError, match=r"v\.npy: unknown vector file type"):
        save_vectors(vectors, tmp_path / "v.npy")


def test_settings_out_of_range_are_named(prepared_small, tmp_path):
    with pytest.raises(ValueError, match="dim: expected an integer >= 1, got 0"):
        Word2VecSettings(dim=0)
    with pytest.raises(ValueError, match="workers: expected int, got True"):
        Word2VecSettings(workers=True)
    with pytest.raises(FileNotFoundError, match=r"train\.jsonl"):
        train_vectors(tmp_path, progress=False)
    with pytest.raises(ValueError, match="lower --min-count"):
        train_vectors(prepared_small, Word2VecSettings(min_count=10**9, epochs=1, workers=1), progress=False)


def test_the_flags_are_the_settings(tmp_path, capsys):
    """``c2fsum vectors`` makes a flag of each field of Word2VecSettings: given ones reach the
    settings, the others keep the declared defaults, bounds are refused before any work."""
    from c2fsum.cli.main import build_parser, main
    from c2fsum.cli.options import given_settings

    base = ["vectors", "--data", str(tmp_path), "--out", str(tmp_path / "v.txt")]
    a = build_parser().parse_args([*base, "--dim", "16", "--min-count", "3", "--skip-gram", "--no-summaries"])
    assert given_settings(a, Word2VecSettings) == Word2VecSettings(dim=16, min_count=3, skip_gram=True, summaries=False)
    assert given_settings(build_parser().parse_args(base), Word2VecSettings) == Word2VecSettings()
    with pytest.raises(SystemExit) as stop:
        main([*base, "--window", "0"])
    assert stop.value.code == 2
    assert "argument --window: expected an integer >= 1, got 0" in capsys.readouterr().err
