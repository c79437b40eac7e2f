"""What a decoder returns, and the per-step bookkeeping shared by greedy, beam and sampling.

Letters in shapes: B rows (documents, or documents x beams), M chunks, N words per chunk,
T output length (tokens plus the closing ``</s>`` when there is one), V' extended vocabulary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import torch
from torch import Tensor


@dataclass
class Hypothesis:
    """One decoded summary.

    Attributes:
        tokens: output ids in V' without ``<s>`` and without the closing ``</s>``.
        score: sum of the log-probabilities of every produced token, ``</s>`` included, before
            length normalization.
        norm_score: ``score / T**length_norm`` with ``T`` = number of tokens incl. ``</s>``;
            final hypotheses are ranked by it (equal to ``score`` when ``length_norm`` is 0).
        attn: ``(T, M, N)`` float32 CPU word attention of every step, the ``</s>`` step included.
        coarse: ``(T, M)`` float32 CPU chunk attention of hierarchical models, else None.
        eos: True if the hypothesis ended with ``</s>``; False if it was cut at ``max_len``
            (then ``T == len(tokens)``, else ``T == len(tokens) + 1``).
    """

    tokens: list[int]
    score: float
    norm_score: float
    attn: Tensor
    coarse: Tensor | None = None
    eos: bool = True

    def __len__(self) -> int:
        """T: the number of decoding steps, ``</s>`` included."""
        return len(self.tokens) + int(self.eos)


def check_lengths(*, max_len: int, min_len: int) -> None:
    """Validate decoding lengths; raise ValueError naming the field, its value, and the expectation."""
    if max_len < 1:
        raise ValueError(f"max_len must be >= 1, got {max_len}")
    if min_len < 0:
        raise ValueError(f"min_len must be >= 0, got {min_len}")


MARKUP = re.compile(r"//|\u00a9|^https?$|^www\b")
"""Web and licence markup in a token: a URL or DOI (``//dx.doi.org/``, ``http``, ``www``) or a
copyright mark (``issue-copyright-statement\u00a9``), left in SumPubMed's texts by their XML and PDF
extraction; a summary never writes them (``cnn.com`` is a name, not markup)."""


def markup_ids(itos: Sequence[str]) -> list[int]:
    """The ids of the vocabulary ``itos`` whose token is markup (:data:`MARKUP`); the search runs
    once per vocabulary, not at every decoding call (a server decodes per request)."""
    return list(_markup_ids(tuple(itos)))


LICENCE_STATEMENT = "issue-copyright-statement"
"""A vocabulary holding this token was built from text carrying SumPubMed's licence lines
(``issue-copyright-statement\u00a9 the author 2015``, :mod:`c2fsum.data.residue`)."""
LICENCE_WORDS = frozenset({"author"})
"""Words that such a vocabulary's models write only as licence residue ("the author 1950"): in its
highlights "author" is in 2 sentences of 100,756 outside the licence lines."""


@lru_cache(maxsize=8)
def _markup_ids(words: tuple[str, ...]) -> tuple[int, ...]:
    licence = any(LICENCE_STATEMENT in tok for tok in words)
    return tuple(i for i, tok in enumerate(words) if MARKUP.search(tok) or (licence and tok in LICENCE_WORDS))


class StepConstraints:
    """Rules applied to every step's log-probabilities before a token is chosen.

    * ``<pad>`` and ``<s>`` are never produced, nor the ids in ``never`` (the caller's; the
      decoders of :mod:`c2fsum.decoding.documents` pass the vocabulary's :func:`markup_ids`).
    * ``</s>`` is forbidden while fewer than ``min_len`` tokens were produced.
    * With a :class:`RepeatBlocker`, words that would repeat a trigram (or a word or word pair
      back to back) are forbidden.

    If these rules forbid every word of a row (only possible with repeat blocking, a tiny
    vocabulary and ``min_len``), ``</s>`` is allowed again for that row: ending early is
    preferred over repeating.
    """

    def __init__(self, *, pad_id: int, bos_id: int, eos_id: int, min_len: int, never: Sequence[int] = ()):
        self.pad_id, self.bos_id, self.eos_id, self.min_len = pad_id, bos_id, eos_id, min_len
        self.never = [i for i in never if i != eos_id]
        self._bias: dict[tuple[int, bool, torch.device, torch.dtype], Tensor] = {}
        self._columns: dict[tuple[int, bool, torch.device], Tensor] = {}

    def bias(self, n_vocab: int, *, allow_eos: bool, device: torch.device, dtype: torch.dtype) -> Tensor:
        """``(V',)`` additive mask: 0 on allowed ids, -inf on forbidden ones (cached)."""
        key = (n_vocab, allow_eos, device, dtype)
        if key not in self._bias:
            b = torch.zeros(n_vocab, device=device, dtype=dtype)
            b[[self.pad_id, self.bos_id, *(i for i in self.never if i < n_vocab)]] = float("-inf")
            if not allow_eos:
                b[self.eos_id] = float("-inf")
            self._bias[key] = b
        return self._bias[key]

    def columns(self, n_vocab: int, *, allow_eos: bool, device: torch.device) -> Tensor:
        """The forbidden ids of :meth:`bias` (its -inf entries), ``(n,)`` long (cached)."""
        key = (n_vocab, allow_eos, device)
        if key not in self._columns:
            ids = {self.pad_id, self.bos_id, *(i for i in self.never if i < n_vocab)}
            if not allow_eos:
                ids.add(self.eos_id)
            self._columns[key] = torch.tensor(sorted(ids), dtype=torch.long, device=device)
        return self._columns[key]

    def apply_(self, logprobs: Tensor, *, step: int, blocker: RepeatBlocker | None = None) -> Tensor:
        """:meth:`__call__` written into ``logprobs`` itself and returned, for a float32 tensor
        without gradient that nothing else reads (beam search's step output): the forbidden ids
        are set to -inf column by column instead of a vocabulary-sized bias being added to a copy.
        The same values: ``x + 0 = x`` and ``x + -inf = -inf`` for every log-probability (not
        NaN, not +inf). Any other tensor goes to :meth:`__call__`.
        """
        if logprobs.dtype != torch.float32 or logprobs.requires_grad:
            return self(logprobs, step=step, blocker=blocker)
        allow_eos = step >= self.min_len
        stuck_check = blocker is not None and not allow_eos
        eos_before = logprobs[:, self.eos_id].clone() if stuck_check else None
        forbidden = self.columns(logprobs.size(-1), allow_eos=allow_eos, device=logprobs.device)
        logprobs.index_fill_(1, forbidden, float("-inf"))
        if blocker is not None:
            self._block(logprobs, blocker, eos_before)
        return logprobs

    def _block(self, out: Tensor, blocker: RepeatBlocker, eos_before: Tensor | None) -> None:
        """The blocker's bans written into ``out``; with ``eos_before`` (``</s>``'s column before any
        rule, while ``min_len`` forbids it), rows left with no word get ``</s>`` back."""
        rows, cols = blocker.banned()
        if rows:
            idx = torch.tensor([rows, cols], device=out.device)
            out.index_put_((idx[0], idx[1]), out.new_tensor(float("-inf")))
        if eos_before is not None:  # every word blocked: let the row end rather than repeat
            stuck = torch.isneginf(out).all(dim=-1)  # (B,)
            out[:, self.eos_id] = torch.where(stuck, eos_before, out[:, self.eos_id])

    def __call__(self, logprobs: Tensor, *, step: int, blocker: RepeatBlocker | None = None) -> Tensor:
        """Constrained float32 copy of ``logprobs`` ``(B, V')`` at 0-based ``step``.

        The result is a new tensor (the model's output is never modified in place), and it
        keeps the autograd graph, so sampling can differentiate through it.
        """
        raw = logprobs.float()
        allow_eos = step >= self.min_len
        out = raw + self.bias(raw.size(-1), allow_eos=allow_eos, device=raw.device, dtype=raw.dtype)
        if blocker is not None:  # `out` is our own tensor and `+` keeps no copy of it: safe to edit in place
            self._block(out, blocker, None if allow_eos else raw[:, self.eos_id])
        return out


class RepeatBlocker:
    """Per-row memory of what a hypothesis wrote, to forbid the words that would repeat it.

    * ``trigrams``: never the same trigram twice in a row's output (Paulus et al. 2017, sec. 2.5:
      "we do not allow the decoder to output the same trigram twice").
    * ``back_to_back``: never a word right after itself (``expression expression``) nor a word
      pair right after itself (``to be to be``): c2fsum's addition; trigram blocking alone lets
      both through while they are the first repeat of their trigram.

    Row ``i`` keeps its last three tokens and a map ``(a, b) -> {c}`` of the trigrams it made, so a
    step only looks up its tail: O(rows) dictionary look-ups per step.
    """

    def __init__(self, n_rows: int, *, trigrams: bool = True, back_to_back: bool = False):
        self.trigrams, self.back_to_back = trigrams, back_to_back
        self.last: list[tuple[int, ...]] = [()] * n_rows
        self.seen: list[dict[tuple[int, int], frozenset[int]]] = [{} for _ in range(n_rows)]

    @classmethod
    def for_rows(cls, n_rows: int, *, trigrams: bool, back_to_back: bool) -> RepeatBlocker | None:
        """A blocker for ``n_rows`` rows applying the rules asked for, or None when none is."""
        return cls(n_rows, trigrams=trigrams, back_to_back=back_to_back) if trigrams or back_to_back else None

    def banned(self) -> tuple[list[int], list[int]]:
        """(row, token) pairs whose extension would repeat a trigram of that row, or repeat the
        row's last word or last word pair back to back."""
        rows: list[int] = []
        cols: list[int] = []
        for i, (last, seen) in enumerate(zip(self.last, self.seen, strict=True)):
            ban: set[int] = set()
            if self.trigrams and len(last) >= 2:
                ban |= seen.get((last[-2], last[-1]), frozenset())
            if self.back_to_back and last:
                ban.add(last[-1])  # w w
                if len(last) == 3 and last[0] == last[2]:
                    ban.add(last[1])  # a b a -> not b
            rows.extend([i] * len(ban))
            cols.extend(sorted(ban))
        return rows, cols

    def advance(self, parents: list[int], tokens: list[int]) -> None:
        """New rows: row ``j`` extends old row ``parents[j]`` with ``tokens[j]``."""
        last: list[tuple[int, ...]] = []
        seen: list = []
        for p, c in zip(parents, tokens, strict=True):
            l_p, s_p = self.last[p], self.seen[p]
            if self.trigrams and len(l_p) >= 2:
                key = (l_p[-2], l_p[-1])
                s_p = {**s_p, key: s_p.get(key, frozenset()) | {c}}
            last.append((*l_p[-2:], c))
            seen.append(s_p)
        self.last, self.seen = last, seen
