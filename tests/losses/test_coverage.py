"""The coverage loss (See et al. 2017 eq. 12): a hand-worked attention matrix, the mask, a float64
gradient check, and the bounds that hold for any attention."""

import torch

from c2fsum.losses.coverage import coverage_before, coverage_loss


def test_coverage_loss_hand_worked():
    # three steps over two words: alpha_1 = [1, 0], alpha_2 = [.5, .5], alpha_3 = [.2, .8]
    attn = torch.tensor([[[1.0, 0.0], [0.5, 0.5], [0.2, 0.8]]])  # (B=1, T=3, S=2)
    # c_1 = [0, 0], c_2 = [1, 0], c_3 = [1.5, .5]
    assert torch.allclose(coverage_before(attn), torch.tensor([[[0.0, 0.0], [1.0, 0.0], [1.5, 0.5]]]))
    # min sums: 0, min(.5,1) + min(.5,0) = .5, min(.2,1.5) + min(.8,.5) = .7
    mask = torch.ones(1, 3, dtype=torch.bool)
    assert torch.isclose(coverage_loss(attn, mask), torch.tensor(1.2))
    mask[0, 2] = False  # the third step is padding
    assert torch.isclose(coverage_loss(attn, mask), torch.tensor(0.5))
    # a (B, T, M, N) attention is read flat
    assert torch.isclose(coverage_loss(attn.view(1, 3, 2, 1), mask), torch.tensor(0.5))


def test_attention_that_never_returns_costs_nothing_and_repeating_costs_one_per_step():
    T = 4
    eye = torch.eye(T).unsqueeze(0)  # step t attends word t only
    assert coverage_loss(eye, torch.ones(1, T, dtype=torch.bool)) == 0
    same = torch.zeros(1, T, T)
    same[..., 0] = 1  # every step on word 0: steps 2..T each pay 1
    assert coverage_loss(same, torch.ones(1, T, dtype=torch.bool)) == T - 1


def test_bounded_by_steps_and_gradient_checked():
    g = torch.Generator().manual_seed(0)
    attn = torch.softmax(torch.randn(2, 5, 6, generator=g, dtype=torch.float64), -1)
    mask = torch.ones(2, 5, dtype=torch.bool)
    loss = coverage_loss(attn, mask)
    assert 0 <= loss <= 2 * 4  # step 1 pays 0, each later step at most 1
    attn.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda a: coverage_loss(a, mask), (attn,))
