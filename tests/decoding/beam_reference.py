"""The plain batched beam search, kept (in the tests) as the reference of :mod:`c2fsum.decoding.beam`.

This is the beam search as it was before its speed-ups (one candidate table of ``(B, K * V')``
per step, all K beams run from the first step, memory expanded to ``B * K`` rows).
``test_beam_fast.py`` checks that :func:`c2fsum.decoding.beam.beam_search` returns exactly the
same hypotheses. It shares the stopping rule, the finished-hypothesis record and the read-back
with the package's search (imported from it), so only the step itself is a second copy. See
:mod:`c2fsum.decoding.beam` for the algorithm.
"""

from __future__ import annotations

import torch
from torch import Tensor

from c2fsum.decoding.beam import _Finished, _length_bound, _read_back
from c2fsum.decoding.hypothesis import (
    Hypothesis,
    StepConstraints,
    TrigramBlocker,
    check_lengths,
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
    n_best: int = 1,
) -> list[list[Hypothesis]]:
    """Beam search over a batch of documents.

    Call ``model.eval()`` first (this function does not change the model's mode).

    Args:
        model: any :class:`Summarizer`.
        memory: the encoded batch, ``words`` ``(B, M, N, H)``.
        beam: K, hypotheses kept per document.
        max_len: at most this many steps (``</s>`` included); longer hypotheses are cut.
        min_len: ``</s>`` is forbidden until this many tokens were produced.
        length_norm: rank final hypotheses by ``score / T**length_norm`` (T counts ``</s>``).
        block_trigrams: never produce a trigram twice within a hypothesis (Paulus et al. 2017).
        n_best: hypotheses returned per document (at most ``beam``).
    Returns:
        for each of the B documents, its best hypotheses (at most ``n_best``), best first.
    """
    check_lengths(max_len=max_len, min_len=min_len)
    if beam < 1:
        raise ValueError(f"beam must be >= 1, got {beam}")
    if not 1 <= n_best <= beam:
        raise ValueError(f"n_best must be between 1 and beam={beam}, got {n_best}")
    k = beam
    device = memory.words.device
    n_docs = memory.words.size(0)
    eos_id = model.eos_id
    constrain = StepConstraints(pad_id=model.pad_id, bos_id=model.bos_id, eos_id=eos_id, min_len=min_len)
    blocker = TrigramBlocker(n_docs * k) if block_trigrams else None

    state = model.init_state(memory)
    if k > 1:
        expand = torch.arange(n_docs, device=device).repeat_interleave(k)  # (B*K,)
        memory, state = memory.select(expand), state.select(expand)
    docs = list(range(n_docs))  # document of each active batch entry
    prev = torch.full((n_docs * k,), model.bos_id, dtype=torch.long, device=device)
    scores = torch.full((n_docs, k), float("-inf"), device=device)
    scores[:, 0] = 0.0  # at the start only beam 0 is live, so the K beams do not repeat it
    fin_best = torch.full((n_docs, n_best), float("-inf"), device=device)  # n_best finished norm scores
    finished: list[list[_Finished]] = [[] for _ in range(n_docs)]
    # history for reading hypotheses back: per step, the rows' parent and token (CPU), attention
    hist_parent: list[list[int]] = []
    hist_token: list[list[int]] = []
    hist_attn: list[Tensor] = []
    hist_coarse: list[Tensor] = []
    row_offset = torch.arange(n_docs, device=device).unsqueeze(1) * k  # (B, 1)

    for t in range(max_len):
        n_act = len(docs)
        out = model.step(memory, state, prev)
        logprobs = constrain(out.logprobs, step=t, blocker=blocker)  # (B*K, V')
        n_vocab = logprobs.size(1)
        hist_attn.append(out.attn)
        if out.coarse is not None:
            hist_coarse.append(out.coarse)

        cand = (scores.unsqueeze(2) + logprobs.view(n_act, k, n_vocab)).view(n_act, k * n_vocab)
        top_score, top_idx = cand.topk(min(2 * k, k * n_vocab), dim=1)  # (B, 2K), best first
        top_tok, top_beam = top_idx % n_vocab, top_idx // n_vocab
        top_row = top_beam + row_offset[:n_act]  # row of this step's batch
        top_eos = top_tok == eos_id

        # hypotheses ending here: </s> among the best K candidates
        is_fin = top_eos[:, :k] & torch.isfinite(top_score[:, :k])  # (B, K)
        # next beams: the best K candidates not ending in </s> (stable sort keeps score order)
        live = torch.sort(top_eos.to(torch.uint8), dim=1, stable=True).indices[:, :k]  # (B, K)
        live_score = top_score.gather(1, live).masked_fill(top_eos.gather(1, live), float("-inf"))
        live_tok, live_row = top_tok.gather(1, live), top_row.gather(1, live)
        last = t == max_len - 1
        if last:  # max_len reached: the live beams end too
            is_fin = torch.cat([is_fin, torch.isfinite(live_score)], dim=1)
            fin_score = torch.cat([top_score[:, :k], live_score], dim=1)
            fin_tok, fin_row = (
                torch.cat([top_tok[:, :k], live_tok], 1),
                torch.cat([top_row[:, :k], live_row], 1),
            )
        else:
            fin_score, fin_tok, fin_row = top_score[:, :k], top_tok[:, :k], top_row[:, :k]
        alpha_len = (t + 1) ** length_norm
        fin_norm = (fin_score / alpha_len).masked_fill(~is_fin, float("-inf"))

        fin_best = torch.cat([fin_best, fin_norm], dim=1).topk(n_best, dim=1).values
        bound = _length_bound(live_score[:, 0], next_len=t + 2, max_len=max_len, alpha=length_norm)
        done = fin_best[:, -1] >= bound  # (B,); also when no beam is live (bound -inf)

        # host syncs of the step: finished candidates, finished documents, history
        fin_at = is_fin.nonzero().tolist()
        if fin_at:
            values = zip(
                fin_at,
                fin_norm[is_fin].tolist(),
                fin_score[is_fin].tolist(),
                fin_row[is_fin].tolist(),
                fin_tok[is_fin].tolist(),
                strict=True,
            )
            for (b, _), norm, score, row, tok in values:
                finished[docs[b]].append(
                    _Finished(norm_score=norm, score=score, step=t, row=row, token=tok, eos=tok == eos_id)
                )
        if last:
            break
        keep_docs = (~done).nonzero().squeeze(1)
        if keep_docs.numel() < n_act:  # drop documents whose search is over
            if keep_docs.numel() == 0:
                break
            keep_rows = (keep_docs.unsqueeze(1) * k + torch.arange(k, device=device)).view(-1)
            memory = memory.select(keep_rows)
            docs = [docs[b] for b in keep_docs.tolist()]
            live_score, live_tok, live_row = live_score[keep_docs], live_tok[keep_docs], live_row[keep_docs]
            fin_best = fin_best[keep_docs]
        parents = live_row.view(-1)
        shrunk = keep_docs.numel() < n_act
        state = out.state if k == 1 and not shrunk else out.state.select(parents)
        prev, scores = live_tok.view(-1), live_score
        parents_cpu, tokens_cpu = torch.stack([parents, prev]).tolist()
        hist_parent.append(parents_cpu)
        hist_token.append(tokens_cpu)
        if blocker is not None:
            blocker.advance(hist_parent[-1], hist_token[-1])

    return _read_back(finished, n_best, hist_parent, hist_token, hist_attn, hist_coarse)
