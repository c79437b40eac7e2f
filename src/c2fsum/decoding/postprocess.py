"""From decoded ids to words and sentences."""

from __future__ import annotations

from torch import Tensor

SENTENCE_END = frozenset({".", "!", "?"})
CLOSING = frozenset({"''", "'", "-rrb-", "-rsb-", "-rcb-"})
"""Closing quotes and brackets: they stay with the sentence they close."""


def ids_to_words(
    tokens: list[int],
    itos: list[str],
    oovs: list[str],
    *,
    unk: str = "<unk>",
    attn: Tensor | None = None,
    src_words: list[str] | None = None,
    replace_unk: bool = False,
) -> list[str]:
    """Map ids in V' to words; ids >= V are the document's own words ``oovs[id - V]``.

    With ``replace_unk``, each generated ``<unk>`` becomes the source word it attends to most
    (``attn`` ``(T, M, N)``, flattened in reading order over ``src_words``).
    """
    V = len(itos)
    words = []
    for t, i in enumerate(tokens):
        if i >= V:
            k = i - V
            words.append(oovs[k] if k < len(oovs) else unk)
        else:
            w = itos[i]
            if w == unk and replace_unk and attn is not None and src_words:
                flat = attn[t].reshape(-1)[: len(src_words)]
                w = src_words[int(flat.argmax())]
            words.append(w)
    return words


def to_last_sentence_end(words: list[str]) -> list[str]:
    """``words`` up to their last sentence-final token (``. ! ?``) and the closing quotes and
    brackets right after it; all of them when none ends a sentence.

    For a summary that stops mid-sentence (the length limit, or a ``</s>`` inside a sentence):
    what ROUGE scores is then what its reader reads (:func:`c2fsum.decoding.render.render` ends
    the text at the same place).
    """
    last = max((k for k, w in enumerate(words) if w in SENTENCE_END), default=-1)
    if last < 0:
        return list(words)
    while last + 1 < len(words) and words[last + 1] in CLOSING:
        last += 1
    return list(words[: last + 1])


def split_sentences(words: list[str]) -> list[list[str]]:
    """Cut a generated word sequence after each sentence-final token (``. ! ?``) or ``</s>``."""
    out: list[list[str]] = []
    cur: list[str] = []
    for w in words:
        if w == "</s>":
            if cur:
                out.append(cur)
            cur = []
            continue
        cur.append(w)
        if w in SENTENCE_END:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def words_to_text(words: list[str]) -> str:
    """Sentences on separate lines (ROUGE-L is computed at summary level over lines)."""
    return "\n".join(" ".join(s) for s in split_sentences(words))
