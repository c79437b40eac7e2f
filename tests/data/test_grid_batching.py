import pytest
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


def test_encode_document_reads_the_grid_fields_of_the_config():
    """Every grid field of DataConfig (M, N, target length, chunking, word cut) reaches the example."""
    from c2fsum.config import DataConfig
    from c2fsum.data.batching import encode_document
    from c2fsum.data.vocab import Vocab

    vocab = Vocab.build({"a": 3, "b": 2, "c": 2, "x": 1}, size=10)  # <pad> <unk> <s> </s> a b c x: V = 8
    doc = {"id": "d", "src": [["a", "b", "</s>"], ["c", "zz", "d", "</s>"], ["x", "</s>"]], "tgt": ["a", "zz", "q"]}
    # fixed 2x3 grid: the first 6 words; the target cut to 2 words; zz and d are the document's own words
    ex = encode_document(doc, vocab, DataConfig(chunks=2, chunk_len=3, max_tgt_len=2))
    assert ex.words == ["a", "b", "</s>", "c", "zz", "d"] and ex.oovs == ["zz", "d"]
    assert ex.src_ext == [4, 5, 3, 6, 8, 9] and ex.tgt_words == ["a", "zz"] and ex.tgt_ext == [4, 8]
    # sentence chunks of 2 over the first 5 words (a b </s> | c zz): sentence 2 starts a new row
    ex = encode_document(
        doc, vocab, DataConfig(chunks=0, chunk_len=2, max_tgt_len=5, chunking="sentences", max_words=5)
    )
    assert ex.words == ["a", "b", "</s>", "<pad>", "c", "zz"] and ex.oovs == ["zz"]
    assert ex.src == [4, 5, 3, 0, 6, 1] and ex.tgt_ext == [4, 8, 1]  # q is no document word: <unk>


def test_targets_cut_at_the_last_sentence_end_within_the_limit():
    from c2fsum.config import DataConfig
    from c2fsum.data.batching import cut_target, encode_document
    from c2fsum.data.vocab import Vocab

    words = "we did x . it worked well . then more".split()
    assert cut_target(words, 8, "tokens") == words[:8]
    assert cut_target(words, 8, "sentences") == "we did x . it worked well .".split()
    assert cut_target(words, 7, "sentences") == "we did x .".split()
    assert cut_target(words, 3, "sentences") == "we did x".split()  # no sentence fits: by tokens
    assert cut_target(words, 20, "sentences") == words  # short enough: whole, unfinished or not
    with pytest.raises(ValueError, match="data.target_cut: got 'words'"):
        cut_target(words, 3, "words")
    vocab = Vocab.build({w: 1 for w in words}, size=20)
    doc = {"id": "d", "src": [words], "tgt": words, "refs": [words]}
    ex = encode_document(doc, vocab, DataConfig(max_tgt_len=9, target_cut="sentences"))
    assert ex.tgt_words == "we did x . it worked well .".split() and len(ex.tgt) == 8
