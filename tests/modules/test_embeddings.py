import numpy as np
import pytest
import torch

from c2fsum.modules.embeddings import load_pretrained, make_embedding

ITOS = ["<pad>", "<unk>", "<s>", "</s>", "the", "cat", "zebra"]


def _emb():
    torch.manual_seed(0)
    return make_embedding(len(ITOS), 3)


def test_word2vec_text_and_glove_files(tmp_path):
    w2v = tmp_path / "vec.txt"
    w2v.write_text("2 3\nthe 1 2 3\ncat 4 5 6\n", encoding="utf-8")
    glove = tmp_path / "glove.txt"
    glove.write_text("the 1 2 3\ncat 4 5 6\n", encoding="utf-8")
    for path in (w2v, glove):
        emb = _emb()
        before = emb.weight.detach().clone()
        assert load_pretrained(emb, ITOS, path) == 2
        assert emb.weight[4].tolist() == [1, 2, 3] and emb.weight[5].tolist() == [4, 5, 6]
        assert torch.equal(emb.weight[6], before[6]) and torch.equal(emb.weight[0], torch.zeros(3))


def test_word2vec_binary_and_errors(tmp_path):
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=3)
    kv.add_vectors(["zebra", "cat"], np.array([[7, 8, 9], [1, 1, 1]], dtype=np.float32))
    path = tmp_path / "vec.bin"
    kv.save_word2vec_format(str(path), binary=True)
    emb = _emb()
    assert load_pretrained(emb, ITOS, path, binary=True) == 2
    assert emb.weight[6].tolist() == [7, 8, 9]
    with pytest.raises(ValueError, match="3 dimensions"):
        load_pretrained(make_embedding(len(ITOS), 5), ITOS, path, binary=True)
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        load_pretrained(emb, ITOS, tmp_path / "nope.txt")
