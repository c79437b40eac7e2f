"""Vocabulary: specials at fixed ids, deterministic order, exact file format, clear errors."""

from __future__ import annotations

from collections import Counter

import pytest

from c2fsum.data.vocab import BOS, EOS, PAD, SPECIALS, UNK, Vocab, VocabError


def test_specials_and_their_ids():
    assert (PAD, UNK, BOS, EOS) == ("<pad>", "<unk>", "<s>", "</s>") == SPECIALS
    v = Vocab.build(Counter({"a": 1}), 10)
    assert v.itos[:4] == [PAD, UNK, BOS, EOS]
    assert (v.pad_id, v.unk_id, v.bos_id, v.eos_id) == (0, 1, 2, 3)
    assert [v.stoi[s] for s in SPECIALS] == [0, 1, 2, 3]


def test_build_orders_by_count_then_alphabetically_and_keeps_eos_once():
    counter = Counter({"the": 5, "b": 2, "a": 2, "c": 2, "</s>": 9, "z": 1, "<unk>": 3})
    v = Vocab.build(counter, size=4)
    assert v.itos == [PAD, UNK, BOS, EOS, "the", "a", "b", "c"]
    assert v.counts == [0, 0, 0, 0, 5, 2, 2, 2]
    assert len(v) == 8
    assert v.itos.count(EOS) == 1


def test_build_size_limits():
    counter = Counter({"x": 3, "y": 2})
    assert len(Vocab.build(counter, 0)) == 4
    assert len(Vocab.build(counter, 100)) == 6
    assert Vocab.build(counter) == Vocab.build(Counter({"y": 2, "x": 3}))
    assert Vocab.from_tokens(["y", "x", "x", "y", "x"], 1).itos[4:] == ["x"]
    with pytest.raises(VocabError, match="size: expected a non-negative int, got -1"):
        Vocab.build(counter, -1)


def test_encode_decode_len_contains():
    v = Vocab.build(Counter({"hello": 2, "world": 1}), 10)
    assert v.encode(["hello", "unseen", "world", EOS]) == [4, 1, 5, 3]
    assert v.decode([4, 5, 3, 0]) == ["hello", "world", EOS, PAD]
    assert "hello" in v and "unseen" not in v and EOS in v
    assert len(v) == 6
    with pytest.raises(VocabError, match="id 6 out of range: vocabulary has 6 entries"):
        v.decode([6])


def test_save_writes_the_documented_format_and_load_round_trips(tmp_path):
    v = Vocab.build(Counter({"the": 3, "-lrb-": 1, "caf\u00e9": 1}), 10)
    path = tmp_path / "vocab.txt"
    v.save(path)
    assert path.read_text(encoding="utf-8") == ("<pad>\t0\n<unk>\t0\n<s>\t0\n</s>\t0\nthe\t3\n-lrb-\t1\ncaf\u00e9\t1\n")
    assert Vocab.load(path) == v
    assert Vocab.load(path).stoi["caf\u00e9"] == 6


@pytest.mark.parametrize(
    "content, message",
    [
        ("<pad>\t0\n<unk>\t0\n<s>\t0\n</s>\t0\nword\n", r"vocab.txt:5: expected 'word<TAB>count'"),
        ("<pad>\t0\n<unk>\t0\n<s>\t0\n</s>\t0\nword\tmany\n", r"vocab.txt:5: count must be an integer"),
        ("<unk>\t0\n<pad>\t0\n<s>\t0\n</s>\t0\n", r"vocab.txt: vocabulary must start with"),
        (
            "<pad>\t0\n<unk>\t0\n<s>\t0\n</s>\t0\na\t1\na\t1\n",
            r"vocab.txt: word 'a' appears twice \(ids 4 and 5\)",
        ),
    ],
)
def test_load_errors_name_file_and_line(tmp_path, content, message):
    path = tmp_path / "vocab.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(VocabError, match=message):
        Vocab.load(path)


def test_load_missing_file(tmp_path):
    with pytest.raises(VocabError, match="vocabulary file not found"):
        Vocab.load(tmp_path / "nope.txt")


def test_save_rejects_words_with_tabs(tmp_path):
    v = Vocab([*SPECIALS, "a\tb"])
    with pytest.raises(VocabError, match="cannot be written"):
        v.save(tmp_path / "v.txt")
