"""The word vocabulary: the most frequent training words plus four special tokens.

Ids 0-3 are always ``<pad> <unk> <s> </s>``; then words by decreasing training count, ties
broken alphabetically so that the same counts always give the same vocabulary. ``</s>`` is
also an ordinary token of prepared articles (it ends every sentence); it keeps id 3 and is
never listed twice.

File format (``vocab.txt``, UTF-8): one line per id, ``word<TAB>count``, specials first
with count 0::

    <pad>\t0
    <unk>\t0
    <s>\t0
    </s>\t0
    the\t51234
    ...
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from c2fsum.errors import UserError
from c2fsum.utils.io import atomic_write_text

log = logging.getLogger(__name__)

PAD = "<pad>"
UNK = "<unk>"
BOS = "<s>"
EOS = "</s>"
SPECIALS: tuple[str, ...] = (PAD, UNK, BOS, EOS)
"""Special tokens in id order: pad 0, unk 1, bos 2, eos 3."""


class VocabError(UserError, ValueError):
    """A vocabulary file or argument is malformed."""


class Vocab:
    """A bijection between words and ids, with the four specials at ids 0-3.

    ``itos`` (list of words by id), ``stoi`` (word -> id) and ``counts`` (training counts, 0
    for specials) are plain attributes. Unknown words encode to :attr:`unk_id`.
    """

    def __init__(self, words: Sequence[str], counts: Sequence[int] | None = None):
        """Build from the full id-ordered word list, which must start with the four specials."""
        words = list(words)
        if tuple(words[: len(SPECIALS)]) != SPECIALS:
            raise VocabError(f"vocabulary must start with {list(SPECIALS)}, got {words[: len(SPECIALS)]}")
        if counts is None:
            counts = [0] * len(words)
        if len(counts) != len(words):
            raise VocabError(f"counts: expected {len(words)} values (one per word), got {len(counts)}")
        self.itos: list[str] = words
        self.counts: list[int] = [int(c) for c in counts]
        self.stoi: dict[str, int] = {}
        for i, w in enumerate(words):
            if w in self.stoi:
                raise VocabError(f"word {w!r} appears twice (ids {self.stoi[w]} and {i})")
            self.stoi[w] = i

    # ----------------------------------------------------------------------------- building
    @classmethod
    def build(cls, counter: Mapping[str, int], size: int = 50_000) -> Vocab:
        """The ``size`` most frequent words of ``counter`` plus the specials.

        ``size`` counts ordinary words only (the vocabulary has ``size + 4`` entries, or fewer
        if the counter holds fewer words). Specials found in ``counter`` are not listed twice.
        Ties are broken alphabetically (by code point).
        """
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise VocabError(f"size: expected a non-negative int, got {size!r}")
        candidates = [(w, c) for w, c in counter.items() if w not in SPECIALS and c > 0]
        candidates.sort(key=lambda wc: (-wc[1], wc[0]))
        kept = candidates[:size]
        if len(candidates) > size:
            log.info(
                "vocabulary: kept %d of %d word types (last kept count %d)",
                size,
                len(candidates),
                kept[-1][1] if kept else 0,
            )
        return cls(list(SPECIALS) + [w for w, _ in kept], [0] * len(SPECIALS) + [c for _, c in kept])

    @classmethod
    def from_tokens(cls, tokens: Iterable[str], size: int = 50_000) -> Vocab:
        """Shortcut: count ``tokens`` and :meth:`build`."""
        return cls.build(Counter(tokens), size)

    # ---------------------------------------------------------------------------------- I/O
    def save(self, path: str | Path) -> None:
        """Write ``word<TAB>count`` lines in id order (UTF-8, ``\\n`` line ends)."""
        path = Path(path)
        lines = []
        for w, c in zip(self.itos, self.counts, strict=True):
            if "\t" in w or "\n" in w or "\r" in w or not w:
                raise VocabError(f"word {w!r} cannot be written to {path} (empty or has tab/newline)")
            lines.append(f"{w}\t{c}\n")
        atomic_write_text(path, "".join(lines))  # no partial file on a full disk

    @classmethod
    def load(cls, path: str | Path) -> Vocab:
        """Read a file written by :meth:`save`; errors name the file and line."""
        path = Path(path)
        if not path.is_file():
            raise VocabError(f"{path}: vocabulary file not found")
        words: list[str] = []
        counts: list[int] = []
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise VocabError(f"{path}: not UTF-8 ({e})") from e
        for lineno, line in enumerate(text.split("\n"), start=1):
            if line == "":
                continue
            word, sep, count = line.rstrip("\r").partition("\t")
            if not sep or not word:
                raise VocabError(f"{path}:{lineno}: expected 'word<TAB>count', got {line[:80]!r}")
            try:
                counts.append(int(count))
            except ValueError:
                raise VocabError(f"{path}:{lineno}: count must be an integer, got {count[:40]!r}") from None
            words.append(word)
        try:
            return cls(words, counts)
        except VocabError as e:
            raise VocabError(f"{path}: {e}") from None

    # ------------------------------------------------------------------------------ mapping
    def encode(self, tokens: Iterable[str]) -> list[int]:
        """Ids of ``tokens``; words outside the vocabulary get :attr:`unk_id`."""
        unk = self.unk_id
        stoi = self.stoi
        return [stoi.get(t, unk) for t in tokens]

    def decode(self, ids: Iterable[int]) -> list[str]:
        """Words of ``ids``; raises :class:`VocabError` for an id outside ``[0, len)``."""
        n = len(self.itos)
        out = []
        for i in ids:
            i = int(i)
            if not 0 <= i < n:
                raise VocabError(f"id {i} out of range: vocabulary has {n} entries")
            out.append(self.itos[i])
        return out

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, word: object) -> bool:
        return word in self.stoi

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocab) and self.itos == other.itos and self.counts == other.counts

    __hash__ = None  # type: ignore[assignment]  # mutable lists inside

    def __repr__(self) -> str:
        return f"Vocab({len(self)} entries: {self.itos[4:9]}...)"

    # the ids of the specials (SPECIALS' order), the same in every vocabulary
    pad_id, unk_id, bos_id, eos_id = 0, 1, 2, 3
