"""Coarse supervision (losses/coarse.py): the chunks holding each target word, and the negative log
of the chunk attention's mass on them, worked out by hand."""

import math

import torch

from c2fsum.losses.coarse import chunks_holding_targets, coarse_supervision_loss


def test_chunks_holding_targets_by_hand():
    src = torch.tensor([[[120, 5, 0], [7, 130, 120], [0, 0, 0]]])  # (B=1, M=3, N=3), chunk 2 empty
    target = torch.tensor([[120, 130, 5, 999]])  # 5 is frequent (< min_id), 999 is nowhere
    held = chunks_holding_targets(src, target, min_id=100)
    assert held.tolist() == [[[True, True, False], [False, True, False], [False, False, False], [False] * 3]]


def test_loss_is_minus_log_mass_on_the_holding_chunks():
    coarse = torch.tensor([[[0.5, 0.25, 0.25], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]], requires_grad=True)
    held = torch.tensor([[[True, True, False], [False, True, False], [False, False, False]]])
    mask = torch.tensor([[1, 1, 1]])
    loss, steps = coarse_supervision_loss(coarse, held, mask)
    assert steps == 2  # the third step holds nothing: not supervised
    assert abs(float(loss.detach()) - (-math.log(0.75) - math.log(0.3))) < 1e-6
    (g,) = torch.autograd.grad(loss, coarse)
    assert torch.allclose(g[0, 0], torch.tensor([-1 / 0.75, -1 / 0.75, 0.0]))
    assert torch.allclose(g[0, 1], torch.tensor([0.0, -1 / 0.3, 0.0]))
    assert torch.equal(g[0, 2], torch.zeros(3))
    masked, n = coarse_supervision_loss(coarse, held, torch.tensor([[1, 0, 1]]))  # padding: not counted
    assert n == 1 and abs(float(masked.detach()) + math.log(0.75)) < 1e-6
