"""decode_examples batches documents of similar length together and returns them in input order,
each decoded as it would be alone."""

import random

import pytest
import torch

from c2fsum.config import Config, DataConfig, DecodeConfig
from c2fsum.data.batching import encode_document
from c2fsum.data.vocab import Vocab
from c2fsum.decoding.documents import decode_examples
from c2fsum.decoding.options import DecodeOptions
from c2fsum.errors import InputError
from tiny import tiny_model

WORDS = [f"w{i}" for i in range(20)]


def documents(n: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    docs = []
    for d in range(n):
        n_sents = rng.choice([1, 3, 9, 2, 6])  # lengths vary several-fold
        src = [[rng.choice(WORDS) for _ in range(rng.randint(3, 8))] + ["</s>"] for _ in range(n_sents)]
        docs.append({"id": str(d), "src": src, "tgt": ["w1"], "refs": []})
    return docs


@pytest.mark.parametrize("family,kw", [("model0", {"pointer": True}), ("model3", {"pointer": True})])
def test_documents_come_back_in_input_order_each_as_decoded_alone(family, kw):
    vocab = Vocab.build({w: 20 - i for i, w in enumerate(WORDS[:15])}, size=30)
    data = DataConfig(chunks=0, chunk_len=5, max_tgt_len=10)  # whole documents: grids grow with them
    cfg = Config(data=data, decode=DecodeConfig(beam=3, max_len=8, min_len=2, batch_size=4))
    examples = [encode_document(d, vocab, data) for d in documents(9)]
    assert len({len(e.words) for e in examples}) > 3
    model = tiny_model(family, len(vocab), seed=3, max_chunks=20, **kw)
    together = decode_examples(model, vocab, examples, cfg)
    assert [d.example.id for d in together] == [e.id for e in examples]
    for d, ex in zip(together, examples, strict=True):
        (alone,) = decode_examples(model, vocab, [ex], cfg)
        assert d.hypothesis.tokens == alone.hypothesis.tokens
        assert d.hypothesis.score == pytest.approx(alone.hypothesis.score, abs=1e-4)
        assert d.fine_fraction == pytest.approx(alone.fine_fraction)
    assert len({tuple(d.hypothesis.tokens) for d in together}) > 1  # the documents differ


def test_decoding_with_k_chunks_leaves_the_model_reading_as_before():
    vocab = Vocab.build({w: 20 - i for i, w in enumerate(WORDS[:15])}, size=30)
    data = DataConfig(chunks=0, chunk_len=5, max_tgt_len=10)
    cfg = Config(data=data, decode=DecodeConfig(beam=2, max_len=4, min_len=1))
    model = tiny_model("model3", len(vocab), seed=3, max_chunks=20)
    two = DecodeOptions.from_config(cfg.decode).override(read_chunks=2)
    ex = encode_document(documents(1)[0], vocab, data)
    (before,) = decode_examples(model, vocab, [ex], cfg)
    (d,) = decode_examples(model, vocab, [ex], cfg, two)
    assert (d.hypothesis.attn.sum(-1) > 0).sum(-1).max() == 2  # two chunks read at a step
    (after,) = decode_examples(model, vocab, [ex], cfg)
    assert (before.hypothesis.attn.sum(-1) > 0).sum(-1).max() == 1
    assert after.hypothesis.tokens == before.hypothesis.tokens
    assert torch.equal(after.hypothesis.attn, before.hypothesis.attn)


def test_a_reading_budget_bounds_the_words_read():
    """With ``read_budget`` b, a document stops taking new chunks once b of its words were read:
    it ends below b plus what one step of the beam can add (beam x read_chunks chunks, each at most
    N words); without one the same model reads more. Also: the model reads as before afterwards."""
    vocab = Vocab.build({w: 20 - i for i, w in enumerate(WORDS[:15])}, size=30)
    data = DataConfig(chunks=0, chunk_len=5, max_tgt_len=10)
    cfg = Config(data=data, decode=DecodeConfig(beam=2, max_len=40, min_len=40, read_chunks=2))
    model = tiny_model("model3", len(vocab), seed=4, max_chunks=80)  # reads 9-11% of each document
    rng = random.Random(0)
    long_docs = [
        {"id": str(d), "src": [[rng.choice(WORDS) for _ in range(6)] + ["</s>"] for _ in range(40)], "tgt": ["w1"]}
        for d in range(4)
    ]  # 280 words, 56 chunks each
    examples = [encode_document(d, vocab, data) for d in long_docs]
    free = decode_examples(model, vocab, examples, cfg)
    opts = DecodeOptions.from_config(cfg.decode).override(read_budget=0.03)
    bounded = decode_examples(model, vocab, examples, cfg, opts)
    again = decode_examples(model, vocab, examples, cfg)
    assert [a.fine_fraction for a in again] == [f.fine_fraction for f in free]
    for f, b, ex in zip(free, bounded, examples, strict=True):
        step_max = 2 * 2 * data.chunk_len / len(ex.words)  # beam x read_chunks chunks of <= N words
        assert b.fine_fraction < 0.03 + step_max + 1e-6
        assert b.fine_fraction <= f.fine_fraction
    assert sum(b.fine_fraction for b in bounded) < sum(f.fine_fraction for f in free)


def test_a_reading_budget_is_refused_for_models_that_read_everything():
    vocab = Vocab.build({w: 20 - i for i, w in enumerate(WORDS[:15])}, size=30)
    data = DataConfig(chunks=0, chunk_len=5, max_tgt_len=10)
    cfg = Config(data=data, decode=DecodeConfig(beam=2, max_len=4))
    model = tiny_model("model0", len(vocab), seed=3)
    opts = DecodeOptions.from_config(cfg.decode).override(read_budget=0.5)
    with pytest.raises(InputError, match="read_budget=0.5"):
        decode_examples(model, vocab, [encode_document(documents(1)[0], vocab, data)], cfg, opts)


def test_a_summary_the_length_limit_stops_ends_at_its_last_sentence_end(monkeypatch):
    """A hypothesis that stops mid-sentence, by the length limit (no ``</s>``) or by a ``</s>``
    inside a sentence, keeps its words up to its last ``.`` and the closing bracket after it, as
    the reader's text does; one that ends a sentence keeps every word. The search is replaced by
    one that returns fixed hypotheses: the rule is the test's subject, not what a random model
    writes."""
    import torch

    import c2fsum.decoding.documents as documents_module
    from c2fsum.decoding.hypothesis import Hypothesis

    words = [".", "-rrb-"] + WORDS[:14]
    vocab = Vocab.build({w: 20 - i for i, w in enumerate(words)}, size=30)
    data = DataConfig(chunks=0, chunk_len=5, max_tgt_len=10)
    cfg = Config(data=data, decode=DecodeConfig(beam=2, max_len=6, min_len=1))
    written = [["w1", ".", "-rrb-", "w2", "w3"], ["w1", ".", "w2", ".", "w4"], ["w1", ".", "w2"], ["w1", "w2", "."]]
    wrote_eos = [False, False, True, True]

    def fixed(model, memory, **kw):
        return [
            [Hypothesis([vocab.stoi[w] for w in ws], 0.0, 0.0, torch.zeros(len(ws), 1, 5), eos=eos)]
            for ws, eos in zip(written, wrote_eos, strict=True)
        ]

    monkeypatch.setattr(documents_module, "beam_search", fixed)
    examples = [encode_document(d, vocab, data) for d in documents(4)]
    examples = [e for _, e in sorted(enumerate(examples), key=lambda p: (len(p[1].words), p[0]))]  # decoding order
    model = tiny_model("model0", len(vocab), seed=3)
    out = decode_examples(model, vocab, examples, cfg)
    assert [d.words for d in out] == [["w1", ".", "-rrb-"], ["w1", ".", "w2", "."], ["w1", "."], ["w1", "w2", "."]]
    assert [len(d.hypothesis.tokens) for d in out] == [5, 5, 3, 3]  # the hypotheses keep every token


def test_one_model_decodes_two_readings_at_once_as_it_decodes_each_alone():
    """Decoding options are arguments: one model object serves two threads that read differently
    (one chunk per step with no budget, three chunks per step within a budget) at the same time,
    and each gets what it gets alone. A reading stored on the model would leak from one thread to
    the other: the two settings give different summaries and attention here."""
    import threading

    vocab = Vocab.build({w: 20 - i for i, w in enumerate(WORDS[:15])}, size=30)
    data = DataConfig(chunks=0, chunk_len=5, max_tgt_len=10)
    cfg = Config(data=data, decode=DecodeConfig(beam=2, max_len=12, min_len=6, batch_size=2))
    model = tiny_model("model3", len(vocab), seed=4, max_chunks=80, pointer=True)
    examples = [encode_document(d, vocab, data) for d in documents(8, seed=5)]
    base = DecodeOptions.from_config(cfg.decode)
    settings = {"one": base, "three": base.override(read_chunks=3, read_budget=0.3)}
    alone = {k: decode_examples(model, vocab, examples, cfg, o) for k, o in settings.items()}
    differ = [a.hypothesis.tokens != b.hypothesis.tokens for a, b in zip(*alone.values(), strict=True)]
    assert sum(differ) >= 2  # the check can fail: the two readings write different summaries
    start = threading.Barrier(2)
    together: dict[str, list] = {k: [] for k in settings}

    def run(key: str) -> None:
        start.wait()
        for _ in range(3):
            together[key].append(decode_examples(model, vocab, examples, cfg, settings[key]))

    threads = [threading.Thread(target=run, args=(k,)) for k in settings]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for key, runs in together.items():
        assert len(runs) == 3
        for got in runs:
            for g, a in zip(got, alone[key], strict=True):
                assert g.hypothesis.tokens == a.hypothesis.tokens
                assert torch.equal(g.hypothesis.attn, a.hypothesis.attn)
                assert g.fine_fraction == a.fine_fraction and g.fine_chunks == a.fine_chunks
