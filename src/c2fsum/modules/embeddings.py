"""Word embeddings, optionally initialized from pretrained word2vec/GloVe vectors."""

from __future__ import annotations

import logging
from pathlib import Path

import torch
from torch import nn

log = logging.getLogger(__name__)


def make_embedding(vocab_size: int, dim: int, pad_id: int = 0) -> nn.Embedding:
    """An ``(V, E)`` embedding whose padding row is zero and receives no gradient."""
    return nn.Embedding(vocab_size, dim, padding_idx=pad_id)


def load_pretrained(emb: nn.Embedding, itos: list[str], path: str | Path, *, binary: bool = False) -> int:
    """Copy vectors of known words from a word2vec (text or binary) or GloVe text file.

    GloVe files (no header line) are read with ``no_header=True``. Returns the number of
    vocabulary words found. Raises ``ValueError`` if the vector size differs from the
    embedding size.
    """
    from gensim.models import KeyedVectors  # heavy import, only when asked for

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: pretrained embedding file does not exist")
    try:
        kv = KeyedVectors.load_word2vec_format(str(path), binary=binary)
    except (ValueError, UnicodeDecodeError):
        if binary:
            raise
        kv = KeyedVectors.load_word2vec_format(str(path), binary=False, no_header=True)
    if kv.vector_size != emb.embedding_dim:
        raise ValueError(
            f"{path}: vectors have {kv.vector_size} dimensions, the model's embeddings have {emb.embedding_dim}"
        )
    found = 0
    with torch.no_grad():
        for i, w in enumerate(itos):
            if i == emb.padding_idx:
                continue
            if w in kv.key_to_index:
                emb.weight[i] = torch.from_numpy(kv[w].copy())
                found += 1
    log.info("pretrained embeddings: %d of %d words found in %s", found, len(itos), path)
    return found
