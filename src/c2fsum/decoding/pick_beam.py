"""Beam search over a selector's picks: whole selections scored together (issue 47).

Greedy picking (:meth:`~c2fsum.models.select_rewrite.SentenceSelector.pick`) takes the most
probable sentence at each step; here ``k`` selections per paper are kept, each extended by every
sentence the rules and the budget allow (:meth:`~c2fsum.models.selector_parts.PickState.allowed`),
and the ``k`` of highest summed log-probability go on, until each has stopped. A stopped selection
keeps its score and its place. The best one is the summary: highest summed log-probability, or that
sum over its steps to the power ``norm`` (Wu et al. 2016's length penalty, simplified: 0 is the raw
sum). After Chen & Bansal (2018), who search whole summaries rather than sentence by sentence; our
code. B papers, k selections each, S+1 candidates (STOP first).
"""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import Tensor

from c2fsum.models.select_rewrite import SentenceSelector
from c2fsum.models.selector_parts import STOP, PickRules, PickState, SelectorMemory


def tile_memory(memory: SelectorMemory, rows: Tensor) -> SelectorMemory:
    """``memory`` with its papers' rows taken as ``rows`` ``(R,)`` says (a paper once per selection
    kept); the overlap rule's word sets are taken row by row as well."""
    said = tuple(ws.rows(rows) for ws in memory.said)
    h, c = memory.state
    return SelectorMemory(
        keys=memory.keys[rows],
        glimpse_keys=memory.glimpse_keys[rows],
        pointer_keys=memory.pointer_keys[rows],
        real=memory.real[rows],
        words=memory.words[rows],
        state=(h[:, rows], c[:, rows]),
        content=memory.content[rows] if memory.content is not None else None,
        said=said,
    )


def reorder(at: PickState, rows: Tensor) -> PickState:
    """The pick states of ``rows`` ``(R,)`` (each a copy: selections that share a parent grow apart)."""
    have = at.have[rows] if at.have is not None else None
    picks = [list(at.picks[int(r)]) for r in rows]
    stopped = [at.stopped[int(r)] for r in rows]
    return PickState(
        words=at.words[rows],
        taken=at.taken[rows],
        used=at.used[rows],
        done=at.done[rows],
        have=have,
        overlap=at.overlap[rows],
        picks=picks,
        stopped=stopped,
    )


@torch.no_grad()
def beam_pick(
    model: SentenceSelector,
    memory: SelectorMemory,
    *,
    k: int,
    rules: PickRules | None = None,
    summary_words: int = 0,
    min_words: int = 0,
    norm: float = 0.0,
) -> list[list[int]]:
    """The best of ``k`` selections kept for each paper of ``memory`` (``k`` = 1: the greedy picks),
    as :meth:`pick` bounds them (``rules``, ``summary_words``, ``min_words``); each paper's picks in
    pick order. ``norm``: the best is the one of highest summed log-probability over its steps
    (picks and stop) to the power ``norm``."""
    B, S1 = memory.real.shape
    device = memory.keys.device
    rows = torch.arange(B, device=device).repeat_interleave(k)  # (B*k,)
    mem = tile_memory(memory, rows)
    if rules is not None:
        rules = replace(rules, blocked=rules.blocked[rows], antecedent=rules.antecedent[rows])
    at = PickState.start(mem)
    score = torch.full((B, k), float("-inf"), device=device)
    score[:, 0] = 0.0  # one live selection per paper at first
    score = score.view(-1)
    steps = torch.zeros(B * k, device=device)
    previous = torch.full((B * k, 1), -1, dtype=torch.long, device=device)
    state = mem.state
    only_stop = torch.full((S1,), float("-inf"), device=device)
    only_stop[STOP] = 0.0
    limit = S1 - 1
    base = (torch.arange(B, device=device) * k).unsqueeze(1)  # (B, 1)
    for step in range(limit + 1):
        allowed, can_pick = at.allowed(mem, rules, summary_words, min_words)
        lp, state = model.next_step(mem, at, previous, allowed, state, last=step == limit)
        lp = torch.where(at.done.unsqueeze(1), only_stop, lp)  # (B*k, S+1): a stopped one stays
        total = (score.unsqueeze(1) + lp).view(B, k * S1)
        top, idx = total.topk(k, -1)  # (B, k)
        parent = (base + idx // S1).view(-1)  # (B*k,)
        choice = (idx % S1).view(-1)
        at = reorder(at, parent)
        state = (state[0][:, parent], state[1][:, parent])
        steps = steps[parent] + (~at.done).to(steps.dtype)
        score = top.view(-1)
        at.take(mem, choice, can_pick[parent], rules)
        previous = choice.unsqueeze(1)
        if bool(at.done.all()):
            break
    ranked = score / steps.clamp(min=1) ** norm if norm else score
    best = ranked.view(B, k).argmax(-1) + base.squeeze(1)
    return [at.picks[int(r)] for r in best]
