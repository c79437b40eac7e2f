import torch

from c2fsum.losses.reinforce import MovingAverageBaseline, discounted_returns, reinforce_loss


def test_discounted_returns_golden():
    # r = [1, 2, 3], gamma = 0.5: R_3 = 3, R_2 = 2 + 0.5*3 = 3.5, R_1 = 1 + 0.5*2 + 0.25*3 = 2.75
    r = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 9.0]])
    mask = torch.tensor([[True, True, True], [True, True, False]])
    R = discounted_returns(r, mask, 0.5)
    assert torch.allclose(R, torch.tensor([[2.75, 3.5, 3.0], [6.5, 5.0, 0.0]]))


def test_moving_average_baseline_update_rule():
    b = MovingAverageBaseline(beta=0.1)
    R = torch.tensor([[2.0, 4.0], [4.0, 0.0]])
    mask = torch.tensor([[True, True], [True, False]])
    b.update(R, mask)
    # b_1 = 0 + 0.1 * (3 - 0) = 0.3 ; b_2 = 0 + 0.1 * (4 - 0) = 0.4 (only one real value)
    assert torch.allclose(b.get(2, dtype=torch.float64), torch.tensor([0.3, 0.4], dtype=torch.float64))
    b.update(R, mask)
    assert torch.allclose(b.get(3, dtype=torch.float64), torch.tensor([0.57, 0.76, 0.0], dtype=torch.float64))
    assert MovingAverageBaseline(0.1, b.state()).state() == b.state()


def _estimates(theta, rewards, n, baseline, seed):
    """Per-sample REINFORCE gradient estimates of d E[r] / d theta through reinforce_loss."""
    torch.manual_seed(seed)
    pi = torch.softmax(theta, -1)
    c = torch.multinomial(pi.detach().expand(n, -1), 1).squeeze(-1)  # (n,)
    th = theta.detach().clone().requires_grad_(True)
    R = rewards[c].unsqueeze(-1)  # (n, 1)
    mask = torch.ones(n, 1, dtype=torch.bool)
    onehot = torch.nn.functional.one_hot(c, theta.numel()).to(theta.dtype)
    grads = (R - baseline) * (onehot - pi.detach())  # (R_i - b) d log pi_ci, closed form
    # autograd through reinforce_loss agrees: on the whole batch, and (small n) sample by sample
    loss = reinforce_loss(torch.log_softmax(th, -1)[c].unsqueeze(-1), R, baseline, mask, 1.0)
    (g,) = torch.autograd.grad(-loss, th)
    assert torch.allclose(g, grads.sum(0), atol=1e-6 * n)
    for i in range(n if n <= 50 else 0):
        li = reinforce_loss(
            torch.log_softmax(th, -1)[c[i : i + 1]].unsqueeze(-1), R[i : i + 1], baseline, mask[i : i + 1], 1.0
        )
        (gi,) = torch.autograd.grad(-li, th)
        assert torch.allclose(gi, grads[i])
    return grads


def test_reinforce_estimator_is_unbiased_and_baseline_lowers_variance():
    theta = torch.tensor([0.3, -0.5, 1.0], dtype=torch.float64)
    rewards = torch.tensor([10.0, 11.0, 13.0], dtype=torch.float64)  # large offset: baselines matter
    pi = torch.softmax(theta, -1)
    J = (pi * rewards).sum()
    exact = pi * (rewards - J)  # d E[r] / d theta
    # small case checked sample by sample through autograd
    small = _estimates(theta, rewards, 20, torch.zeros(1, dtype=torch.float64), seed=0)
    assert small.shape == (20, 3)
    n = 400_000
    plain = _estimates(theta, rewards, n, torch.zeros(1, dtype=torch.float64), seed=1)
    # a baseline learnt by the moving-average rule from other samples of the reward
    b = MovingAverageBaseline(beta=0.1)
    torch.manual_seed(2)
    for _ in range(200):
        c = torch.multinomial(pi, 64, replacement=True)
        b.update(rewards[c].view(64, 1), torch.ones(64, 1, dtype=torch.bool))
    base = b.get(1, dtype=torch.float64)
    assert abs(float(base) - float(J)) < 0.3
    with_b = _estimates(theta, rewards, n, base, seed=3)
    for est in (plain, with_b):
        mean, se = est.mean(0), est.std(0) / n**0.5
        assert ((mean - exact).abs() < 5 * se + 1e-4).all(), (mean, exact, se)
    assert (with_b.var(0) < plain.var(0) / 10).all()
