"""Decoding sentence-level coarse-to-fine (:mod:`c2fsum.models.select_rewrite`, a
:class:`~c2fsum.models.base.Selector`): the selector picks
sentences of the paper until STOP or the word budget, under the pick rules of issue 47
(:func:`pick_rules`: no two picks saying the same, no sentence that only points at a figure or file
or reports the authors' earlier work, a sentence opening on "these ..." picked with the one before
it); with a rewriter (a pointer-generator run, ``model.rewriter``) each picked sentence is rewritten
by beam search over a one-sentence grid, and the rewrite decides only which safe spans of the
sentence go (:func:`safe_version`: an opener, a bracketed aside, a citation, a list marker); the
summary's words are always the paper's. The summary reads in the paper's order; the pick order is
``Decoded.picked``.

The budget is one value, ``summary_words``: the decoding options' ``max_len`` (``--words`` of
``c2fsum extract``; the summary's words, sentence marks not counted, as ``c2fsum baseline ilp
--budget`` counts them; 0: none), and one test, :func:`~c2fsum.models.selector_parts.fits`, decides
whether a sentence fits it when the selector picks, when :func:`compose` writes the summary and when
the room is filled again; ``min_len`` is the fewest words (STOP is not allowed before the picks
hold that many words, while a sentence still fits). Shortened, the room the shorter sentences
leave is filled again with the next picks (picked under :data:`REFILL_REACH` times the budget), and
a sentence shortened below ``rewrite_min_share`` of its tokens is copied whole.

The summary's word attention ``(T, M, N)`` over the paper's grid points at the cell each word came
from (one-hot). ``fine_fraction`` is the share of the paper's words read at the word level: the
picked sentences' words over all words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher

import torch

from c2fsum.baselines.ilp import MIN_SENTENCE_WORDS, words_in
from c2fsum.config import Config
from c2fsum.data.batching import Example, collate, encode_document
from c2fsum.data.grid import inference_grid
from c2fsum.data.sentences import (
    MARKS,
    document_sentences,
    opener_end,
    opening_connective,
    sentence_cells,
    unmarked,
)
from c2fsum.data.vocab import EOS, Vocab
from c2fsum.decoding.documents import Decoded, decode_examples
from c2fsum.decoding.hypothesis import Hypothesis
from c2fsum.decoding.options import DecodeOptions
from c2fsum.decoding.pick_beam import beam_pick
from c2fsum.metrics.output_stats import back_to_back_repeats, ends_sentence, is_content_word
from c2fsum.models.base import Selector, Summarizer
from c2fsum.models.checkpoint import Loaded
from c2fsum.models.select_rewrite import SentenceSelector
from c2fsum.models.selector_parts import PickRules, fits
from c2fsum.utils.tokens import SENTENCE_ENDS

MIN_ROOM = MIN_SENTENCE_WORDS
"""Fewest words of room worth filling again: the shortest sentence a summary may hold."""


PAPER_ORDER = True
"""The summary's sentences in the paper's order (False: in pick order, as before issue 47; for
``bench/select_steps.py``)."""

PICK_RULES = True
"""Decoding applies :func:`pick_rules` (False: the selector alone; for ``bench/select_steps.py``)."""

MAX_OVERLAP = 0.6
"""No two picks share more than this share of their content words (of the shorter sentence's):
a paper that says a thing twice is summarized saying it once."""

LEAD_IN = (
    r"(?:(?:however|moreover|furthermore|in addition|additionally|thus|therefore|hence|together|taken together|"
    r"overall|in summary|in conclusion|importantly|finally|interestingly|notably|consequently|collectively|"
    r"altogether|accordingly|indeed|also|for the most part)(?: ,)? )?"
)
"""An opening connective a reference back may follow ("taken together , these results ...")."""

POINTS_ELSEWHERE = re.compile(
    r"\b(?:additional|supplementary|supplemental) (?:file|table|figure|fig|material|data|information|text)s?\b"
    r"|\b(?:see|in|of) (?:figure|fig|table)s? ?(?:< dig >|#|\d)"
    r"|^(?:figure|fig|table)s? ?(?:< dig >|#|\d)"
)
"""A sentence that names a figure, table or supplementary file ..."""

ONLY_POINTS = re.compile(
    r"\b(?:available|shown|listed|given|presented|summari[sz]ed|provided|depicted|illustrated|displayed|"
    r"detailed|described|reported|found|included|deposited|see|shows|illustrates|depicts|lists|summari[sz]es)\b"
)
"""... and says where something is rather than what it is ("complete results are available in
additional file < dig >", "the primers are listed in table < dig >"): no finding of the paper."""

EARLIER_WORK = re.compile(
    LEAD_IN + r"(?:(?:we|our group|our laboratory|our lab) (?:have |had )?(?:previously|recently|earlier|already)\b"
    r"|previously(?: ,)? we\b|(?:in )?(?:our|a) (?:previous|earlier|prior|recent) (?:study|work|report|paper|studies)"
    r"(?: ,)? we\b|(?:in )?our (?:previous|earlier|prior|recent) (?:study|work|report|paper|studies)\b"
    r"|we and others have\b"
    r"|(?:from|in|based on) our (?:previous|earlier|prior) \S+(?: \S+){0,4} (?:study|work|studies)\b)"
)
"""The authors' earlier work, stated as such ("we previously showed ...", "in our previous study ..."):
not this paper's finding."""

REFERS_BACK = re.compile(
    r"(?:rather|instead|conversely|similarly|likewise|in contrast|on the other hand|nevertheless|nonetheless"
    r"|by contrast|in turn|accordingly|secondly|thirdly|lastly)(?: ,)? |(?:first|firstly|second|third) , |"
    + LEAD_IN
    + r"(?:(?:based on|in light of|in view of|given|consistent with|in line with|in agreement with) )?"
    r"(?:these|this|such|both|they|those|the latter|the former|similar)\b"
    r"(?! (?:study|paper|work|article|report|review|manuscript|thesis|chapter)\b)"
)
"""A sentence that opens on what the one before said ("these results ...", "this suggests ...",
"rather , ...", "firstly , ..."; not "this study", the paper itself)."""

REFERS_INSIDE = re.compile(r"^(?:\S+ ){1,11}?(?:these|those|such) (?!(?:as|a|an|that)\b)([a-z][a-z-]*)\b")
"""A sentence that names, in its first words, what one before it introduced ("the detection of f.
tularensis in organ samples of these hares ..."): "these"/"those" and a word the sentence has not
said before them."""


BROKEN = re.compile(
    r" (?:on|at|from|via|in|to|by|of|with|for|and|the|a|an) [.]$"  # "... freely available on ." (its URL removed)
    r"|< dig > (?:we|our|here|this|these|in this study|the|thus|however|therefore|moreover|several|for example"
    r"|in addition|taken together|finally) "  # two sentences glued where SumPubMed removed a number and its period
    r"|^< dig > (?:on|in|at|of|and|or|to|for|with|by|from) "  # the tail of one cut at a removed number
    r"|^[a-z]+\. "  # the tail of one cut after an abbreviation ("sp. nov. , from the middle jurassic ...")
    r"|^(?:were|was|is|are|been|and|or|but|which) "  # ... or before its verb ("sp. were distributed ...")
    r"|\?$"  # a question asks, it states no finding
    r"|\bthe following(?: \S+){0,3} [.:]$"  # it announces the next ones ("... the following three findings .")
)
"""A sentence the data set broke: an address removed before its end ("... the r package freely
available on ."), two sentences glued where a number and its period were removed ("... strain
by < dig > we have subsequently used ..."), the tail of a sentence cut at a removed number or
after an abbreviation ("< dig > on threaded and unthreaded perls ."); a question; or a sentence that
announces what the next ones say ("we obtained the following three main findings .")."""


def sentence_rule(words: Sequence[str]) -> str:
    """Why a sentence (prepared tokens) is no summary sentence on its own: ``points`` (it says where
    something is shown), ``earlier`` (the authors' earlier work), ``broken`` (:data:`BROKEN`),
    ``refers`` (it opens on what the sentence before said: picked only with it), or ``""``.

    >>> sentence_rule("complete results are available in additional file < dig > .".split())
    'points'
    >>> sentence_rule("figure < dig > illustrates the steps of the pipeline .".split())
    'points'
    >>> sentence_rule("we previously showed that x binds y .".split())
    'earlier'
    >>> sentence_rule("from our previous transcription and genomic studies , we found that x binds y .".split())
    'earlier'
    >>> sentence_rule("by manipulating expression of such molecules , it will be possible to map x .".split())
    'refers'
    >>> sentence_rule("we characterized the region and obtained the following three main findings .".split())
    'broken'
    >>> sentence_rule("taken together , these results suggest a role for x .".split())
    'refers'
    >>> sentence_rule("this study shows that x binds y .".split())
    ''
    >>> sentence_rule("similar genes are also found in hqr .".split())
    'refers'
    >>> sentence_rule("rather , the introns argue for independent evolution .".split())
    'refers'
    >>> sentence_rule("based on this knowledge , our study set out to map x .".split())
    'refers'
    >>> sentence_rule("pcr of organ samples of these hares was the start of our work .".split())
    'refers'
    >>> sentence_rule("we caught < dig > hares and in these hares found f. tularensis .".split())
    ''
    >>> tails = ("< dig > on threaded perls .", "nov. , from the jurassic .", "were abundant in the cell .")
    >>> [sentence_rule(s.split()) for s in (*tails, "why ?")]
    ['broken', 'broken', 'broken', 'broken']
    """
    text = " ".join(w for w in words if w not in MARKS)
    if POINTS_ELSEWHERE.search(text) and ONLY_POINTS.search(text) and words_in(list(words)) <= 30:
        return "points"
    if EARLIER_WORK.match(text):
        return "earlier"
    if BROKEN.search(text):
        return "broken"
    if REFERS_BACK.match(text):
        return "refers"
    inside = REFERS_INSIDE.match(text)
    if inside and f" {inside.group(1)} " not in " " + text[: inside.start(1)]:
        return "refers"
    return ""


def pick_rules(examples: Sequence[Example], S: int, *, max_overlap: float = MAX_OVERLAP) -> PickRules:
    """The :class:`~c2fsum.models.selector_parts.PickRules` of a batch of papers of at most ``S``
    sentences (:func:`sentence_rule`): sentences that point elsewhere, report earlier work or were broken are
    never picked; one that refers back comes with the sentence before it (blocked when it opens
    its paper, when the sentence before refers back too: "lastly , ..." then "based on this
    knowledge , ..." would bring a sentence that needs its own, or when the two share more than
    ``max_overlap`` of their words: the pair would say one thing twice)."""
    blocked = torch.zeros(len(examples), S + 1, dtype=torch.bool)
    antecedent = torch.full((len(examples), S + 1), -1, dtype=torch.long)
    for b, ex in enumerate(examples):
        before = ""
        sentences = document_sentences(ex)[:S]
        for j, sentence in enumerate(sentences):
            why = sentence_rule(sentence)
            if why in ("points", "earlier", "broken") or (why == "refers" and (j == 0 or before == "refers")):
                blocked[b, j + 1] = True
            elif why == "refers" and _shares(sentence, sentences[j - 1]) > max_overlap:
                blocked[b, j + 1] = True  # it would come with a sentence saying much the same
            elif why == "refers":
                antecedent[b, j + 1] = j  # candidate j is sentence j - 1
            before = why
    return PickRules(blocked=blocked, antecedent=antecedent, max_overlap=max_overlap)


def _shares(a: Sequence[str], b: Sequence[str]) -> float:
    """The most two sentences share of the shorter one's words, as the overlap rule counts them
    (content words; all words with a letter; each without its opening connective)."""
    a, b = a[opening_connective(a) :], b[opening_connective(b) :]
    out = 0.0
    for keep in (is_content_word, lambda w: any(c.isalpha() for c in w)):
        x, y = {w.lower() for w in a if keep(w)}, {w.lower() for w in b if keep(w)}
        if x and y:
            out = max(out, len(x & y) / min(len(x), len(y)))
    return out


@torch.no_grad()
def select_sentences(
    model: Selector,
    examples: list[Example],
    cfg: Config,
    *,
    budgets: Sequence[tuple[int, int]] = ((0, 0),),
    batch_size: int = 10,
    device: torch.device | str = "cpu",
    rules: bool | None = None,
) -> list[list[list[int]]]:
    """The selector's picks (sentence indices, in pick order) for each example, greedily, once per
    ``(summary_words, min_words)`` of ``budgets`` (each paper read once for all of them), in batches of
    papers of similar length: ``out[b][i]`` for budget ``b`` and example ``i``, in the input order.
    ``rules``: :func:`pick_rules` apply (no pick repeating another, none pointing elsewhere, ...;
    default :data:`PICK_RULES`)."""
    model.eval()
    order = sorted(range(len(examples)), key=lambda i: len(examples[i].words))
    out: list[list[list[int]]] = [[[] for _ in examples] for _ in budgets]
    for start in range(0, len(examples), batch_size):
        where = order[start : start + batch_size]
        chosen = [examples[i] for i in where]
        batch = collate(chosen, chunks=cfg.data.chunks, chunk_len=cfg.data.chunk_len).to(device)
        memory = model.read(model.sentences(batch.src, batch.src_mask), chosen)
        S = memory.real.size(1) - 1
        rule = pick_rules(chosen, S) if (PICK_RULES if rules is None else rules) else None
        if rule is not None:
            rule = replace(rule, blocked=rule.blocked.to(device), antecedent=rule.antecedent.to(device))
        for b, (summary_words, min_words) in enumerate(budgets):
            if SELECT_BEAM > 1:
                assert isinstance(model, SentenceSelector), "a beam over picks needs the sentence selector's steps"
                kept = beam_pick(
                    model,
                    memory,
                    k=SELECT_BEAM,
                    rules=rule,
                    summary_words=summary_words,
                    min_words=min_words,
                    norm=SELECT_BEAM_NORM,
                )
            else:
                kept = model.greedy(memory, summary_words=summary_words, min_words=min_words, rules=rule).picks
            for i, picks in zip(where, kept, strict=True):
                out[b][i] = picks
    return out


SELECT_BEAM = 1
"""Selections kept per paper while picking (:func:`~c2fsum.decoding.pick_beam.beam_pick`); 1: greedy."""
SELECT_BEAM_NORM = 0.0
"""The beam's length exponent (:func:`~c2fsum.decoding.pick_beam.beam_pick`'s ``norm``)."""

REWRITE_BATCH = 32
"""Sentences the rewriter decodes together: 21% less rewriting time than 10 (its run's
``decode.batch_size``) on 30 test papers, the same summaries; 64 was no faster (one thread)."""


@dataclass
class Rewriter:
    """A pointer-generator run that rewrites one sentence at a time (the fine level)."""

    model: Summarizer
    vocab: Vocab
    config: Config
    options: DecodeOptions
    device: str = "cpu"

    @classmethod
    def of(cls, loaded: Loaded, *, device: str = "cpu") -> Rewriter:
        """A loaded rewriter (:func:`c2fsum.models.checkpoint.load_rewriter`), decoding with its own
        options, trigrams blocked within a sentence, :data:`REWRITE_BATCH` sentences at a time."""
        assert isinstance(loaded.model, Summarizer), "load_rewriter loads a model that writes words"
        options = DecodeOptions.from_config(loaded.config.decode)
        options = options.override(block_trigrams=True, batch_size=REWRITE_BATCH)
        config = replace(loaded.config, data=inference_grid(loaded.config.data))
        return cls(model=loaded.model, vocab=loaded.vocab, config=config, options=options, device=device)

    def searching(self, options: DecodeOptions) -> DecodeOptions:
        """The rewriter's options with the search settings of a summary's ``options`` (beam, length
        norm, trigram and repeat blocking, ``<unk>`` replacement): one ``--beam`` serves the summary."""
        search = ("beam", "length_norm", "block_trigrams", "block_repeats", "replace_unk")
        return self.options.override(**{k: getattr(options, k) for k in search})

    def rewrite(
        self, sentences: list[list[str]], options: DecodeOptions | None = None, *, progress: bool = False
    ) -> list[Decoded]:
        """Each sentence (tokens, no sentence marks) rewritten by beam search over its own grid, with
        ``options`` (default: the rewriter's own; a sentence's lengths are always the rewriter's)."""
        docs = [{"id": str(k), "src": [s + [EOS]], "tgt": [], "refs": []} for k, s in enumerate(sentences)]
        examples = [encode_document(d, self.vocab, self.config.data) for d in docs]
        return decode_examples(
            self.model,
            self.vocab,
            examples,
            self.config,
            self.options if options is None else self.searching(options),
            device=self.device,
            progress=progress,
            unit="sentence",  # each example is one sentence of a paper, not a document
            desc="rewrite",
        )


REDUNDANT = 0.5
"""With a rewriter, a copied sentence is left out when more than this share of its content
trigrams is in the summary already (a copy repeats the paper's own phrases: "rna ligases and")."""

PLACEHOLDERS = frozenset({"dig", "cit"})
"""SumPubMed's ``< dig >`` (a number it removed) and ``< cit >`` (a citation): no content word."""


def _trigrams(words: Sequence[str]) -> set[tuple[str, ...]]:
    """The summary's trigrams that hold a content word (:func:`~c2fsum.metrics.output_stats.is_content_word`,
    ``< dig >`` and ``< cit >`` not one): what no two sentences may share (``of < dig >`` in two
    sentences is no repeat)."""
    n = len(words)
    content = [
        is_content_word(w) and not (w in PLACEHOLDERS and 0 < i < n - 1 and words[i - 1] == "<" and words[i + 1] == ">")
        for i, w in enumerate(words)
    ]
    return {tuple(words[i : i + 3]) for i in range(n - 2) if any(content[i : i + 3])}


def _as_many_sentences(rewrite: Sequence[str], source: Sequence[str]) -> list[str]:
    """``rewrite`` cut after as many sentence ends as ``source`` holds (at least one): a rewriter that
    writes on past its sentence's end ("... slaughterhouses . <unk> . coli .") adds no sentence."""
    n = max(1, sum(1 for w in source if w in SENTENCE_ENDS))
    for i, w in enumerate(rewrite):
        if w in SENTENCE_ENDS:
            n -= 1
            if n == 0:
                return list(rewrite[: i + 1])
    return list(rewrite)


SAFE_LEAD_INS = (
    "however",
    "moreover",
    "furthermore",
    "in addition",
    "additionally",
    "thus",
    "therefore",
    "hence",
    "importantly",
    "interestingly",
    "notably",
    "finally",
    "in summary",
    "in conclusion",
    "overall",
    "taken together",
    "together",
    "here",
    "in this study",
    "in the present study",
    "in this paper",
    "in this work",
    "in the current study",
    "to this end",
    "specifically",
    "in particular",
)
"""Openers a sentence reads the same without (followed by a comma): what a rewrite may leave out."""

OPENERS = {"-lrb-": "-rrb-", "-lsb-": "-rsb-"}
"""PTB brackets: a bracketed aside (an abbreviation, a statistic, a reference) a rewrite may leave out."""


def safe_spans(source: Sequence[str]) -> list[tuple[int, int]]:
    """The spans ``[a, b)`` of a sentence's tokens that a rewrite may leave out without changing what
    it says (:func:`safe_version`): an opener of :data:`SAFE_LEAD_INS` with its comma, a citation
    (``< cit >``), a bracketed aside, a list marker at the start ("( i )", "a )").

    >>> safe_spans("however , x binds y -lrb- p < # -rrb- < cit > .".split())
    [(0, 2), (5, 10), (10, 13)]
    """
    n = len(source)
    spans: list[tuple[int, int]] = []
    head = 0
    if n > 2 and source[1] == "-rrb-" and len(source[0]) <= 4:  # "a ) ..." a list marker
        spans.append((0, 2))
        head = 2
    elif n > 3 and source[0] == "-lrb-" and source[2] == "-rrb-" and len(source[1]) <= 4:  # "( i ) ..."
        spans.append((0, 3))
        head = 3
    lead_in = opener_end(source, SAFE_LEAD_INS, head)
    if lead_in:
        spans.append((head, lead_in))
    i = head
    while i < n:
        if source[i] == "<" and i + 2 < n and source[i + 1] == "cit" and source[i + 2] == ">":
            spans.append((i, i + 3))
            i += 3
            continue
        if source[i] in OPENERS:
            close, depth = OPENERS[source[i]], 0
            for j in range(i, n):
                depth += (source[j] == source[i]) - (source[j] == close)
                if depth == 0:
                    if i > head:  # an aside inside the sentence, not one that opens it
                        spans.append((i, j + 1))
                    i = j
                    break
        i += 1
    return sorted(spans)


def safe_version(rewrite: Sequence[str], source: Sequence[str]) -> list[int] | None:
    """The positions of ``source`` kept when the :func:`safe_spans` the rewrite left out (none of
    their words kept, aligned by longest matching blocks) are left out, or None when it left out
    none: the rewriter decides what to shorten, the summary says it in the paper's own words.
    Whatever else a rewrite changes (a lost subject or verb, a word or number the paper does not
    say there, a dropped "not" or "novel", two clauses fused) never reaches the summary.

    >>> src = "however , x binds y < cit > .".split()
    >>> [src[i] for i in safe_version("x binds y .".split(), src)]
    ['x', 'binds', 'y', '.']
    >>> src = "however , x binds y .".split()
    >>> [src[i] for i in safe_version("x activates y .".split(), src)]
    ['x', 'binds', 'y', '.']
    >>> safe_version("x binds y .".split(), "x binds y .".split()) is None
    True
    """
    spans = safe_spans(source)
    if not spans:
        return None
    kept = [False] * len(source)
    for block in SequenceMatcher(None, list(source), list(rewrite), autojunk=False).get_matching_blocks():
        for k in range(block.a, block.a + block.size):
            kept[k] = True
    dropped = [(a, b) for a, b in spans if not any(kept[a:b])]
    if not dropped:
        return None
    out = [i for i in range(len(source)) if not any(a <= i < b for a, b in dropped)]
    while out and source[out[0]] in (",", ";", ":"):
        out = out[1:]
    out = [i for k, i in enumerate(out) if not (k and source[i] == "," and source[out[k - 1]] == ",")]
    return out


def _ids(example: Example, vocab: Vocab, words: Sequence[str]) -> list[int]:
    """``words`` as ids in the example's extended vocabulary (a document-only word: its own id)."""
    oov = {w: len(vocab) + k for k, w in enumerate(example.oovs)}
    return [i if i != vocab.unk_id else oov.get(w, i) for w, i in zip(words, vocab.encode(words), strict=True)]


def compose(
    example: Example,
    picks: list[int],
    vocab: Vocab,
    grid_shape: tuple[int, int],
    rewritten: Sequence[Decoded | None] | None = None,
    *,
    summary_words: int = 0,
    min_share: float = 0.0,
    cells: list[list[int]] | None = None,
    attention: bool = True,
) -> Decoded:
    """One paper's summary from its picks, decided in pick order and written in the paper's order:
    each picked sentence copied (a word the paper repeats back to back, "in in vitro", once), or,
    where ``rewritten`` holds a rewrite (one entry per pick; None: copy), the sentence without the
    safe spans that rewrite left out (:func:`safe_version`, the rewrite cut first after as many
    sentence ends as its sentence holds) when that keeps at least ``min_share`` of its tokens.

    With a rewriter, a shortened sentence that repeats a content trigram of the summary
    (:func:`_trigrams`) gives way to the copy, and a copy is left out when it mostly repeats the
    summary (:data:`REDUNDANT`); a copy may share a phrase of the paper with another. A sentence that
    does not end as one (``.``, ``!``, ``?``: a fragment, a formula) or holds fewer than
    :data:`~c2fsum.baselines.ilp.MIN_SENTENCE_WORDS` words ("Were.", "Coli.") is left out. A
    sentence that does not :func:`~c2fsum.models.selector_parts.fits` the summary's budget of
    ``summary_words`` words (0: none) is left out (the next may still fit). ``grid_shape``: the
    paper's ``(M, N)`` in the batch it was read in.

    ``Decoded.sentences``: the picks the summary's sentences came from, in the paper's order (the
    summary's); ``picked``: the same in pick order; ``written``: the summary's sentences;
    ``fine_fraction``: the words of all ``picks`` (each read, copied or rewritten) over the paper's;
    ``fine_chunks``: the chunks that hold them.
    ``cells``: the paper's :func:`~c2fsum.data.sentences.sentence_cells` where the caller has them
    (composing a paper again after a refill does not cut it again). ``attention=False``: the
    hypothesis's attention is left empty ``(0, M, N)`` (a draft the refill composes again: each
    summary word on its own cell of a 100,000-word paper is 90 MB)."""
    cells = sentence_cells(example.words) if cells is None else cells
    summary = _Summary()
    for k, j in enumerate(picks):
        d = rewritten[k] if rewritten is not None else None
        versions = _versions(example, unmarked(cells[j], example.words), d, min_share)
        for v, version in enumerate(versions):
            new = [example.words[c] for c in version]
            grams = _trigrams(new)
            rewriting = rewritten is not None
            if summary.takes(new, grams, rewriting=rewriting, copy=v == len(versions) - 1, budget=summary_words):
                summary.add(j, version, new, grams)
                break
    return summary.decoded(example, vocab, grid_shape, picks, cells, attention=attention)


def _versions(example: Example, own: list[int], rewrite: Decoded | None, min_share: float) -> list[list[int]]:
    """The cells of a picked sentence's versions, in the order they are tried: the sentence without
    the safe spans ``rewrite`` left out (:func:`safe_version`) where it keeps ``min_share`` of its
    ``own`` cells, then the copy; each with a word the paper repeats back to back once."""
    versions: list[list[int]] = []
    source = [example.words[c] for c in own]
    keep = safe_version(_as_many_sentences(rewrite.words, source), source) if rewrite is not None else None
    if keep and len(keep) >= min_share * len(own):
        versions.append([own[i] for i in keep])
    versions.append(own)
    return [
        [
            c
            for i, c in enumerate(version)
            if not i or not back_to_back_repeats([example.words[version[i - 1]], example.words[c]])
        ]
        for version in versions
    ]


@dataclass
class _Summary:
    """A summary as :func:`compose` writes it, in pick order: its words, the cells each written
    sentence's words sit on, the picks they came from, the sentences, and the content trigrams said."""

    words: list[str] = field(default_factory=list)
    rows: list[list[int]] = field(default_factory=list)
    used: list[int] = field(default_factory=list)
    written: list[list[str]] = field(default_factory=list)
    seen: set[tuple[str, ...]] = field(default_factory=set)

    def takes(self, new: list[str], grams: set[tuple[str, ...]], *, rewriting: bool, copy: bool, budget: int) -> bool:
        """Whether the summary takes the sentence ``new`` (its content trigrams ``grams``; ``copy``:
        the last version tried) within a budget of ``budget`` words."""
        if not new or not ends_sentence(new) or words_in(new) < MIN_SENTENCE_WORDS:
            return False  # a fragment ("three parameters were evaluated :", "Coli.") is no summary sentence
        if rewriting and grams & self.seen and not copy:
            return False  # with a rewriter: a rewrite that repeats a trigram gives way to the copy
        if rewriting and len(grams & self.seen) > REDUNDANT * len(grams):
            return False  # a copy that mostly repeats the summary
        return bool(fits(len(self.words), len(new), budget))

    def add(self, j: int, cells: list[int], new: list[str], grams: set[tuple[str, ...]]) -> None:
        """Sentence ``j`` of the paper, written as ``new`` on ``cells``."""
        self.seen |= grams
        self.words.extend(new)
        self.rows.append(cells)
        self.used.append(j)
        self.written.append(new)

    def decoded(
        self,
        example: Example,
        vocab: Vocab,
        grid_shape: tuple[int, int],
        picks: list[int],
        cells: list[list[int]],
        *,
        attention: bool,
    ) -> Decoded:
        """The summary in the paper's order (:data:`PAPER_ORDER`), as :func:`compose` returns it."""
        M, N = grid_shape
        used, written = self.used, self.written
        order = sorted(range(len(used)), key=lambda k: used[k] if PAPER_ORDER else k)  # the paper's order
        if order and PAPER_ORDER:  # the summary's first sentence follows nothing: no "moreover , ..."
            cut = opening_connective(written[order[0]])
            written = [w[cut:] if k == order[0] else w for k, w in enumerate(written)]
            rows = [r[cut:] if k == order[0] else r for k, r in enumerate(self.rows)]
        else:
            rows = self.rows
        words = [w for k in order for w in written[k]]
        on = torch.tensor([c for k in order for c in rows[k]] if attention else [], dtype=torch.long)
        attn = torch.zeros(len(on), M * N)  # (T, M * N): each word of the summary on its own cell
        attn[torch.arange(len(on)), on] = 1.0
        hyp = Hypothesis(
            tokens=_ids(example, vocab, words), score=0.0, norm_score=0.0, attn=attn.view(-1, M, N), eos=True
        )
        sizes = [len(unmarked(sentence, example.words)) for sentence in cells]
        total, read = sum(sizes), sum(sizes[j] for j in set(picks))
        fine = sorted({c // N for j in set(picks) for c in unmarked(cells[j], example.words)})  # their chunks
        return Decoded(
            example,
            hyp,
            words,
            fine_fraction=read / max(total, 1),
            fine_chunks=fine,
            sentences=[used[k] for k in order],
            written=[written[k] for k in order],
            picked=used,
        )


REFILL_ROUNDS = 2
"""With a rewriter and a budget: how many times the room the rewrites leave is filled again."""

REFILL_REACH = 4
"""With a rewriter and a budget, the room the rewrites leave is filled from the selector's picks
under this many times the summary's budget (and no STOP before as many words): far more
sentences than the room takes, in the selector's order."""


def decode_selected(
    model: Selector,
    vocab: Vocab,
    examples: list[Example],
    cfg: Config,
    options: DecodeOptions,
    *,
    rewriter: Rewriter | None = None,
    device: torch.device | str = "cpu",
    progress: bool = False,
) -> list[Decoded]:
    """Pick (:func:`select_sentences`, ``options.max_len`` / ``min_len`` words), then copy or rewrite
    (:func:`compose`); in the input order.

    With a rewriter (searching with ``options``' beam, length norm and blocking,
    :meth:`Rewriter.searching`) the budget holds the summary's words, not the picked sentences': the picks are
    rewritten (a rewrite shorter than ``options.rewrite_min_share`` of its sentence is not used), and
    the room the rewrites leave is filled again (:data:`REFILL_ROUNDS` times) with the selector's
    next picks under :data:`REFILL_REACH` times the budget, rewritten the same way, while they fit."""
    summary_words = options.max_len
    budgets = [(summary_words, options.min_len)]
    if rewriter is not None and summary_words > 0:  # where the room the rewrites leave is filled from
        budgets.append((REFILL_REACH * summary_words, REFILL_REACH * summary_words))
    picks, *further = select_sentences(
        model, examples, cfg, budgets=budgets, batch_size=options.batch_size, device=device
    )
    shapes = [(ex.n_chunks(cfg.data.chunk_len), cfg.data.chunk_len) for ex in examples]
    cells = [sentence_cells(ex.words) for ex in examples]
    if rewriter is None:
        together = zip(examples, picks, shapes, cells, strict=True)
        return [compose(ex, p, vocab, shape, cells=c) for ex, p, shape, c in together]
    drafts = _Drafts(examples, vocab, shapes, cells, rewriter, options, progress, picks)
    drafts.refill(further[0] if further else [])
    return [drafts.draft(i, attention=True) for i in range(len(examples))]  # the summaries, with their attention


@dataclass
class _Drafts:
    """The summaries :func:`decode_selected` writes with a rewriter: each paper's picks so far and
    their rewrites, composed again as the room is filled."""

    examples: list[Example]
    vocab: Vocab
    shapes: list[tuple[int, int]]
    cells: list[list[list[int]]]
    rewriter: Rewriter
    options: DecodeOptions
    progress: bool
    picks: list[list[int]]
    rewrites: list[list[Decoded]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rewrites = self.rewrite(self.picks)

    def words_of(self, i: int, j: int) -> list[str]:
        """Sentence ``j`` of paper ``i``, its words without the sentence marks."""
        words = self.examples[i].words
        return [words[c] for c in unmarked(self.cells[i][j], words)]

    def rewrite(self, wanted: list[list[int]]) -> list[list[Decoded]]:
        """The rewrites of the sentences ``wanted`` of each paper, all in one run of the rewriter."""
        flat = [self.words_of(i, j) for i, js in enumerate(wanted) for j in js]
        done = iter(self.rewriter.rewrite(flat, self.options, progress=self.progress)) if flat else iter(())
        return [[next(done) for _ in js] for js in wanted]

    def draft(self, i: int, attention: bool = False) -> Decoded:
        """Paper ``i``'s summary from its picks so far (:func:`compose`)."""
        return compose(
            self.examples[i],
            self.picks[i],
            self.vocab,
            self.shapes[i],
            self.rewrites[i],
            summary_words=self.options.max_len,
            min_share=self.options.rewrite_min_share,
            cells=self.cells[i],
            attention=attention,
        )

    def refill(self, more: list[list[int]]) -> None:
        """Fill the room the rewrites leave (:data:`REFILL_ROUNDS` times) with the next picks of
        ``more`` (each paper's picks under :data:`REFILL_REACH` times the budget) not tried yet, in
        pick order, while their words fit the room: rewrites keep about 3/4 of their sentence, so
        the next round fills what they leave (a cap of twice the room rewrote 19% more sentences
        for the same ROUGE on 100 validation papers)."""
        summary_words = self.options.max_len
        out = [self.draft(i) for i in range(len(self.examples))]
        for _ in range(REFILL_ROUNDS if summary_words > 0 else 0):
            if max(summary_words - len(d.words) for d in out) < MIN_ROOM:
                break
            wanted = [self.fresh(i, m, len(out[i].words)) for i, m in enumerate(more)]
            if not any(wanted):
                break
            extra = self.rewrite(wanted)
            for i, (w, r) in enumerate(zip(wanted, extra, strict=True)):
                if w:
                    self.picks[i] = self.picks[i] + w
                    self.rewrites[i] = self.rewrites[i] + r
                    out[i] = self.draft(i)

    def fresh(self, i: int, more: list[int], written: int) -> list[int]:
        """The picks of ``more`` paper ``i`` has not tried, in order, while they :func:`fits` the
        room its summary of ``written`` words leaves (none when that room is under :data:`MIN_ROOM`)."""
        summary_words = self.options.max_len
        if summary_words - written < MIN_ROOM:
            return []
        fresh, held = [], 0
        for j in more:
            n = len(self.words_of(i, j))
            if j not in self.picks[i] and fits(written + held, n, summary_words):
                fresh.append(j)
                held += n
        return fresh
