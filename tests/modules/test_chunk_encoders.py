"""The CNN chunk encoder against the thesis's formula written plainly (Kim 2014: tanh, then max
over the real words), including the shortcuts it takes (tanh after the max, no mask on a full grid)."""

import pytest
import torch
from torch.nn import functional as F

from c2fsum.modules.chunk_encoders import CNNChunkEncoder


def plain(enc: CNNChunkEncoder, emb: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """h^s_i = max over real words t of tanh(conv(x)_t); 0 for a chunk without words."""
    B, M, N, E = emb.shape
    x = F.pad(emb.reshape(B * M, N, E).transpose(1, 2), (0, enc.width - 1))
    h = torch.tanh(enc.conv(x))  # (B*M, F, N)
    out = torch.zeros(B * M, h.size(1), dtype=h.dtype)
    for c in range(B * M):
        words = mask.reshape(B * M, N)[c]
        if words.any():
            out[c] = h[c][:, words].max(-1).values
    return out.view(B, M, -1)


@pytest.mark.parametrize("full", [True, False])
def test_equals_tanh_then_masked_max(full):
    torch.manual_seed(0)
    enc = CNNChunkEncoder(emb_dim=8, filters=5, width=3).double()
    emb = torch.randn(2, 4, 7, 8, dtype=torch.float64, requires_grad=True)
    mask = torch.ones(2, 4, 7, dtype=torch.bool)
    if not full:
        mask = torch.rand(2, 4, 7) > 0.4
        mask[0, 1] = False  # an empty chunk
        mask[1, 2, 1:] = False  # a one-word chunk, shorter than the width
    got, want = enc(emb, mask), plain(enc, emb, mask)
    assert torch.allclose(got, want, atol=1e-12)
    if not full:
        assert got[0, 1].abs().sum() == 0
    g_got = torch.autograd.grad(got.sum(), emb)[0]
    g_want = torch.autograd.grad(want.sum(), emb)[0]
    assert torch.allclose(g_got, g_want, atol=1e-12)
