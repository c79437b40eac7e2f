"""Random grids for model tests (imported by test modules; tests/ is on sys.path)."""

import torch


def grid(B, M, N, lengths, seed=1, vocab=30):
    """``(B, M, N)`` random ids >= 4 with the first ``lengths[b]`` words real, and the mask."""
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, vocab, (B, M * N), generator=g)
    mask = torch.zeros(B, M * N, dtype=torch.bool)
    for b, n in enumerate(lengths):
        mask[b, :n] = True
    src = src * mask
    return src.view(B, M, N), mask.view(B, M, N)
