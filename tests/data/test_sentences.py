"""A prepared document's sentences and a selector's labels (data/sentences.py): one count of a
sentence's words, and a label cache of bounded size."""

from types import SimpleNamespace

from c2fsum.data.sentences import LabelCache, sentence_cells, sentence_words, unmarked


def test_a_sentence_s_words_are_its_tokens_but_the_marks_on_words_ids_and_cells():
    words = "<s> a b </s> <pad> <s> c </s>".split()
    cells = sentence_cells(words)
    assert cells == [[0, 1, 2, 3], [5, 6, 7]]
    assert [unmarked(c, words) for c in cells] == [[1, 2], [6]]
    assert [sentence_words([words[c] for c in s]) for s in cells] == [2, 1]
    assert sentence_words([2, 7, 9, 3], {2, 3}) == 2  # ids, the marks given as ids


def test_the_label_cache_makes_each_example_s_labels_once_and_keeps_only_the_last_used():
    made = []

    def make(ex):
        made.append(ex.id)
        return [[len(ex.words)]]

    def example(i):
        return SimpleNamespace(id=str(i), words=["w"] * i, refs=[["r"]])

    cache = LabelCache(make, size=2)
    assert cache(example(1)) == [[1]] and cache(example(2)) == [[2]] and cache(example(1)) == [[1]]
    assert made == ["1", "2"] and len(cache) == 2
    cache(example(3))  # 2 was used least recently: it goes
    assert len(cache) == 2
    cache(example(1))
    cache(example(2))
    assert made == ["1", "2", "3", "2"]
