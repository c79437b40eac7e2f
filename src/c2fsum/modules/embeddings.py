"""Word embeddings, optionally initialized from pretrained vectors (``c2fsum vectors``, word2vec, GloVe)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

import torch
from torch import nn

if TYPE_CHECKING:
    from c2fsum.data.vectors import WordVectors

log = logging.getLogger(__name__)


def make_embedding(vocab_size: int, dim: int, pad_id: int = 0) -> nn.Embedding:
    """An ``(V, E)`` embedding whose padding row is zero and receives no gradient."""
    return nn.Embedding(vocab_size, dim, padding_idx=pad_id)


def load_pretrained(
    emb: nn.Embedding, itos: list[str], source: str | Path | WordVectors, *, binary: bool = False
) -> int:
    """Copy the vectors of the vocabulary's words into ``emb`` (V, E); other rows keep their
    random values, the padding row stays zero. Returns the number of words found.

    ``source``: vectors read by :func:`c2fsum.data.vectors.read_vectors`, or a file it reads
    (``c2fsum vectors`` output, word2vec text or binary, GloVe text). Vectors are never
    projected: their size must be the embedding size, else ValueError naming the file and
    both sizes (train them again with ``c2fsum vectors --dim E``).
    """
    from c2fsum.data.vectors import WordVectors, read_vectors  # reading files: only when asked for

    vectors = source if isinstance(source, WordVectors) else read_vectors(source, binary=binary)
    if vectors.dim != emb.embedding_dim:
        raise ValueError(
            f"{vectors.path}: vectors have {vectors.dim} dimensions, the model's embeddings have "
            f"{emb.embedding_dim} (model.emb_dim); make vectors of that size (c2fsum vectors --dim "
            f"{emb.embedding_dim}) or set model.emb_dim={vectors.dim}"
        )
    row = {w: i for i, w in enumerate(vectors.words)}
    ids = [i for i, w in enumerate(itos) if i != emb.padding_idx and w in row]
    if ids:
        with torch.no_grad():
            rows = torch.from_numpy(vectors.matrix[[row[itos[i]] for i in ids]])  # (found, E)
            emb.weight[torch.tensor(ids)] = rows.to(emb.weight.dtype)
    found = len(ids)
    if found == 0:
        log.warning("pretrained embeddings: no word of the vocabulary (%d words) is in %s", len(itos), vectors.path)
    else:
        log.info(
            "pretrained embeddings: %d of %d vocabulary words found in %s (%.1f%%); the others start random",
            found,
            len(itos),
            vectors.path,
            100 * found / len(itos),
        )
    return found
