"""Documents of any length: unbounded grids, sentence chunking, bucketing by chunk count."""

import pytest
import torch

from c2fsum.config import DataConfig
from c2fsum.data.batching import Example, bucketed_batches, collate, encode_document
from c2fsum.data.grid import PAD, grid_tensor, make_grid, pack_sentences
from c2fsum.data.vocab import Vocab

SENTS = [["a", "b", "</s>"], ["c", "d", "e", "f", "</s>"], ["g", "</s>"]]


def test_unbounded_grid_keeps_every_word_and_max_words_cuts():
    g = make_grid(SENTS, chunks=0, chunk_len=3)
    assert g.words == [w for s in SENTS for w in s] and g.n_rows == 4
    g = make_grid(SENTS, chunks=0, chunk_len=3, max_words=5)
    assert g.words == ["a", "b", "</s>", "c", "d"]
    # the paper's grid is unchanged: chunks > 0 keeps the first M*N words
    assert make_grid(SENTS, chunks=2, chunk_len=3).words == ["a", "b", "</s>", "c", "d", "e"]


def test_sentence_chunking_packs_whole_sentences_and_splits_long_ones():
    assert pack_sentences(SENTS, 4) == [["a", "b", "</s>"], ["c", "d", "e", "f"], ["</s>", "g", "</s>"]]
    assert pack_sentences(SENTS, 8) == [["a", "b", "</s>", "c", "d", "e", "f", "</s>"], ["g", "</s>"]]
    g = make_grid(SENTS, chunks=0, chunk_len=6, chunking="sentences")
    # "g </s>" does not fit in the one cell left after the second sentence: it starts chunk 2
    assert g.rows == [["a", "b", "</s>", PAD, PAD, PAD], ["c", "d", "e", "f", "</s>", PAD], ["g", "</s>"]]
    assert g.n_words == 10
    assert make_grid(SENTS, chunks=1, chunk_len=6, chunking="sentences").words == ["a", "b", "</s>"]
    with pytest.raises(ValueError, match="data.chunking: got 'words'"):
        make_grid(SENTS, chunks=0, chunk_len=6, chunking="words")
    with pytest.raises(ValueError, match="data.max_words"):
        make_grid(SENTS, chunks=0, chunk_len=6, max_words=-1)


def test_sentence_grid_masks_the_padding_inside_the_grid():
    vocab = Vocab.build({"a": 3, "b": 2, "c": 1})
    doc = {"id": "d", "src": [["a", "b", "</s>"], ["c", "a", "zz", "b", "</s>"]], "tgt": ["a"], "refs": []}
    ex = encode_document(doc, vocab, DataConfig(chunks=0, chunk_len=4, max_tgt_len=10, chunking="sentences"))
    assert ex.words == ["a", "b", "</s>", PAD, "c", "a", "zz", "b", "</s>"]
    assert ex.oovs == ["zz"] and ex.n_chunks(4) == 3
    batch = collate([ex], chunks=0, chunk_len=4)
    assert batch.src_mask[0].tolist() == [[True, True, True, False], [True] * 4, [True, False, False, False]]
    ids, mask = grid_tensor([5, 6, 0, 7], chunks=2, chunk_len=3)
    assert mask.tolist() == [[True, True, False], [True, False, False]]


def example(n_words: int, name: str = "x") -> Example:
    return Example(
        id=name,
        words=["w"] * n_words,
        src=[5] * n_words,
        src_ext=[5] * n_words,
        oovs=[],
        tgt=[5],
        tgt_ext=[5],
        tgt_words=["w"],
        refs=[],
    )


def test_bucketing_by_chunk_count_pads_each_batch_to_its_own_longest_document():
    sizes = [40, 4000, 80, 3960, 120, 4000, 40, 80]  # 1..100 chunks of 40 words
    exs = [example(n, str(i)) for i, n in enumerate(sizes)]
    batches = bucketed_batches(len(exs), [len(e.src) for e in exs], batch_size=2, bucket_size=4, seed=0, epoch=0)
    shapes = sorted(collate([exs[i] for i in b], chunks=0, chunk_len=40).src.shape[1] for b in batches)
    # sorted by length: {40, 40} {80, 80} {120, 3960} {4000, 4000}; short documents stay short
    assert shapes == [1, 2, 99, 100]
    assert collate(exs, chunks=10, chunk_len=40).src.shape[1] == 10  # a bounded grid stays bounded


def test_a_100000_word_document_is_summarized_lazily():
    """M grows with the document: 100,000 words are 2,500 chunks of 40; MODEL 3 encodes a few."""
    from c2fsum.config import ModelConfig
    from c2fsum.decoding.greedy import greedy_decode
    from c2fsum.models import build_model

    vocab = Vocab.build({f"w{i}": 100 - i for i in range(60)})
    g = torch.Generator().manual_seed(0)
    words = [f"w{int(i)}" for i in torch.randint(0, 60, (100_000,), generator=g)]
    sents = [words[i : i + 25] for i in range(0, len(words), 25)]
    ex = encode_document({"id": "long", "src": sents}, vocab, DataConfig(chunks=0, chunk_len=40, max_tgt_len=10))
    assert len(ex.words) == 100_000
    batch = collate([ex], chunks=0, chunk_len=40)
    assert batch.src.shape == (1, 2500, 40)
    torch.manual_seed(0)
    cfg = ModelConfig(
        family="model3",
        emb_dim=8,
        hidden=8,
        enc_layers=1,
        dec_layers=1,
        dropout=0.0,
        chunk_filters=8,
        chunk_width=3,
        pos_dim=4,
    )
    model = build_model(cfg, len(vocab), max_chunks=10).eval()
    memory = model.encode(batch.src, batch.src_mask)
    hyp = greedy_decode(model, memory, max_len=6, min_len=6)[0]
    assert len(hyp.tokens) == 6 and hyp.attn.shape == (6, 2500, 40)
    assert memory.lazy.n_slots <= 7 and memory.lazy.fraction_encoded() <= 7 / 2500


def test_chunk_positions_past_the_trained_grid_share_the_last_embedding():
    from c2fsum.modules.chunk_encoders import ChunkEncoder

    enc = ChunkEncoder(kind="bow", vocab_size=10, emb_dim=4, max_chunks=3, pos_dim=2)
    ids = torch.full((1, 6, 2), 5)
    h = enc(ids, None, ids > 0)
    assert torch.equal(h[0, 2], h[0, 5]) and not torch.equal(h[0, 1], h[0, 2])
    assert ChunkEncoder(kind="bow", vocab_size=10, emb_dim=4, max_chunks=0, pos_dim=2).positions == 100
