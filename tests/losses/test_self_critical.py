import pytest
import torch

from c2fsum.losses.self_critical import mixed_loss, self_critical_loss


def test_sign_and_scale_on_a_constructed_case():
    logp = torch.tensor([-2.0, -3.0], requires_grad=True)
    r_sample = torch.tensor([0.6, 0.2])  # doc 0: the sample beats greedy; doc 1: it is worse
    r_greedy = torch.tensor([0.4, 0.5])
    loss = self_critical_loss(logp, r_sample, r_greedy)
    # (0.4 - 0.6) * -2 + (0.5 - 0.2) * -3 = 0.4 - 0.9 = -0.5
    assert loss.item() == pytest.approx(-0.5)
    loss.backward()
    # gradient descent raises log p of the better sample and lowers that of the worse one
    assert logp.grad.tolist() == pytest.approx([-0.2, 0.3])
    assert logp.grad[0] < 0 < logp.grad[1]


def test_no_gradient_when_sample_equals_greedy_and_mixed_weights():
    logp = torch.tensor([-1.0], requires_grad=True)
    self_critical_loss(logp, torch.tensor([0.3]), torch.tensor([0.3])).backward()
    assert logp.grad.item() == 0
    assert mixed_loss(torch.tensor(2.0), torch.tensor(10.0), 0.9984).item() == pytest.approx(0.9984 * 2 + 0.0016 * 10)
    with pytest.raises(ValueError, match="rl_weight"):
        mixed_loss(torch.tensor(1.0), torch.tensor(1.0), 1.5)
