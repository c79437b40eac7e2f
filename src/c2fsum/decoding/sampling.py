"""Multinomial sampling of summaries, keeping their log-probability differentiable.

Self-critical policy gradient (Paulus et al. 2017, eq. 15)::

    L_rl = (r(y_greedy) - r(y_sample)) * sum_t log p(y_sample_t | y_sample_<t, x)

needs a sampled sequence ``y_sample`` and the summed log-probability of it with its autograd
graph, which :func:`sample` returns. Every row stays in the batch until all rows ended, so
the result lines up with the input batch.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from c2fsum.decoding.hypothesis import StepConstraints, check_lengths
from c2fsum.models.base import Memory, Summarizer


@dataclass
class Sample:
    """Sampled summaries of a batch.

    Attributes:
        tokens: ``(B, T)`` long, the sampled ids (``</s>`` included), ``<pad>`` after the end.
        mask: ``(B, T)`` bool, True on produced tokens (``</s>`` included).
        lengths: ``(B,)`` long, tokens of each summary without the closing ``</s>``.
        step_logprobs: ``(B, T)`` log-probability of each sampled token, 0 after the end;
            differentiable.
        logprob: ``(B,)`` sum of ``step_logprobs`` (the ``</s>`` step included); differentiable.
        eos: ``(B,)`` bool, True where the summary ended with ``</s>`` (False: cut at max_len).
    """

    tokens: Tensor
    mask: Tensor
    lengths: Tensor
    step_logprobs: Tensor
    logprob: Tensor
    eos: Tensor

    def token_lists(self) -> list[list[int]]:
        """Each summary's ids without ``</s>`` and padding, e.g. to compute a reward."""
        return [row[:n].tolist() for row, n in zip(self.tokens.cpu(), self.lengths.tolist(), strict=True)]


def sample(
    model: Summarizer,
    memory: Memory,
    *,
    max_len: int,
    min_len: int = 0,
    temperature: float = 1.0,
    generator: torch.Generator | None = None,
) -> Sample:
    """Draw one summary per document from the model's distribution.

    Runs with autograd enabled (wrap it in ``torch.no_grad()`` when the gradient is not
    needed). Tokens are drawn from the *constrained* distribution (``<pad>``/``<s>`` never,
    ``</s>`` not before ``min_len`` tokens), renormalized and divided by ``temperature``;
    ``step_logprobs`` are the log-probabilities under that same distribution, which is the
    policy whose gradient REINFORCE estimates.

    Args:
        model: any :class:`Summarizer`; memory: the encoded batch, ``words`` ``(B, M, N, H)``.
        max_len: at most this many steps (``</s>`` included).
        min_len: ``</s>`` is forbidden until this many tokens were produced.
        temperature: > 0; 1 samples from the model itself.
        generator: random generator on the memory's device, for reproducible draws.
    Returns:
        a :class:`Sample` with ``T`` = the number of steps run (<= ``max_len``).
    """
    check_lengths(max_len=max_len, min_len=min_len)
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    device = memory.words.device
    n_docs = memory.words.size(0)
    constrain = StepConstraints(pad_id=model.pad_id, bos_id=model.bos_id, eos_id=model.eos_id, min_len=min_len)
    state = model.init_state(memory)
    prev = torch.full((n_docs,), model.bos_id, dtype=torch.long, device=device)
    alive = torch.ones(n_docs, dtype=torch.bool, device=device)
    tokens, masks, step_lps = [], [], []
    for t in range(max_len):
        out = model.step(memory, state, prev)
        logprobs = constrain(out.logprobs, step=t)  # (B, V')
        if temperature != 1.0:
            logprobs = logprobs / temperature
        logprobs = logprobs.log_softmax(dim=-1)  # renormalize over the allowed words
        tok = torch.multinomial(logprobs.detach().exp(), 1, generator=generator).squeeze(1)  # (B,)
        tok = tok.masked_fill(~alive, model.pad_id)
        lp = logprobs.gather(1, tok.unsqueeze(1)).squeeze(1)  # (B,)
        step_lps.append(torch.where(alive, lp, torch.zeros_like(lp)))
        tokens.append(tok)
        masks.append(alive)
        alive = alive & (tok != model.eos_id)
        state, prev = out.state, tok
        if not alive.any():
            break
    tokens_t, mask = torch.stack(tokens, 1), torch.stack(masks, 1)
    step_logprobs = torch.stack(step_lps, 1)
    eos = (tokens_t == model.eos_id).any(1)
    return Sample(
        tokens=tokens_t,
        mask=mask,
        lengths=mask.sum(1) - eos.long(),
        step_logprobs=step_logprobs,
        logprob=step_logprobs.sum(1),
        eos=eos,
    )
