"""Properties of generated summaries: repeated trigrams and copied out-of-vocabulary words
(:class:`OutputStats`), and what a reader meets (:class:`ReaderMeasures`, issue 31 item 5).

What a reader meets, per summary (whitespace tokens of the written summary, lowercased;
``<s>``/``</s>`` markers dropped):

* **novel words**: the summary's *content words* (tokens with a letter that are not stopwords,
  ``<...>`` placeholders such as ``<unk>``/``<dig>`` or PTB brackets, so neither punctuation nor
  numbers) that its source document never uses. A word counts as used when a word of the same
  Porter stem (ROUGE's) is in the document, so ``cells`` is not novel beside ``cell``.
* **novel specific words**: those novel words that are also *specific*: their stem is in fewer
  than ``specific_share`` (10%) of the documents of a reference collection (the caller says
  which: ``evaluate`` and ``baseline`` use every document of the evaluated split), such as a
  species or a gene. Both shares are of all the summary's content words.
* **opening**: its first four tokens (punctuation included: ``in this study ,``).
* **back-to-back repeats**: tokens with a letter or digit (``#``: masked digits) equal to the one before
  (``wheat wheat`` 1, ``lichens lichens lichens`` 2), across sentence breaks too.
* **unfinished**: its last token (closing quotes and brackets aside) does not end in ``.``,
  ``!`` or ``?``; an empty summary is unfinished.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from c2fsum.metrics.porter import porter_stem
from c2fsum.utils.tokens import CLOSERS, SENTENCE_ENDS

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for from further had
has have having he her here hers herself him himself his how i if in into is it its itself just me more most
my myself no nor not now of off on once only or other our ours out over own said same she should so some such
than that the their theirs them themselves then there these they this those through to too under until up
very was we were what when where which while who whom why will with would you your yours 's 't 're 've 'll 'd
n't""".split()
)
"""Function words and clitics: never content words (:func:`is_content_word`); ILP's concepts are
not made of these alone."""


def repeated_trigrams(tokens: Sequence) -> tuple[int, int]:
    """(trigrams that repeat an earlier trigram of the same summary, all trigrams)."""
    seen: set[tuple] = set()
    repeats = 0
    n = max(len(tokens) - 2, 0)
    for i in range(n):
        tri = tuple(tokens[i : i + 3])
        if tri in seen:
            repeats += 1
        seen.add(tri)
    return repeats, n


class OutputStats:
    """Accumulates, over a split, the share of repeated trigrams and of copied OOV words."""

    def __init__(self) -> None:
        self.repeats = self.trigrams = 0
        self.docs_with_repeat = self.docs = 0
        self.copied = self.tokens = 0

    def add(self, token_ids: Sequence[int], vocab_size: int) -> None:
        """``token_ids`` in V' (ids >= ``vocab_size`` are words copied from the document)."""
        r, n = repeated_trigrams(list(token_ids))
        self.repeats += r
        self.trigrams += n
        self.docs += 1
        self.docs_with_repeat += int(r > 0)
        self.copied += sum(1 for t in token_ids if t >= vocab_size)
        self.tokens += len(token_ids)

    def summary(self) -> dict[str, float]:
        """Percentages: ``repeated_trigrams`` (of all output trigrams), ``docs_with_repeated_trigram``,
        ``copied_oov`` (of all output words)."""
        return {
            "repeated_trigrams": 100.0 * self.repeats / max(self.trigrams, 1),
            "docs_with_repeated_trigram": 100.0 * self.docs_with_repeat / max(self.docs, 1),
            "copied_oov": 100.0 * self.copied / max(self.tokens, 1),
        }


# ----------------------------------------------------------------------- what a reader meets
SENTENCE_MARKS = frozenset({"<s>", "</s>"})
"""The markers around a sentence in prepared text (the vocabulary's BOS and EOS); never words of a
summary (the one definition: reader measures, ILP, LEAD/ORACLE and BERKELEY import it)."""
PTB_BRACKETS = frozenset({"-lrb-", "-rrb-", "-lsb-", "-rsb-", "-lcb-", "-rcb-"})
OPENING_WORDS = 4
SPECIFIC_SHARE = 0.1


def summary_tokens(summary: str | Sequence[str]) -> list[str]:
    """The lowercased tokens of a summary (a string of whitespace-separated tokens, sentences on
    lines, or a token list), without ``<s>``/``</s>`` markers."""
    tokens = summary.split() if isinstance(summary, str) else summary
    return [t.lower() for t in tokens if t not in SENTENCE_MARKS]


def is_content_word(token: str) -> bool:
    """A lowercased token with a letter that is no stopword, ``<...>`` placeholder or PTB bracket."""
    if token in STOPWORDS or token in PTB_BRACKETS or (token.startswith("<") and token.endswith(">")):
        return False
    return any(c.isalpha() for c in token)


@lru_cache(maxsize=1 << 18)
def word_stem(token: str) -> str:
    """The Porter stem (ROUGE-1.5.5's) of a lowercased token."""
    return porter_stem(token)


def content_stems(tokens: Iterable[str]) -> set[str]:
    """Stems of the content words among ``tokens`` (any case)."""
    return {word_stem(t) for t in (x.lower() for x in tokens) if is_content_word(t)}


def document_frequencies(documents: Iterable[Iterable[str]]) -> tuple[Counter, int]:
    """(documents holding each content-word stem, number of documents)."""
    df: Counter = Counter()
    n = 0
    for doc in documents:
        df.update(content_stems(doc))
        n += 1
    return df, n


def back_to_back_repeats(tokens: Sequence[str]) -> int:
    """Tokens with a letter or digit (or ``#``, the digit mask) equal to the one before them."""
    return sum(
        1 for a, b in zip(tokens, tokens[1:], strict=False) if a == b and any(c.isalnum() or c == "#" for c in b)
    )


def ends_sentence(tokens: Sequence[str]) -> bool:
    """Whether the last token, after any closing quotes or brackets, ends in ``.``, ``!`` or ``?``."""
    i = len(tokens)
    while i > 0 and tokens[i - 1] in CLOSERS:
        i -= 1
    return i > 0 and tokens[i - 1].endswith(SENTENCE_ENDS)


def opening(tokens: Sequence[str], n: int = OPENING_WORDS) -> str:
    """The first ``n`` tokens, joined by spaces (fewer for a shorter summary)."""
    return " ".join(tokens[:n])


class ReaderMeasures:
    """Accumulates what a reader meets in the summaries of a split (module docstring).

    ``doc_freq`` and ``n_docs`` (:func:`document_frequencies`) decide which words are specific:
    those whose stem is in fewer than ``specific_share * n_docs`` of the documents.
    """

    def __init__(self, doc_freq: Mapping[str, int], n_docs: int, *, specific_share: float = SPECIFIC_SHARE) -> None:
        if n_docs < 1:
            raise ValueError(f"n_docs: expected at least 1 document for the document frequencies, got {n_docs}")
        if not 0 < specific_share <= 1:
            raise ValueError(f"specific_share: expected a share in (0, 1], got {specific_share}")
        self.doc_freq, self.n_docs, self.specific_share = doc_freq, n_docs, specific_share
        self.summaries = self.content = self.novel = self.novel_specific = 0
        self.with_novel_specific = self.repeats = self.with_repeats = self.unfinished = 0
        self.openings: Counter = Counter()
        self.novel_specific_words: Counter = Counter()

    def is_specific(self, stem: str) -> bool:
        return self.doc_freq.get(stem, 0) < self.specific_share * self.n_docs

    def add(self, summary: str | Sequence[str], document: Iterable[str]) -> dict[str, int | str]:
        """Count one summary against its source ``document`` (its tokens); returns its own figures:
        ``content_words``, ``novel_words``, ``novel_specific_words``, ``back_to_back``,
        ``unfinished`` (0 or 1) and ``opening``."""
        tokens = summary_tokens(summary)
        used = content_stems(document)
        content = [t for t in tokens if is_content_word(t)]
        novel = [t for t in content if word_stem(t) not in used]
        specific = [t for t in novel if self.is_specific(word_stem(t))]
        repeats = back_to_back_repeats(tokens)
        unfinished = not ends_sentence(tokens)
        first = opening(tokens)
        self.summaries += 1
        self.content += len(content)
        self.novel += len(novel)
        self.novel_specific += len(specific)
        self.with_novel_specific += int(bool(specific))
        self.novel_specific_words.update(specific)
        self.repeats += repeats
        self.with_repeats += int(repeats > 0)
        self.unfinished += int(unfinished)
        self.openings[first] += 1
        return {
            "content_words": len(content),
            "novel_words": len(novel),
            "novel_specific_words": len(specific),
            "back_to_back": repeats,
            "unfinished": int(unfinished),
            "opening": first,
        }

    def summary(self) -> dict[str, float | int | str]:
        """``novel_words`` and ``novel_specific_words`` (% of all content words of all summaries),
        ``summaries_with_novel_specific`` (%), ``top_opening`` and ``top_opening_share`` (% of
        summaries opening with it), ``back_to_back_repeats`` (in all) and ``summaries_with_back_to_back``
        (%), ``unfinished`` (% of summaries), ``top_novel_specific`` (the ten most frequent novel
        specific words with their counts, ``"coli 3, wheat 2"``), ``specific_df_docs`` (documents the
        frequencies came from)."""
        n = max(self.summaries, 1)
        top, top_count = self.openings.most_common(1)[0] if self.openings else ("", 0)
        return {
            "novel_words": 100.0 * self.novel / max(self.content, 1),
            "novel_specific_words": 100.0 * self.novel_specific / max(self.content, 1),
            "summaries_with_novel_specific": 100.0 * self.with_novel_specific / n,
            "top_opening": top,
            "top_opening_share": 100.0 * top_count / n,
            "back_to_back_repeats": self.repeats,
            "summaries_with_back_to_back": 100.0 * self.with_repeats / n,
            "unfinished": 100.0 * self.unfinished / n,
            "top_novel_specific": ", ".join(f"{w} {c}" for w, c in self.novel_specific_words.most_common(10)),
            "specific_df_docs": self.n_docs,
        }
