"""From decoded ids to words and sentences."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from c2fsum.utils.tokens import CLOSERS, SENTENCE_ENDS

if TYPE_CHECKING:
    from torch import Tensor


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


def ends_sentence_at(tokens: Sequence[str], k: int) -> bool:
    """Does ``tokens[k]`` end a sentence? ``. ! ?`` do, except a period after a single lowercase
    letter (``s . gordonii``: an initial; tokens are lowercase) that is not the last token. The
    rendering's number placeholder ``N`` (SumPubMed's ``< dig >``) is no initial: "... hbap2- N ."
    ends its sentence."""
    tok = tokens[k]
    if tok not in SENTENCE_ENDS:
        return False
    if tok == "." and 0 < k < len(tokens) - 1:
        prev = tokens[k - 1]
        if len(prev) == 1 and prev.isalpha() and prev.islower():
            return False
    return True


def last_sentence_end(tokens: Sequence[str]) -> int:
    """The index of the last token of the last whole sentence of ``tokens`` (:func:`ends_sentence_at`,
    with the closing quotes and brackets right after it); -1 when no sentence ends."""
    last = -1
    for k in range(len(tokens)):
        if ends_sentence_at(tokens, k):
            last = k
            while last + 1 < len(tokens) and tokens[last + 1] in CLOSERS:
                last += 1
    return last


def to_last_sentence_end(words: list[str]) -> list[str]:
    """``words`` up to their last whole sentence (:func:`last_sentence_end`); all of them when no
    sentence ends.

    For a summary that stops mid-sentence (the length limit, or a ``</s>`` inside a sentence):
    what ROUGE scores is then what its reader reads (:func:`c2fsum.decoding.render.render` ends
    the text at the same place, by the same rule).
    """
    last = last_sentence_end(words)
    return list(words) if last < 0 else list(words[: last + 1])


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
        if w in SENTENCE_ENDS:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def words_to_text(words: list[str]) -> str:
    """Sentences on separate lines (ROUGE-L is computed at summary level over lines)."""
    return "\n".join(" ".join(s) for s in split_sentences(words))
