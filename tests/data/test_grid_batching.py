import torch

from c2fsum.data.batching import bucketed_batches
from c2fsum.data.grid import grid_tensor, make_grid


def test_grid_keeps_first_MxN_words_in_reading_order():
    sents = [["a", "b", "</s>"], ["c", "d", "e", "f", "</s>"], ["g", "</s>"]]
    g = make_grid(sents, chunks=2, chunk_len=3)
    assert g.words == ["a", "b", "</s>", "c", "d", "e"]
    assert g.rows == [["a", "b", "</s>"], ["c", "d", "e"]]
    g = make_grid(sents, chunks=4, chunk_len=3)
    assert g.rows[-1] == ["</s>"] and g.n_rows == 4


def test_grid_tensor_pads_at_the_end():
    ids, mask = grid_tensor([5, 6, 7, 8], chunks=3, chunk_len=3)
    assert ids.tolist() == [[5, 6, 7], [8, 0, 0], [0, 0, 0]]
    assert mask.tolist() == [[True, True, True], [True, False, False], [False, False, False]]


def test_bucketed_batches_deterministic_and_complete():
    lengths = [i % 17 for i in range(103)]
    a = bucketed_batches(103, lengths, batch_size=10, bucket_size=3, seed=1, epoch=2)
    b = bucketed_batches(103, lengths, batch_size=10, bucket_size=3, seed=1, epoch=2)
    c = bucketed_batches(103, lengths, batch_size=10, bucket_size=3, seed=1, epoch=3)
    assert a == b and a != c
    assert sorted(i for batch in a for i in batch) == list(range(103))
    # inside a batch lengths are sorted (documents of similar length together)
    for batch in a:
        ls = [lengths[i] for i in batch]
        assert ls == sorted(ls)
    assert torch.tensor([len(x) for x in a]).max() == 10
