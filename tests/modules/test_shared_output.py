"""The shared output layer: Paulus's W_out = tanh(W_emb W_proj) and the factorized W_emb W_proj."""

import pytest
import torch

from c2fsum.config import ModelConfig
from c2fsum.models import build_model
from c2fsum.modules.generators import VocabGenerator


def test_factorized_logits_are_those_of_the_product_matrix():
    """logits = (f W_proj^T) W_emb^T + b equals f (W_emb W_proj)^T + b: associativity, float64 rounding."""
    torch.manual_seed(0)
    gen = VocabGenerator(in_dim=7, vocab_size=11, shared_dim=3, shared_output="linear").double()
    emb = torch.randn(11, 3, dtype=torch.double)
    f = torch.randn(2, 5, 7, dtype=torch.double)
    expected = f @ (emb @ gen.proj).T + gen.bias
    torch.testing.assert_close(gen(f, emb), expected, rtol=1e-12, atol=1e-12)
    target = torch.randint(0, 11, (2, 5))
    picked = torch.log_softmax(expected, -1).gather(-1, target.unsqueeze(-1)).squeeze(-1)
    torch.testing.assert_close(gen.log_prob(f, target, emb), picked, rtol=1e-12, atol=1e-12)
    # the tanh generator with the same weights differs (a test that cannot confuse the two)
    tanh = VocabGenerator(in_dim=7, vocab_size=11, shared_dim=3).double()
    tanh.load_state_dict(gen.state_dict())
    assert (tanh(f, emb) - expected).abs().max() > 1e-3


def test_unknown_shared_output_is_refused_by_name():
    with pytest.raises(ValueError, match="model.shared_output: got 'relu'"):
        VocabGenerator(in_dim=4, vocab_size=5, shared_dim=2, shared_output="relu")


def test_decoding_step_equals_teacher_forcing_with_a_factorized_output():
    """The step path (packed weights, precomputed W_out) and the fused training path agree."""
    cfg = ModelConfig(
        emb_dim=6,
        hidden=8,
        enc_layers=1,
        dec_layers=1,
        dropout=0.0,
        input_feed=False,
        output="paulus",
        share_embeddings=True,
        shared_output="linear",
        pointer=True,
        intra_decoder=True,
    )
    torch.manual_seed(0)
    model = build_model(cfg, 40, 4).eval()
    src = torch.randint(4, 40, (2, 4, 5))
    mask = torch.ones_like(src, dtype=torch.bool)
    tgt_in = torch.randint(4, 40, (2, 6))
    tgt_in[:, 0] = model.bos_id
    with torch.no_grad():
        full = model(src, mask, tgt_in).logprobs  # (B, T, V')
        memory = model.encode(src, mask)
        state = model.init_state(memory)
        for t in range(tgt_in.size(1)):
            o = model.step(memory, state, tgt_in[:, t])
            state = o.state
            torch.testing.assert_close(o.logprobs, full[:, t], rtol=1e-4, atol=1e-5)  # float32, oneDNN vs MKL
