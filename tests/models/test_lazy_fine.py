"""Lazy fine encoding of MODEL 3: the word-level LSTM runs only over the chunks attention picks.

The eager path (every chunk encoded up front) and the lazy one must give the same outputs on
the same model and input: log-probabilities, attention, and beam search results.
"""

import pytest
import torch

from c2fsum.config import ModelConfig
from c2fsum.decoding.beam import beam_search
from c2fsum.decoding.greedy import greedy_decode
from c2fsum.models import build_model
from c2fsum.models.base import Reading
from c2fsum.models.chunk_cache import ChunkCache
from c2fsum.models.coarse_to_fine import within_budget
from grids import grid

LENGTHS = [70, 23, 41]  # 3 documents over a 9 x 8 grid: 9, 3 and 6 chunks (last ones partial)


def tiny(seed=0, **kw):
    torch.manual_seed(seed)
    opts = dict(
        family="model3", emb_dim=8, hidden=12, enc_layers=2, dec_layers=2, dropout=0.0, chunk_filters=10, chunk_width=3
    )
    opts.update(kw)
    return build_model(ModelConfig(**opts), 30, max_chunks=9).eval()


def encode_both(m, src, mask, read=1):
    eager = m.encode(src, mask, reading=Reading(chunks=read, lazy=False))
    lazy = m.encode(src, mask, reading=Reading(chunks=read))
    return eager, lazy


@pytest.mark.parametrize(
    "kw,read",
    [
        ({}, 1),
        ({"chunk_encoder": "bow", "pos_dim": 3}, 1),
        ({"bidirectional": True}, 1),
        ({"intra_decoder": True, "samples": 2}, 1),
        ({"pointer": True}, 1),  # the copy mixture from sparse attention (pointer_mixture_sparse)
        ({"pointer": True}, 4),  # top-k reading; document 1 has 3 chunks: one slot of weight 0
        ({}, 2),
    ],
)
@torch.no_grad()  # as in decoding: pointer models keep sparse attention only without gradients
def test_eager_and_lazy_steps_agree(kw, read):
    m = tiny(**kw)
    src, mask = grid(3, 9, 8, LENGTHS)
    eager, lazy = encode_both(m, src, mask, read)
    assert lazy.lazy is not None and eager.lazy is None
    assert lazy.words.numel() == 0
    assert torch.allclose(eager.final[0], lazy.final[0], atol=1e-6)
    assert torch.allclose(eager.final[1], lazy.final[1], atol=1e-6)
    se, sl = m.init_state(eager), m.init_state(lazy)
    g = torch.Generator().manual_seed(3)
    for _ in range(8):
        prev = torch.randint(4, 30, (3,), generator=g)
        oe, ol = m.step(eager, se, prev), m.step(lazy, sl, prev)
        assert ol.attention.attn.is_sparse
        assert torch.allclose(oe.logprobs, ol.logprobs, atol=1e-6)
        assert torch.allclose(oe.attention.attn, ol.attention.attn.to_dense(), atol=1e-6)
        assert torch.allclose(oe.attention.coarse, ol.attention.coarse, atol=1e-6)
        # each row reads min(read, its chunks) chunks, weighted by alpha^s renormalized over them
        per_chunk = oe.attention.attn.sum(-1)  # (B, M)
        n_chunks = mask.any(-1).sum(-1)
        assert ((per_chunk > 0).sum(-1) == torch.minimum(n_chunks, torch.tensor(read))).all()
        top = oe.attention.coarse.topk(read, -1).values
        assert torch.allclose(per_chunk.max(-1).values, top[:, 0] / top.sum(-1), atol=1e-6)
        se, sl = oe.state, ol.state
    # the lazily encoded chunks hold exactly the eager word states
    cache = lazy.lazy
    d, c = cache.encoded.nonzero(as_tuple=True)
    assert torch.allclose(cache.read(d, c.unsqueeze(1))[:, 0], eager.words[d, c], atol=1e-6)
    assert 0 < cache.fraction_encoded() < 1


@pytest.mark.parametrize("kw,read", [({}, 1), ({"pointer": True}, 3)])
def test_eager_and_lazy_beam_search_agree_and_hypotheses_share_the_cache(kw, read):
    m = tiny(seed=2, **kw)
    src, mask = grid(3, 9, 8, LENGTHS)
    eager, lazy = encode_both(m, src, mask, read)
    he = beam_search(m, eager, beam=4, max_len=12)
    hl = beam_search(m, lazy, beam=4, max_len=12)
    for a, b in zip(he, hl, strict=True):
        assert a[0].tokens == b[0].tokens
        assert a[0].score == pytest.approx(b[0].score, abs=1e-5)
        assert torch.allclose(a[0].attn, b[0].attn, atol=1e-6)
        assert torch.allclose(a[0].coarse, b[0].coarse, atol=1e-6)
    cache = lazy.lazy
    # beam rows point to their document: no chunk was encoded twice
    assert cache.n_slots == int(cache.encoded.sum())
    assert cache.n_slots <= int(mask.any(-1).sum())
    ge, gl = greedy_decode(m, eager, max_len=10), greedy_decode(m, lazy, max_len=10)
    assert [h.tokens for h in ge] == [h.tokens for h in gl]


def test_only_picked_chunks_are_encoded():
    """A 60-chunk document, greedy for 5 steps: at most 1 + 5 chunks go through the LSTM."""
    m = tiny(seed=1)
    src, mask = grid(1, 60, 8, [480])
    mem = m.encode(src, mask)
    greedy_decode(m, mem, max_len=5, min_len=5)
    cache = mem.lazy
    assert 1 <= cache.n_slots <= 6
    assert cache.encoded[0, 59]  # the last chunk: the decoder's initial state
    assert cache.fraction_encoded() == pytest.approx(cache.n_slots / 60)


def test_lazy_training_matches_eager_and_backpropagates():
    """``lazy_fine``: same sampled chunks (same seed), same loss, same gradients."""
    m = tiny(seed=4, samples=2)
    src, mask = grid(3, 9, 8, LENGTHS)
    tgt = torch.randint(4, 30, (3, 6), generator=torch.Generator().manual_seed(5))
    m.train()
    outs, grads = [], []
    for lazy in (False, True):
        m.lazy_fine = lazy
        m.zero_grad()
        torch.manual_seed(7)
        out = m(src, mask, tgt)
        (out.logprobs.sum() + out.attention.policy.sum()).backward()
        outs.append(out)
        grads.append({n: p.grad.clone() for n, p in m.named_parameters() if p.grad is not None})
    e, lz = outs
    assert not lz.attention.attn.is_sparse
    assert torch.allclose(e.logprobs, lz.logprobs, atol=1e-5)
    assert torch.allclose(e.attention.attn, lz.attention.attn, atol=1e-6)
    assert torch.allclose(e.attention.policy, lz.attention.policy, atol=1e-6)
    assert grads[0].keys() == grads[1].keys()
    assert "source.encoder.rnn.weight_ih_l0" in grads[1]
    for n in grads[0]:
        assert torch.allclose(grads[0][n], grads[1][n], atol=1e-5), n


def test_soft_models_stay_eager():
    m = tiny(family="model2")
    src, mask = grid(1, 9, 8, [30])
    assert m.encode(src, mask).lazy is None


def table_cache(*, seed: int, shape: tuple[int, int, int, int], scale: float):
    """A random table ``(D, M, N, H)`` (with gradients) and a :class:`ChunkCache` whose encoder
    reads chunk ``(d, i)`` as ``table[d, i] * scale``: its states are known by hand."""
    torch.manual_seed(seed)
    D, M, N, _ = shape
    table = torch.randn(*shape, requires_grad=True)

    def encode_rows(docs, rows):
        states = table[docs, rows] * scale  # (U, N, H)
        return states, (states[:, -1].unsqueeze(0), states[:, -1].unsqueeze(0))

    src = torch.ones(D, M, N, dtype=torch.long)
    return table, ChunkCache(encode_rows, src, src.bool())


def test_cache_reads_rows_from_their_blocks_with_the_gradients_of_one_store():
    """With gradients, rows are read block by block (no store rebuilt per step): the same values
    and the same gradients as reading them from ``torch.cat`` of the blocks."""
    table, cache = table_cache(seed=0, shape=(3, 5, 4, 2), scale=2.0)
    reads = [
        (torch.tensor([0, 1, 2]), torch.tensor([[4], [0], [2]])),
        (torch.tensor([0, 1, 2]), torch.tensor([[1, 4], [0, 3], [2, 2]])),
        (torch.tensor([2, 0, 2, 1]), torch.tensor([[0], [1], [2], [3]])),
    ]
    got = torch.cat([cache.read(d, c).flatten(0, 1) for d, c in reads])  # block-wise path
    assert len(cache.blocks) == 3
    want = torch.cat([table[d.unsqueeze(1).expand_as(c), c].flatten(0, 1) * 2.0 for d, c in reads])
    assert torch.equal(got, want)
    weights = torch.randn_like(got)
    (g_got,) = torch.autograd.grad((got * weights).sum(), table)
    (g_want,) = torch.autograd.grad((want * weights).sum(), table)
    assert torch.allclose(g_got, g_want)
    with torch.no_grad():  # decoding: one store, rebuilt once
        again = torch.cat([cache.read(d, c).flatten(0, 1) for d, c in reads])
    assert torch.equal(again, want) and cache._store is not None


def test_a_read_of_more_rows_than_the_store_takes_them_from_one_store_with_the_same_gradients():
    """Two blocks (5 chunks), then a read of 12 rows (>= the store's 5: every teacher-forced step
    at once) takes the path through one store: the same rows as the table, each chunk's gradient
    the sum of its reads' weights (chunks read twice or more included)."""
    table, cache = table_cache(seed=1, shape=(2, 4, 3, 2), scale=3.0)
    cache.read(torch.tensor([0, 1]), torch.tensor([[3], [3]]))  # block 1: 2 chunks
    cache.read(torch.tensor([0, 1, 1]), torch.tensor([[0], [1], [2]]))  # block 2: 3 chunks
    assert len(cache.blocks) == 2 and cache.n_slots == 5
    docs = torch.tensor([0, 1, 0, 1, 0, 1])
    chunks = torch.tensor([[3, 0], [1, 1], [0, 0], [2, 3], [3, 3], [1, 2]])  # 12 rows >= 5 slots
    got = cache.read(docs, chunks)  # (6, 2, N, H)
    want = table[docs.unsqueeze(1).expand_as(chunks), chunks] * 3.0
    assert len(cache.blocks) == 2  # nothing new to encode
    assert torch.equal(got, want)
    weights = torch.randn_like(got)
    (g_got,) = torch.autograd.grad((got * weights).sum(), table)
    (g_want,) = torch.autograd.grad((want * weights).sum(), table)
    assert torch.allclose(g_got, g_want)  # sums of the same products, perhaps in another order


def test_within_budget_allows_every_chunk_until_the_budget_then_only_those_read():
    """Hand-made cache: document 0 (3 chunks of 4, 4 and 2 words) has chunk 0 encoded (4 of 10
    words, 0.4); document 1 (2 chunks of 4 words) has none. Budget 0.4: document 0 is spent (0.4 >=
    0.4) and may read only chunk 0; document 1 may read both of its chunks. Rows 0 and 2 are
    beams of document 0, row 1 of document 1."""
    src = torch.ones(2, 3, 4, dtype=torch.long)
    mask = torch.tensor([[[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 0, 0]], [[1, 1, 1, 1], [1, 1, 1, 1], [0, 0, 0, 0]]]).bool()

    def encode_rows(docs, rows):
        return torch.zeros(len(docs), 4, 2), (torch.zeros(1, len(docs), 2), torch.zeros(1, len(docs), 2))

    cache = ChunkCache(encode_rows, src, mask)
    cache.encode(torch.tensor([0]), torch.tensor([0]))
    doc = torch.tensor([0, 1, 0])
    chunk_mask = mask.any(-1)[doc]  # (3, M)
    allowed = within_budget(cache, doc, chunk_mask, 0.4)
    assert allowed.tolist() == [[True, False, False], [True, True, False], [True, False, False]]
    assert within_budget(cache, doc, chunk_mask, 0.41).tolist() == chunk_mask.tolist()
