"""A rewriter's progress bar counts the sentences it rewrites as sentences, not as documents
(issue 49: ``summarize --model pubmed-rewrite`` showed "decode: 37 doc" for one paper)."""

from __future__ import annotations

from dataclasses import replace

from c2fsum.config import Config
from c2fsum.data.grid import inference_grid
from c2fsum.data.vocab import Vocab
from c2fsum.decoding.options import DecodeOptions
from c2fsum.decoding.selection import Rewriter
from tiny import tiny_model

SENTENCES = [s.split() for s in ["we used old mice .", "the drug worked very well .", "it was quite cheap ."]]


def test_the_rewriters_bar_counts_sentences(capsys):
    vocab = Vocab.from_tokens(w for s in SENTENCES for w in s)
    cfg = Config()
    cfg = replace(cfg, data=inference_grid(cfg.data))
    options = DecodeOptions(beam=1, min_len=0, max_len=4, batch_size=2)
    rewriter = Rewriter(model=tiny_model("model0", len(vocab), seed=1), vocab=vocab, config=cfg, options=options)
    out = rewriter.rewrite(SENTENCES, progress=True)
    assert len(out) == 3
    bar = capsys.readouterr().err.replace("\r", "\n").strip().splitlines()[-1]
    assert bar.startswith("rewrite: 100%") and "3/3" in bar and "sentence/s" in bar, bar
    assert "doc" not in bar and "decode" not in bar, bar
