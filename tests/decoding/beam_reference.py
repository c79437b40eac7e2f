"""The plain batched beam search, kept (in the tests) as the reference of :mod:`c2fsum.decoding.beam`.

This is the beam search as it was before its speed-ups (one candidate table of ``(B, K * V')``
per step, all K beams run from the first step, memory expanded to ``B * K`` rows).
``test_beam_fast.py`` checks that :func:`c2fsum.decoding.beam.beam_search` returns exactly the
same hypotheses. It shares with the package's search (imported from it) the choice of the
next beams and of the hypotheses that end (``_next_beams``) and the read-back, so only the
candidate table and the row layout are its own. See :mod:`c2fsum.decoding.beam` for the algorithm.
"""

from __future__ import annotations

import torch
from torch import Tensor

from c2fsum.decoding.beam import _next_beams, _read_back, _Results
from c2fsum.decoding.hypothesis import (
    Hypothesis,
    RepeatBlocker,
    StepConstraints,
)
from c2fsum.models.base import Memory, Summarizer


@torch.no_grad()
def beam_search_reference(
    model: Summarizer,
    memory: Memory,
    *,
    beam: int = 5,
    max_len: int = 100,
    min_len: int = 0,
    length_norm: float = 0.0,
    block_trigrams: bool = False,
    block_repeats: bool = False,
    n_best: int = 1,
) -> list[list[Hypothesis]]:
    """:func:`c2fsum.decoding.beam.beam_search`'s arguments and result, the plain way (the tests
    call it with valid arguments only: the checks are beam_search's)."""
    k = beam
    device = memory.words.device
    n_docs = memory.words.size(0)
    eos_id = model.eos_id
    constrain = StepConstraints(pad_id=model.pad_id, bos_id=model.bos_id, eos_id=eos_id, min_len=min_len)
    blocker = RepeatBlocker.for_rows(n_docs * k, trigrams=block_trigrams, back_to_back=block_repeats)

    state = model.init_state(memory)
    if k > 1:
        expand = torch.arange(n_docs, device=device).repeat_interleave(k)  # (B*K,)
        memory, state = memory.select(expand), state.select(expand)
    results = _Results.none_yet(n_docs, n_best, device)
    prev = torch.full((n_docs * k,), model.bos_id, dtype=torch.long, device=device)
    scores = torch.full((n_docs, k), float("-inf"), device=device)
    scores[:, 0] = 0.0  # at the start only beam 0 is live, so the K beams do not repeat it
    # history for reading hypotheses back: per step, the rows' parent and token (CPU), attention
    hist_parent: list[list[int]] = []
    hist_token: list[list[int]] = []
    hist_attn: list[Tensor] = []
    hist_coarse: list[Tensor] = []
    row_offset = torch.arange(n_docs, device=device).unsqueeze(1) * k  # (B, 1)

    for t in range(max_len):
        n_act = len(results.docs)
        out = model.step(memory, state, prev)
        logprobs = constrain(out.logprobs, step=t, blocker=blocker)  # (B*K, V')
        n_vocab = logprobs.size(1)
        hist_attn.append(out.attention.attn)
        if out.attention.coarse is not None:
            hist_coarse.append(out.attention.coarse)

        cand = (scores.unsqueeze(2) + logprobs.view(n_act, k, n_vocab)).view(n_act, k * n_vocab)
        top_score, top_idx = cand.topk(min(2 * k, k * n_vocab), dim=1)  # (B, 2K), best first
        top_tok, top_beam = top_idx % n_vocab, top_idx // n_vocab
        top_row = top_beam + row_offset[:n_act]  # row of this step's batch
        live_score, live_tok, live_row, done = _next_beams(
            top_score, top_tok, top_row, results, t=t, k=k, max_len=max_len, length_norm=length_norm, eos_id=eos_id
        )
        if t == max_len - 1:
            break
        keep_docs = (~done).nonzero().squeeze(1)
        if keep_docs.numel() < n_act:  # drop documents whose search is over
            if keep_docs.numel() == 0:
                break
            keep_rows = (keep_docs.unsqueeze(1) * k + torch.arange(k, device=device)).view(-1)
            memory = memory.select(keep_rows)
            results.keep(keep_docs)
            live_score, live_tok, live_row = live_score[keep_docs], live_tok[keep_docs], live_row[keep_docs]
        parents = live_row.view(-1)
        shrunk = keep_docs.numel() < n_act
        state = out.state if k == 1 and not shrunk else out.state.select(parents)
        prev, scores = live_tok.view(-1), live_score
        parents_cpu, tokens_cpu = torch.stack([parents, prev]).tolist()
        hist_parent.append(parents_cpu)
        hist_token.append(tokens_cpu)
        if blocker is not None:
            blocker.advance(hist_parent[-1], hist_token[-1])

    return _read_back(results.finished, n_best, hist_parent, hist_token, hist_attn, hist_coarse)
