"""Batched beam search with length normalization and trigram blocking.

All ``B x K`` beams advance together in one ``model.step`` call per time step. Rows are laid
out document-major (row ``b * K + k`` is beam ``k`` of document ``b``); the decoder state is
reordered with :meth:`DecoderState.select` after every step, and documents whose search is
over leave the batch (:meth:`Memory.select`).

One step (fairseq's scheme, which keeps the beam full when some hypotheses end)::

    candidates (B, K * V')  = beam scores (B, K, 1) + constrained log-probs (B, K, V')
    top 2K candidates       -> the ones ending in </s> among the best K are finished,
                            -> the best K not ending in </s> are the next beams.

With ``K = 1`` this is exactly greedy decoding.

Speed-ups over tests/decoding/beam_reference.py, same hypotheses: (1) the first step runs one row
per document (all K beams would be the same row; the first select expands the state to K);
(2) each row's best 2K words are taken before the (B, K * 2K) candidate table, not a
(B, K * V') one; (3) models whose rows can share their document's memory row
(memory_per_document) attend B * K queries against B memory rows, never copying it K times.

Stopping. The search of a document is over when

* its ``n_best``-th best finished hypothesis can no longer be beaten: log-probabilities are
  <= 0, so a live beam of score ``s`` can at best reach ``s / L**length_norm`` for a final
  length ``L`` between the next step and ``max_len`` (an exact bound), or
* ``max_len`` steps were made: the live beams are then ended without ``</s>`` and compete with
  the finished ones.

A beam large enough to hold every candidate therefore returns the exact best sequences. We do
not stop once ``K`` hypotheses finished (OpenNMT's rule): that rule can return a short
hypothesis although a live beam is sure to beat it after length normalization. The price:
with ``length_norm > 0`` the bound is loose and searches run longer; with ``length_norm = 0``
(the default) a search stops as soon as its best finished hypothesis beats every live beam.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import torch
from torch import Tensor

from c2fsum.decoding.greedy import gather_history
from c2fsum.decoding.hypothesis import (
    Hypothesis,
    RepeatBlocker,
    StepConstraints,
    check_lengths,
)
from c2fsum.models.base import Memory, Summarizer
from c2fsum.modules.attention import Attention


@dataclass
class _Finished:
    """A finished hypothesis before its tokens and attention are read back from the history."""

    norm_score: float
    score: float
    step: int
    """The step that produced its last token."""
    row: int
    """The row (of that step's batch) whose output produced its last token."""
    token: int
    eos: bool


@dataclass
class _Results:
    """What the search has found so far, shrunk with the active batch (:meth:`keep`)."""

    finished: list[list[_Finished]]
    """Per document (all B of the search), its finished hypotheses."""
    docs: list[int]
    """The document of each active batch entry."""
    best: Tensor
    """``(B, n_best)`` per active entry, the best normalized scores of its document's finished
    hypotheses (-inf while there are fewer)."""

    @classmethod
    def none_yet(cls, n_docs: int, n_best: int, device: torch.device) -> _Results:
        """The results before the first step: no finished hypothesis, every document active."""
        best = torch.full((n_docs, n_best), float("-inf"), device=device)
        return cls(finished=[[] for _ in range(n_docs)], docs=list(range(n_docs)), best=best)

    def keep(self, keep_docs: Tensor) -> None:
        """Only the active entries ``keep_docs`` ``(B',)`` go on (the others' search is over)."""
        self.docs = [self.docs[b] for b in keep_docs.tolist()]
        self.best = self.best[keep_docs]


def _length_bound(best_live: Tensor, *, next_len: int, max_len: int, alpha: float) -> Tensor:
    """Best normalized score a live beam of score ``best_live`` ``(B,)`` (<= 0) can still reach."""
    if not alpha:
        return best_live
    # score / L**alpha is monotone in L, so the best of the two extreme lengths bounds it
    return torch.maximum(best_live / next_len**alpha, best_live / max_len**alpha)


def _next_beams(
    top_score: Tensor,
    top_tok: Tensor,
    top_row: Tensor,
    results: _Results,
    *,
    t: int,
    k: int,
    max_len: int,
    length_norm: float,
    eos_id: int,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Step ``t``'s best 2K candidates of each document -> the hypotheses that end here and the next beams.

    Args:
        top_score, top_tok, top_row: ``(B, 2K)`` score, token and row (of this step's batch) of
            the best candidates, best first.
        results: the B active entries' results so far; the hypotheses that end here are added
            to them (``finished`` and ``best``).
    Returns:
        ``live_score, live_tok, live_row`` ``(B, K)`` (the next beams, score -inf where none) and
        ``done`` ``(B,)``: True where the search of a document is over.
    """
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

    results.best = torch.cat([results.best, fin_norm], dim=1).topk(results.best.size(1), dim=1).values
    bound = _length_bound(live_score[:, 0], next_len=t + 2, max_len=max_len, alpha=length_norm)
    done = results.best[:, -1] >= bound  # (B,); also when no beam is live (bound -inf)

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
            results.finished[results.docs[b]].append(
                _Finished(norm_score=norm, score=score, step=t, row=row, token=tok, eos=tok == eos_id)
            )
    return live_score, live_tok, live_row, done


@dataclass
class _History:
    """Per step, what reading the hypotheses back needs: each row's parent and token (CPU lists,
    rows of the next step's batch) and the attention of every row of the step's batch."""

    parent: list[list[int]] = field(default_factory=list)
    token: list[list[int]] = field(default_factory=list)
    attn: list[Tensor] = field(default_factory=list)
    """Per step, the word attention ``(rows, M, N)`` of that step's batch."""
    coarse: list[Tensor] = field(default_factory=list)
    """Per step, the chunk attention ``(rows, M)`` (models that have it; empty otherwise)."""

    def add_attention(self, attention: Attention) -> None:
        """Keep a step's word attention and, where the model has it, its chunk attention."""
        self.attn.append(attention.attn)
        if attention.coarse is not None:
            self.coarse.append(attention.coarse)

    def add_beams(self, parents: Tensor, tokens: Tensor) -> None:
        """Keep the next beams' parent rows and tokens, both ``(B' * K,)`` (one host sync)."""
        parents_cpu, tokens_cpu = torch.stack([parents, tokens]).tolist()
        self.parent.append(parents_cpu)
        self.token.append(tokens_cpu)


def _check_arguments(*, beam: int, max_len: int, min_len: int, n_best: int) -> None:
    """Raise ``ValueError`` naming the argument when a length, the beam or ``n_best`` is out of range."""
    check_lengths(max_len=max_len, min_len=min_len)
    if beam < 1:
        raise ValueError(f"beam must be >= 1, got {beam}")
    if not 1 <= n_best <= beam:
        raise ValueError(f"n_best must be between 1 and beam={beam}, got {n_best}")


ROW_TOPK_BLOCK = 64
"""Columns per block of :func:`row_topk` (64: the fastest of 16-256 at V = 50,000, 100 rows)."""


def row_topk(x: Tensor, r: int, *, block: int = ROW_TOPK_BLOCK) -> tuple[Tensor, Tensor]:
    """``x.topk(r, dim=1)`` of a ``(rows, V)`` matrix, the same values best first, through the
    maxima of blocks of ``block`` columns: a row's best ``r`` values lie in its ``r`` blocks of
    highest maximum and the last, partial block (if one of them lay in another block, that
    block's maximum would be >= it, and so would the ``r`` chosen blocks' maxima: ``r`` values at
    least as high in chosen blocks). So one pass over ``x`` (the block maxima) and a top-k of
    ``r * block`` candidates per row replace the top-k of the whole row, which copies each row
    into (value, index) pairs first: 1.7 against 6.5 ms for 100 x 50,000, ``r`` = 10.

    The values are those of ``torch.topk`` exactly; the indices too, except among exactly equal
    values, whose order ``torch.topk`` leaves unspecified. Narrow matrices (fewer than
    ``4 * r * block`` columns) go to ``torch.topk`` directly.
    """
    rows, n = x.shape
    n_blocks = n // block
    if n < 4 * r * block:
        return x.topk(r, dim=1)
    head = x[:, : n_blocks * block].view(rows, n_blocks, block)
    best_blocks = head.amax(2).topk(r, dim=1).indices  # (rows, r)
    cols = (best_blocks.unsqueeze(2) * block + torch.arange(block, device=x.device)).view(rows, r * block)
    if n_blocks * block < n:  # the partial last block is always a candidate
        tail = torch.arange(n_blocks * block, n, device=x.device)
        cols = torch.cat([cols, tail.expand(rows, -1)], dim=1)
    values, at = x.gather(1, cols).topk(r, dim=1)
    return values, cols.gather(1, at)


def _top_candidates(
    logprobs: Tensor, scores: Tensor, row_offset: Tensor, *, k: int, first: bool
) -> tuple[Tensor, Tensor, Tensor]:
    """The best 2K continuations of each active document's K beams.

    Args:
        logprobs: ``(rows, V')`` the constrained log-probabilities of this step's rows: ``B * K``
            rows, or ``B`` on the ``first`` step (one row per document, its K beams copies of it).
        scores: ``(B, K)`` the beams' scores (-inf for beams that are not live).
        row_offset: ``(B, 1)`` ``b * K`` for each active entry ``b``.
    Returns:
        ``top_score, top_tok, top_row`` ``(B, 2K)`` (fewer when ``K * r`` is smaller): score,
        token and row (of this step's batch) of the best candidates, best first.
    """
    n_act = scores.size(0)
    r = min(2 * k, logprobs.size(1))
    row_top, row_tok = row_topk(logprobs, r)  # (rows, r): each row's best r words
    if first:  # one row per document: its K beams are copies of it
        row_top, row_tok = row_top.unsqueeze(1).expand(n_act, k, r), row_tok.unsqueeze(1).expand(n_act, k, r)
    cand = (scores.unsqueeze(2) + row_top.reshape(n_act, k, r)).view(n_act, k * r)
    top_score, top_idx = cand.topk(min(2 * k, k * r), dim=1)  # (B, 2K), best first
    top_tok = row_tok.reshape(n_act, k * r).gather(1, top_idx)
    top_beam = top_idx // r
    # row of this step's batch
    top_row = row_offset // k if first else top_beam + row_offset
    return top_score, top_tok, top_row.expand_as(top_beam)


def _next_memory(memory: Memory, keep_docs: Tensor, *, k: int, first: bool, shrunk: bool, per_doc: bool) -> Memory:
    """The memory rows of the next step: K rows per document after the first step (unless the
    beams share their document's row, ``per_doc``), only the documents ``keep_docs`` ``(B',)``
    whose search goes on (``shrunk``: some ended)."""
    if first and k > 1 and not per_doc:  # from now on K rows per document
        return memory.select(keep_docs.repeat_interleave(k))
    if shrunk:  # drop documents whose search is over
        keep_rows = (keep_docs.unsqueeze(1) * k + torch.arange(k, device=keep_docs.device)).view(-1)
        return memory.select(keep_docs if per_doc else keep_rows)
    return memory


@torch.no_grad()
def beam_search(
    model: Summarizer,
    memory: Memory,
    *,
    beam: int,
    max_len: int,
    min_len: int = 0,
    length_norm: float = 0.0,
    block_trigrams: bool = False,
    block_repeats: bool = False,
    n_best: int = 1,
    never: Sequence[int] = (),
) -> list[list[Hypothesis]]:
    """Beam search over a batch of documents.

    Call ``model.eval()`` first (this function does not change the model's mode).

    Args:
        model: any :class:`Summarizer`.
        memory: the encoded batch, ``words`` ``(B, M, N, H)``.
        beam: K, hypotheses kept per document (no default here: ``decode.beam`` declares it,
            :class:`~c2fsum.config.DecodeConfig`).
        max_len: at most this many steps (``</s>`` included); longer hypotheses are cut (the
            default, ``decode.max_len``, is declared there too).
        min_len: ``</s>`` is forbidden until this many tokens were produced.
        length_norm: rank final hypotheses by ``score / T**length_norm`` (T counts ``</s>``).
        block_trigrams: never produce a trigram twice within a hypothesis (Paulus et al. 2017).
        block_repeats: never a word or word pair right after itself (:class:`RepeatBlocker`).
        never: ids never produced (:class:`StepConstraints`), e.g. the vocabulary's markup.
        n_best: hypotheses returned per document (at most ``beam``).
    Returns:
        for each of the B documents, its best hypotheses (at most ``n_best``), best first.
    """
    _check_arguments(beam=beam, max_len=max_len, min_len=min_len, n_best=n_best)
    k = beam
    device = memory.words.device
    n_docs = memory.words.size(0)
    eos_id = model.eos_id
    constrain = StepConstraints(pad_id=model.pad_id, bos_id=model.bos_id, eos_id=eos_id, min_len=min_len, never=never)
    blocker = RepeatBlocker.for_rows(n_docs, trigrams=block_trigrams, back_to_back=block_repeats)

    per_doc = k > 1 and model.capabilities.memory_per_document  # speed-up (3) of the module's docstring
    state = model.init_state(memory)
    results = _Results.none_yet(n_docs, n_best, device)
    prev = torch.full((n_docs,), model.bos_id, dtype=torch.long, device=device)
    scores = torch.full((n_docs, k), float("-inf"), device=device)
    scores[:, 0] = 0.0  # at the start only beam 0 is live, so the K beams do not repeat it
    history = _History()
    row_offset = torch.arange(n_docs, device=device).unsqueeze(1) * k  # (B, 1)

    for t in range(max_len):
        n_act = len(results.docs)
        out = model.step(memory, state, prev)
        logprobs = constrain.apply_(out.logprobs, step=t, blocker=blocker)  # (B*K, V'), in place
        history.add_attention(out.attention)
        top_score, top_tok, top_row = _top_candidates(logprobs, scores, row_offset[:n_act], k=k, first=t == 0)
        live_score, live_tok, live_row, done = _next_beams(
            top_score, top_tok, top_row, results, t=t, k=k, max_len=max_len, length_norm=length_norm, eos_id=eos_id
        )
        if t == max_len - 1:
            break
        keep_docs = (~done).nonzero().squeeze(1)
        if keep_docs.numel() == 0:
            break
        shrunk = keep_docs.numel() < n_act
        memory = _next_memory(memory, keep_docs, k=k, first=t == 0, shrunk=shrunk, per_doc=per_doc)
        if shrunk:
            results.keep(keep_docs)
            live_score, live_tok, live_row = live_score[keep_docs], live_tok[keep_docs], live_row[keep_docs]
        parents = live_row.view(-1)
        state = out.state if k == 1 and not shrunk else out.state.select(parents)  # t = 0: B -> B*K rows
        prev, scores = live_tok.view(-1), live_score
        history.add_beams(parents, prev)
        if blocker is not None:
            blocker.advance(history.parent[-1], history.token[-1])

    return _read_back(results.finished, n_best, history.parent, history.token, history.attn, history.coarse)


def _read_back(
    finished: list[list[_Finished]],
    n_best: int,
    hist_parent: list[list[int]],
    hist_token: list[list[int]],
    hist_attn: list[Tensor],
    hist_coarse: list[Tensor],
) -> list[list[Hypothesis]]:
    """Follow parent pointers back from the best finished hypotheses of every document.

    Attention is gathered only for the returned hypotheses, with one indexing per step.
    """
    chosen = [sorted(f, key=lambda h: -h.norm_score)[:n_best] for f in finished]
    flat = [h for hs in chosen for h in hs]
    tokens: list[list[int]] = []
    paths: list[list[int]] = []  # rows of each step, first step first
    for h in flat:
        toks, rows, row = [h.token], [h.row], h.row
        for t in range(h.step - 1, -1, -1):
            toks.append(hist_token[t][row])
            row = hist_parent[t][row]
            rows.append(row)
        tokens.append(toks[::-1][: len(toks) - int(h.eos)])
        paths.append(rows[::-1])
    n_steps = max((len(p) for p in paths), default=0)

    def gather(hist: list[Tensor]) -> Tensor | None:
        if not hist or not flat:
            return None
        steps = []
        for t in range(n_steps):
            who = [i for i, p in enumerate(paths) if len(p) > t]
            rows = torch.tensor([paths[i][t] for i in who], device=hist[t].device)
            steps.append((torch.tensor(who, device=hist[t].device), hist[t].index_select(0, rows)))
        return gather_history(steps, len(flat), n_steps)

    attn, coarse = gather(hist_attn), gather(hist_coarse)
    out: list[list[Hypothesis]] = []
    i = 0
    for hs in chosen:
        out.append([])
        for h in hs:
            n = len(paths[i])
            out[-1].append(
                Hypothesis(
                    tokens=tokens[i],
                    score=h.score,
                    norm_score=h.norm_score,
                    attn=attn[i, :n].clone(),  # type: ignore[index]
                    coarse=None if coarse is None else coarse[i, :n].clone(),
                    eos=h.eos,
                )
            )
            i += 1
    return out
