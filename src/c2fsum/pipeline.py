"""The one inference path: load a model, read documents, encode them on the model's grid, decode.

``c2fsum.load`` and ``summarize`` (raw text, :meth:`Pipeline.summarize`), ``evaluate`` and
``plot attention`` (prepared documents, :meth:`Pipeline.encode_documents` then
:meth:`Pipeline.decode`) and the HTTP server all summarize through :class:`Pipeline`, so they read
and decode a document alike. A document travels::

    raw text --preprocess_article--> {"src": sentences} --\
    prepared split (data.prepare.read_split) --------------+--> encode_document on the
        reading grid (whole documents unless max_words) --> decode (greedy / beam search)
        --> Decoded (words, text, attention (T, M, N), coarse (T, M)) --> Summary / predictions

>>> import c2fsum
>>> model = c2fsum.load("cnndm-small")          # or a run directory, or a hub repo id "owner/name"
>>> out = model.summarize(["Text of a news article ..."], beam=5)
>>> out[0].text, out[0].tokens, out[0].attention.shape   # (T, M, N)

Importing this module loads no torch: :func:`extract` (ILP, LEAD) needs no model, and
``c2fsum extract`` starts without it (tests/cli/test_startup.py); torch and the model side are
imported where a :class:`Pipeline` loads or runs a model.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm.auto import tqdm

from c2fsum.data.tokenize import Document, preprocess_article, preprocess_document
from c2fsum.errors import InputError

if TYPE_CHECKING:  # torch and the model side are imported where a model is loaded or run (below)
    from torch import Tensor

    from c2fsum.config import Config
    from c2fsum.data.batching import Example
    from c2fsum.decoding.documents import Decoded
    from c2fsum.decoding.options import DecodeOptions
    from c2fsum.decoding.selection import Rewriter

log = logging.getLogger(__name__)


def leading_words(text: str, n: int) -> str:
    """``text`` up to the end of its ``n``-th whitespace-separated word (all of it if shorter).

    The model reads only the grid's first M x N tokens, and every word gives at least one token
    unless it is made only of characters the tokenizer drops; cutting a huge input here keeps the
    time and memory of :meth:`Pipeline.summarize` bounded (a 1,000,000-word line costs a scan).
    """
    if n < 1:
        return text
    parts = text.split(maxsplit=n)  # the first n words, then the rest from word n + 1 on
    if len(parts) < n:
        return text
    rest = parts[n] if len(parts) > n else ""
    return text[: len(text) - len(rest)].rstrip()


_TERMINAL_CODES = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -/]*[0-~]?)|\x9b[0-?]*[ -/]*[@-~]?"
    r"|[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]"
)
"""What a terminal obeys instead of printing: ANSI escape sequences (``ESC[31m``, ``ESC]0;title BEL``,
their 8-bit ``CSI`` form) whole, and every other control character that is no white space (NUL,
BEL, backspace, DEL, C1). Tab, newline, carriage return, form feed and the separators
``\x1c``-``\x1f`` and U+0085 are white space: they separate words and lines as before."""


def printable(text: str) -> str:
    """``text`` without what a terminal would obey rather than print (:data:`_TERMINAL_CODES`): the
    text every summary and extract is made from, so that no input's control characters reach the
    terminal, the page or a JSON reader's screen through a summary's spelling (issue 49)."""
    return _TERMINAL_CODES.sub("", text) if _TERMINAL_CODES.search(text) else text


def words_to_read(max_words: int = 0) -> int:
    """The words of a raw text that :meth:`Pipeline.encode_texts` tokenizes: all of them up to
    :data:`MAX_INPUT_WORDS`, or a prefix far longer than ``max_words`` when that is given."""
    return max(10_000, 20 * max_words) if max_words else MAX_INPUT_WORDS


def has_words(text: str, *, max_words: int = 0) -> bool:
    """True when :meth:`Pipeline.summarize` finds words in ``text`` (else it refuses it as an
    empty article): false for empty, blank or invisible-only text (zero-width spaces, BOMs,
    control characters, :func:`printable`). Tokenizes the first 50 words, and the rest only when
    those hold none."""
    text = printable(text)
    head = leading_words(text, 50)
    if preprocess_article(head):
        return True
    return len(head) < len(text) and bool(preprocess_article(leading_words(text, words_to_read(max_words))))


@dataclass
class Summary:
    """A generated summary with what the model attended to while writing it."""

    text: str
    """The summary as prose: spelled as the document spells it, whole sentences
    (:func:`c2fsum.decoding.render.render`)."""
    tokens: list[str]
    """The model's own tokens (lowercase, PTB tokens, digits as ``#``): what ROUGE scores."""
    score: float
    """Sum of log-probabilities of the tokens (and the final ``</s>``)."""
    attention: Tensor
    """``(T, M, N)``: attention over the source grid for each output token (and ``</s>``, if produced)."""
    source: list[str]
    """The grid's words in reading order (``attention[t].flatten()[:len(source)]`` aligns with them)."""
    coarse: Tensor | None = None
    eos: bool = True
    """False when the summary was cut at the maximum length (then ``attention`` has no ``</s>`` row)."""
    fine_fraction: float = 1.0
    """Share of the source words that went through the word-level encoder (below 1 only for a lazy
    MODEL 3, which encodes the chunks its hard attention picks)."""
    fine_chunks: list[int] | None = None
    """The chunks (rows of ``attention``) that went through the word-level encoder; None: all."""
    sentences: list[int] | None = None
    """The document's sentences a sentence selector's summary was made of (``select-rewrite``), in
    the summary's order, the document's; else None."""
    picked: list[int] | None = None
    """The same sentences in the order the selector picked them (most wanted first); else None."""
    refusal: str = ""
    """Why :attr:`text` is empty (:func:`why_no_summary`: "its 1 word holds no sentence end ..."), or
    "" when there is a summary. ``c2fsum summarize`` and the server refuse such a text with this reason."""
    cut: bool = False
    """True when the model read only the text's first words (``max_words``, or the first
    :data:`MAX_INPUT_WORDS`): :attr:`source` holds them, the rest of the text was not read."""

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "tokens": self.tokens,
            "score": self.score,
            "eos": self.eos,
            "fine_fraction": self.fine_fraction,
            "source": self.source,
            "attention": self.attention.flatten(1)[:, : len(self.source)].tolist(),
        }


MAX_INPUT_WORDS = 100_000
"""Words of one input read by :meth:`Pipeline.summarize` when ``max_words`` is 0 (whole texts)."""


def why_no_summary(sentences: Sequence[Sequence[str]], budget: int = 0) -> str:
    """Why a text gives no summary made of its own whole sentences (a sentence selector's, ILP's or
    LEAD's), from its sentences (token lists; ``</s>`` and ``<pad>`` may be in them) and the
    summary's ``budget`` in words (0: none), as a phrase that follows "no summary: ".

    The rules are the summarizers' own: a summary sentence ends as one (``.``, ``!``, ``?``:
    :func:`c2fsum.metrics.output_stats.ends_sentence`), holds at least
    :data:`~c2fsum.baselines.ilp.MIN_SENTENCE_WORDS` words, and fits the budget. "" when some
    sentence keeps all three (the summarizer left them out for reasons of its own)."""
    from c2fsum.baselines.ilp import MIN_SENTENCE_WORDS, words_in
    from c2fsum.metrics.output_stats import ends_sentence

    body = [[t for t in s if t not in ("</s>", "<s>", "<pad>")] for s in sentences]
    body = [b for b in body if b]
    total = sum(map(words_in, body))
    words = "1 word holds" if total == 1 else f"{total:,} words hold"
    ended = [b for b in body if ends_sentence(b)]
    if not ended:
        return (
            f"its {words} no sentence end ('.', '!' or '?'): headings, a list or unpunctuated text, "
            "with no sentence to summarize"
        )
    whole = [n for n in map(words_in, ended) if n >= MIN_SENTENCE_WORDS]
    if not whole:
        return f"no sentence of {MIN_SENTENCE_WORDS} words or more (its {len(ended)} sentences are fragments)"
    if budget > 0 and min(whole) > budget:
        return f"no sentence fits in {budget} words (the shortest whole sentence has {min(whole):,}); allow more words"
    return ""


class Pipeline:
    """A loaded model with its vocabulary, config, decoding options and preprocessing."""

    def __init__(self, run_dir: str | Path, *, device: str = "cpu"):
        from c2fsum.decoding.options import DecodeOptions
        from c2fsum.models.checkpoint import load_checkpoint

        loaded = load_checkpoint(run_dir, device=device)
        self.model, self.config, self.vocab, self.path = loaded.model, loaded.config, loaded.vocab, loaded.path
        self.device = device
        self.defaults = DecodeOptions.from_config(self.config.decode)
        """The model's own decoding options (its saved ``decode`` section, ``min_len`` resolved at load)."""
        self._rewriter: Rewriter | None = None
        """``select-rewrite``: the rewriter run of ``model.rewriter``, loaded at the first decode."""

    def options(self, base: DecodeOptions | None = None, **overrides: Any) -> DecodeOptions:
        """The options of one call: ``base`` (default: :attr:`defaults`) with the caller's
        ``overrides`` (:class:`DecodeOptions` fields; None keeps the value), checked once."""
        return (base or self.defaults).override(**overrides)

    def reading(self, max_words: int = 0) -> Config:
        """The config documents are read and decoded with: the trained grid without its chunk limit
        (whole documents, M grows with the document), cut to the first ``max_words`` words if asked
        (0: whole documents; :func:`c2fsum.data.grid.inference_grid`)."""
        from c2fsum.data.grid import inference_grid

        return replace(self.config, data=inference_grid(self.config.data, max_words))

    def encode_documents(self, docs: Iterable[dict], *, max_words: int = 0) -> list[Example]:
        """Prepared documents (``{"id", "src", "tgt", "refs"}``) on the reading grid, in order."""
        from c2fsum.data.batching import encode_document

        data = self.reading(max_words).data
        return [encode_document(d, self.vocab, data) for d in docs]

    def encode_texts(
        self, texts: list[str], *, max_words: int = 0, progress: bool = False, names: Sequence[str] | None = None
    ) -> list[Example]:
        """Raw article texts, preprocessed exactly like the training data, on the reading grid
        (:meth:`read_texts`, then :meth:`encode_documents`)."""
        docs = self.read_texts(texts, max_words=max_words, progress=progress, names=names)
        return self.encode_documents(docs, max_words=max_words)

    def read_texts(
        self, texts: list[str], *, max_words: int = 0, progress: bool = False, names: Sequence[str] | None = None
    ) -> list[dict]:
        """Raw article texts as prepared documents (``{"id", "src", ...}``), preprocessed exactly like
        the training data; ``"cut"``: True when the grid keeps only the text's first words
        (``max_words``, or :data:`MAX_INPUT_WORDS`).

        Only the first :data:`MAX_INPUT_WORDS` words (a bound on time and memory), or a prefix far
        longer than ``max_words``, are tokenized. ``names``: what each text is called in warnings and
        errors (a file, ``FILE:LINE``; default ``text I``). InputError for a text that is not a str or is empty.
        """
        read_words = words_to_read(max_words)
        docs = []
        for i, text in enumerate(tqdm(texts, desc="read", unit="doc", disable=not progress, dynamic_ncols=True)):
            name = _name(names, i)
            if not isinstance(text, str):
                raise InputError(f"{name}: expected a str, got {type(text).__name__}")
            text = printable(text)
            head = leading_words(text, read_words)
            if len(head) < len(text) and not max_words:
                log.warning(
                    "%s: longer than %s words; only the first %s are read", name, f"{read_words:,}", f"{read_words:,}"
                )
            doc = preprocess_document(head)  # headings as sections, non-running text left out
            if not doc.sentences:
                raise InputError(f"{name}: empty article, nothing to summarize")
            surface = {str(k): v for k, v in doc.surface().items()}
            record: dict[str, Any] = {"id": str(i), "src": doc.sentences, "tgt": [], "refs": [], "surface": surface}
            record["sections"] = [[title, first] for title, first in doc.sections]  # as prepare writes them
            # make_grid keeps the first max_words cells of the sentences (their </s> counted)
            record["cut"] = len(head) < len(text) or 0 < max_words < sum(map(len, doc.sentences))
            docs.append(record)
        return docs

    def decode(
        self, examples: list[Example], options: DecodeOptions | None = None, *, progress: bool = False
    ) -> list[Decoded]:
        """Greedy or beam search over encoded documents (:func:`c2fsum.decoding.documents.decode_examples`)
        with ``options`` (default: the model's, :attr:`defaults`)."""
        import torch

        from c2fsum.decoding.documents import decode_examples
        from c2fsum.models.base import Selector

        model = self.model
        if isinstance(model, Selector):  # sentence-level coarse-to-fine: pick, then copy or rewrite
            from c2fsum.decoding.selection import decode_selected

            return decode_selected(
                model,
                self.vocab,
                examples,
                self.reading(),
                options or self.defaults,
                rewriter=self.rewriter(),
                device=self.device,
                progress=progress,
            )
        with torch.no_grad():
            return decode_examples(
                model,
                self.vocab,
                examples,
                self.reading(),  # the batch layout: no chunk limit; the examples carry their own cut
                options or self.defaults,
                device=self.device,
                progress=progress,
            )

    def rewriter(self) -> Rewriter | None:
        """``select-rewrite``: the rewriter ``model.rewriter`` names, loaded at the first call
        (:func:`c2fsum.models.checkpoint.load_rewriter`); None without one (learned extraction)."""
        if self._rewriter is None and self.config.model.rewriter:
            from c2fsum.decoding.selection import Rewriter
            from c2fsum.models.checkpoint import load_rewriter

            loaded = load_rewriter(self.path, self.config.model.rewriter, device=self.device)
            self._rewriter = Rewriter.of(loaded, device=self.device)
        return self._rewriter

    def extract(
        self, texts: list[str] | str, *, words: int = 0, progress: bool = False, names: Sequence[str] | None = None
    ) -> list[Extract]:
        """A sentence selector's own sentences (``select-rewrite`` without rewriting: learned
        extraction) for raw texts: picked until STOP or ``words`` words (0: the model's
        ``decode.max_len``), in pick order. ``names``: what each text is called in warnings and
        errors (:meth:`read_texts`). InputError for a model that writes words."""
        from c2fsum.decoding.selection import decode_selected
        from c2fsum.models.base import Selector

        model = self.model
        if not isinstance(model, Selector):
            raise InputError(
                f"{self.path}: a {self.config.model.family} model writes words; extraction needs a sentence "
                "selector (model.family select-rewrite)"
            )
        texts = [texts] if isinstance(texts, str) else texts
        o = self.options(max_len=words or None)
        examples = self.encode_texts(texts, progress=progress, names=names)
        decoded = decode_selected(model, self.vocab, examples, self.reading(), o, device=self.device)
        out = []
        for d in decoded:
            text = d.readable
            refusal = "" if text else self._refusal(d.example.words, o)
            out.append(
                Extract(text=text, tokens=d.words, sentences=d.sentences or [], picked=d.picked, refusal=refusal)
            )
        return out

    def summarize(
        self,
        texts: list[str] | str,
        options: DecodeOptions | None = None,
        *,
        progress: bool = False,
        names: Sequence[str] | None = None,
        **overrides: Any,
    ) -> list[Summary]:
        """Summarize raw article texts (preprocessed exactly like the training data).

        ``options`` (default: the model's) with ``overrides``, any :class:`DecodeOptions` field by
        name: ``beam``, ``block_trigrams``, ``replace_unk``, ``max_len``, ``min_len`` (default: the
        model's minimum, the 5th percentile of its training summaries' lengths,
        :mod:`c2fsum.data.lengths`; 0 allows the empty summary), ``read_chunks`` (MODEL 3's chunks
        read per step), ``max_words`` (read only the first W words; 0, the default: whole texts, the
        grid gets as many chunks as they need), ... InputError for an unknown option, a value out of
        range, or a ``min_len`` above the maximum length. ``progress``: bars on stderr while reading
        and decoding. ``names``: what each text is called in warnings and errors (a file,
        ``FILE:LINE``; default ``text I``).
        """
        if isinstance(texts, str):
            texts = [texts]
        o = self.options(options, **overrides)
        docs = self.read_texts(texts, max_words=o.max_words, progress=progress, names=names)
        examples = self.encode_documents(docs, max_words=o.max_words)
        out = []
        for doc, d in zip(docs, self.decode(examples, o, progress=progress), strict=True):
            text = d.readable
            out.append(
                Summary(
                    text=text,
                    tokens=d.words,
                    score=d.hypothesis.score,
                    attention=d.hypothesis.attn,
                    source=d.example.words,
                    coarse=d.hypothesis.coarse,
                    eos=d.hypothesis.eos,
                    fine_fraction=d.fine_fraction,
                    fine_chunks=d.fine_chunks,
                    sentences=d.sentences,
                    picked=d.picked,
                    refusal="" if text else self._refusal(d.example.words, o),
                    cut=doc["cut"],
                )
            )
        return out

    def _refusal(self, words: Sequence[str], o: DecodeOptions) -> str:
        """Why the model wrote nothing for a document (its grid's ``words``): a sentence selector
        takes whole sentences (:func:`why_no_summary`, within ``o.max_len`` words); a model that
        writes words ended before its first whole sentence."""
        from c2fsum.models.base import Selector

        if not isinstance(self.model, Selector):
            if o.min_len == 0:
                return "the model wrote no word (min_len 0 lets it stop at once; the model's own minimum does not)"
            return "the model ended its summary before its first whole sentence"
        sentences = _sentences_of(words)
        return why_no_summary(sentences, o.max_len) or "the model's sentence selector picked no sentence"


def _name(names: Sequence[str] | None, i: int) -> str:
    """What text ``i`` is called in warnings and errors: ``names[i]`` (a file, ``FILE:LINE``), else ``text i``."""
    return names[i] if names is not None and i < len(names) else f"text {i}"


def _sentences_of(words: Sequence[str]) -> list[list[str]]:
    """A grid's cells (``Example.words``) cut after each ``</s>``, ``<pad>`` left out."""
    out: list[list[str]] = [[]]
    for w in words:
        if w == "<pad>":
            continue
        out[-1].append(w)
        if w == "</s>":
            out.append([])
    return [s for s in out if s]


def chunk_attention(decoded: Decoded, chunk_len: int, model: str = "") -> dict:
    """What a heatmap of one decoded document shows, as a JSON object (``attention.jsonl`` rows).

    ``attention`` is ``(T, M')``: per output word (and ``</s>`` when produced) the attention on each
    of the ``M'`` chunks that hold the document's words (:func:`c2fsum.metrics.entropy.chunk_distribution`:
    the coarse attention of MODEL 2/3, the word attention summed per chunk for MODEL 0/1);
    ``words`` are its T column labels, ``source`` the grid's words in reading order
    (``chunk_len`` per row).
    """
    from c2fsum.metrics.entropy import chunk_distribution

    hyp = decoded.hypothesis
    dist = chunk_distribution(hyp.attn, hyp.coarse)  # (T, M)
    n_rows = min(math.ceil(len(decoded.example.words) / chunk_len), dist.size(1))
    words = list(decoded.words) + (["</s>"] if hyp.eos else [])
    return {
        "id": decoded.example.id,
        "model": model,
        "kind": "coarse attention" if hyp.coarse is not None else "word attention summed per chunk",
        "chunk_len": chunk_len,
        "source": decoded.example.words,
        "words": words[: dist.size(0)],
        "attention": dist[:, :n_rows].tolist(),
    }


EXTRACT_METHODS = ("ilp", "lead")
"""Summarizers that need no model (:func:`extract`)."""
EXTRACT_WORDS = 250
"""Their default length: about the words of a SumPubMed abstract (docs/results.md: ILP at this
length is the strongest summarizer of papers c2fsum has)."""


@dataclass
class Extract:
    """A summary made of the document's own sentences (:func:`extract`)."""

    text: str
    """The chosen sentences as the document spells them, one per line, in document order."""
    tokens: list[str]
    """Their tokens as c2fsum reads them (lowercase, PTB tokens, digits as ``#``): what ROUGE scores."""
    sentences: list[int]
    """Indices of the chosen sentences among the document's (``preprocess_article``'s split)."""
    picked: list[int] | None = None
    """A sentence selector's: the same sentences in the order it picked them; None for ILP/LEAD."""
    refusal: str = ""
    """Why :attr:`text` is empty (:func:`why_no_summary`: no sentence end, no sentence of
    enough words, none within the budget), or "" when sentences were chosen."""


def extract(
    texts: str | list[str],
    *,
    method: str = "ilp",
    words: int = EXTRACT_WORDS,
    progress: bool = False,
    names: Sequence[str] | None = None,
) -> list[Extract]:
    """Summarize raw texts with sentences of their own, at most ``words`` words each.

    ``ilp``: the sentences that cover the most frequent word pairs of the text within the budget
    (Gillick & Favre 2009; :mod:`c2fsum.baselines.ilp`; on a long text the solver chooses among
    the sentences of most weight per word, :func:`c2fsum.baselines.ilp.candidates`); ``lead``:
    the first sentences that fit (:func:`c2fsum.baselines.extractive.lead_sentences`). A text
    with no sentence to give (no sentence end at all, only fragments, or no sentence within
    ``words``) gets an empty :class:`Extract` whose ``refusal`` says why (:func:`why_no_summary`),
    never a sentence over the budget or words that are no sentence. ``progress``: a bar on stderr
    over the texts and the stages of each (read, concepts, solve, write). ``names``: what each text
    is called in warnings and errors (a file, ``FILE:LINE``; default ``text I``). InputError for an
    unknown method, a budget below 1 word or a text without words.
    """
    if method not in EXTRACT_METHODS:
        raise InputError(f"method: got {method!r}, expected one of {', '.join(EXTRACT_METHODS)}")
    if words < 1:
        raise InputError(f"words: expected a budget of at least 1 word, got {words}")
    texts = [texts] if isinstance(texts, str) else texts
    stages = ["read", "concepts", "solve", "write"] if method == "ilp" else ["read", "write"]
    bar = tqdm(total=len(texts) * len(stages), unit="step", disable=not progress, dynamic_ncols=True)
    out = []
    for i, text in enumerate(texts):
        name = _name(names, i)
        if not isinstance(text, str):
            raise InputError(f"{name}: expected a str, got {type(text).__name__}")
        out.append(_extract_one(text, name, method=method, words=words, bar=bar, stages=stages))
    bar.close()
    return out


def _extract_one(text: str, name: str, *, method: str, words: int, bar: tqdm, stages: list[str]) -> Extract:
    """:func:`extract` of one text called ``name``; ``bar`` advances by each of ``stages`` (all of
    them when the text has no sentence to give)."""
    from c2fsum.baselines.ilp import SENTENCE_MARKS
    from c2fsum.metrics.output_stats import ends_sentence

    bar.set_description(stages[0])
    text = printable(text)
    head = leading_words(text, MAX_INPUT_WORDS)
    if len(head) < len(text):
        limit = f"{MAX_INPUT_WORDS:,}"
        log.warning("%s: longer than %s words; only the first %s are read", name, limit, limit)
    doc = preprocess_document(head)  # headings as sections, non-running text left out
    sents = doc.sentences
    if not sents:
        raise InputError(f"{name}: empty article, nothing to summarize")
    if not any(ends_sentence(s[:-1]) for s in sents):  # headings, a list, a text without punctuation
        result = Extract(text="", tokens=[], sentences=[], refusal=why_no_summary(sents, words))
        bar.update(len(stages))
        return result
    bar.update()
    chosen = _choose_sentences(sents, method=method, words=words, bar=bar, stages=stages)
    bar.set_description(stages[-1])
    if not chosen:
        result = Extract(text="", tokens=[], sentences=[], refusal=_none_chosen(sents, method=method, words=words))
        bar.update()
        return result
    picked = [[t for t in sents[j] if t not in SENTENCE_MARKS] for j in chosen]
    tokens = [t for sentence in picked for t in sentence]
    result = Extract(text="\n".join(_written_lines(doc, chosen, picked)), tokens=tokens, sentences=chosen)
    bar.update()
    return result


def _choose_sentences(sents: list[list[str]], *, method: str, words: int, bar: tqdm, stages: list[str]) -> list[int]:
    """The indices of the sentences ``method`` (ILP or LEAD) chooses within ``words`` words, in
    document order; ILP advances ``bar`` over its concepts and solve stages."""
    from c2fsum.baselines.extractive import lead_sentences
    from c2fsum.baselines.ilp import MIN_SENTENCE_WORDS, build_problem, solve

    if method != "ilp":
        return lead_sentences(sents, words)
    bar.set_description(stages[1])
    problem = build_problem(sents, words, min_words=MIN_SENTENCE_WORDS)
    bar.update()
    bar.set_description(stages[2])
    chosen = solve(problem)
    bar.update()
    return chosen


def _none_chosen(sents: list[list[str]], *, method: str, words: int) -> str:
    """Why ``method`` chose no sentence of ``sents`` within ``words`` words."""
    from c2fsum.baselines.extractive import sentence_words

    if method == "ilp":
        return why_no_summary(sents, words) or f"ILP chose no sentence within {words} words"
    first = next((len(w) for w in map(sentence_words, sents) if w), 0)
    return (
        f"LEAD takes the first sentences that fit, and the first has {first:,} words, more than "
        f"{words}; allow more words"
    )


def _written_lines(doc: Document, chosen: list[int], picked: list[list[str]]) -> list[str]:
    """The ``chosen`` sentences of ``doc`` as the text writes them, where they read back the
    same; the others spelled from their tokens ``picked`` (headings' capitals, <dig>, brackets)."""
    from c2fsum.decoding.render import render_sentences

    written = doc.written(chosen)
    if len(written) >= len(chosen):
        return [written[j] for j in chosen]
    spelled = doc.surface()
    source = [t for s in doc.sentences for t in s]  # the document's cells, as Example.words and surface count them
    surface = [spelled.get(k, t) for k, t in enumerate(source)]
    rendered = render_sentences(picked, source=source, surface=surface)
    return [written.get(j, r) for j, r in zip(chosen, rendered, strict=True)]


def load(run_dir: str | Path, *, device: str = "cpu") -> Pipeline:
    """Load a model by name: a shipped model (``"cnndm-small"``), the best checkpoint of a run
    directory, a checkpoint directory, or a Hugging Face hub repository id ``"owner/name[@rev]"``
    (:mod:`c2fsum.pretrained.registry`)."""
    return Pipeline(run_dir, device=device)
