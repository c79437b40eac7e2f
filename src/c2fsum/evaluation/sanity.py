"""Figures of a model trained on the sanity task (:mod:`c2fsum.data.synthetic`): does it read the
cued chunk, and does it copy the words outside its vocabulary?"""

from __future__ import annotations

from pathlib import Path

import torch

from c2fsum.data.batching import collate, encode_document
from c2fsum.data.prepare import read_split
from c2fsum.decoding.documents import decode_examples
from c2fsum.decoding.options import DecodeOptions
from c2fsum.errors import InputError
from c2fsum.models.base import Summarizer
from c2fsum.models.checkpoint import load_checkpoint


def sanity_figures(run_dir: str | Path, data_dir: str | Path, split: str = "test") -> dict[str, float]:
    """What a model trained on the sanity task attends to and writes, on ``split``.

    * ``on_cue``: fraction of decoding steps (teacher forcing, eval mode: every target word and the
      closing ``</s>``) whose most likely chunk is the cued one (MODEL 3's argmax choice);
    * ``cue_mass``: mean coarse attention on the cued chunk over those steps;
    * ``entropy``: mean entropy (nats) of the coarse attention ``(B, T, M)`` over those steps
      (uniform: log M);
    * ``exact``: fraction of documents whose greedy summary is the target word for word;
    * ``oov_copy``: fraction of the targets' out-of-vocabulary words that the greedy summary
      writes at their place (0 for a model that cannot copy);
    * ``n_docs``, ``n_oov``: how many documents and OOV target words were checked.
    """
    loaded = load_checkpoint(run_dir)
    model, cfg, vocab = loaded.model.eval(), loaded.config, loaded.vocab
    if not isinstance(model, Summarizer):
        raise InputError(f"{run_dir}: not a coarse-to-fine model (a sentence selector writes no words)")
    docs = read_split(data_dir, split)
    dc = cfg.data
    examples = [encode_document(d, vocab, dc) for d in docs]  # the trained grid, as in training
    b = collate(examples, chunks=dc.chunks, chunk_len=dc.chunk_len)
    with torch.no_grad():
        coarse = model(b.src, b.src_mask, b.tgt_in, b.src_ext, b.n_ext).attention.coarse  # (B, T, M)
    if coarse is None:
        raise InputError(f"{run_dir}: not a coarse-to-fine model (no chunk attention)")
    cue = torch.tensor([d["cue"] for d in docs])  # (B,)
    mask = b.tgt_mask.float()  # (B, T)
    on_cue = (coarse.argmax(-1) == cue[:, None]).float()  # (B, T)
    mass = coarse.gather(-1, cue[:, None, None].expand(-1, coarse.size(1), 1)).squeeze(-1)  # (B, T)
    entropy = -(coarse * coarse.clamp_min(1e-12).log()).sum(-1)  # (B, T)
    greedy = DecodeOptions.from_config(cfg.decode).override(beam=1, min_len=0, max_len=dc.chunk_len + 2)
    decoded = decode_examples(model, vocab, examples, cfg, greedy)
    n_oov = copied = exact = 0
    for d, out in zip(docs, decoded, strict=True):
        words = [w for w in out.words if w != "</s>"]
        exact += words == d["tgt"]
        for i, w in enumerate(d["tgt"]):
            if w not in vocab:
                n_oov += 1
                copied += i < len(words) and words[i] == w
    n = float(mask.sum())
    return {
        "on_cue": float((on_cue * mask).sum()) / n,
        "cue_mass": float((mass * mask).sum()) / n,
        "entropy": float((entropy * mask).sum()) / n,
        "exact": exact / len(docs),
        "oov_copy": copied / max(n_oov, 1),
        "n_docs": len(docs),
        "n_oov": n_oov,
    }
