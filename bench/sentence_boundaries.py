#!/usr/bin/env python3
"""Sentence boundaries on scientific text: c2fsum's splitter against well-kept libraries (issue 36).

This is a measurement, not a test. ``bench/data/sentence_boundaries.json`` holds 369 unit starts
labelled by hand in 30 passages of ``../shared/data/pubmed`` train papers (read in place: the file
holds offsets, not text). A unit is a sentence, a heading line, or a line of a caption, table
or footnote. Each method splits each passage as the papers give it (lower-cased, line breaks
kept); its unit starts are compared with the labels after both are moved left to the start of
their whitespace-separated word (``<cit>`` tokenized as ``cit`` counts at ``<``), or to just after
a period glued inside it (``pathogenicity.fig.``). Precision: share of the predicted starts that
are labelled; recall: share of the labelled starts predicted.

Words per second: whitespace-separated words of the first ``--speed-papers`` validation papers
(whole articles) over the CPU time of splitting them one by one, on this process's one thread
(c2fsum: tokenizing and splitting, ``preprocess_document``; the libraries: splitting only). The
comparison libraries are not dependencies of c2fsum: ``pip install syntok spacy blingfire``.

    methods    c2fsum     c2fsum.data.tokenize.split_sentences (tokens -> sentence starts): the
                          code of this checkout (run from a checkout before issue 36 for "before")
               c2fsum-sbd c2fsum.data.sbd.sentence_starts on the paper's text (the splitter alone)
               pysbd      pysbd 0.3.4, Segmenter(language="en", clean=False, char_span=True)
               syntok     syntok.segmenter.analyze (paragraphs, sentences)
               punkt      nltk's Punkt trained on 500 train papers' articles (not the labelled ones)
               spacy      spacy.blank("en") + sentencizer
               blingfire  blingfire.text_to_sentences_and_offsets

    python bench/sentence_boundaries.py                 # all methods installed
    python bench/sentence_boundaries.py --only c2fsum,pysbd --errors c2fsum
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import re
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
LABELS = ROOT / "bench" / "data" / "sentence_boundaries.json"
PUNKT_PAPERS = 500

Splitter = Callable[[str], list[int]]  # text -> offsets where units start


def papers(split: str, ids: set[str] | None = None, limit: int = 0) -> dict[str, str]:
    out: dict[str, str] = {}
    with gzip.open(DATA / "pubmed" / f"{split}.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if ids is None or d["id"] in ids:
                out[d["id"]] = d["article"]
            if (ids is not None and len(out) == len(ids)) or (limit and len(out) >= limit):
                break
    return out


def snap(text: str, p: int) -> int:
    """``p`` moved right over whitespace, then left to its word's start or to just after a '.' in it."""
    n = len(text)
    while p < n and text[p].isspace():
        p += 1
    while p > 0 and not text[p - 1].isspace() and text[p - 1] != ".":
        p -= 1
    return p


# ------------------------------------------------------------------------------ methods
def _token_starts(text: str, sentences: list[list[str]]) -> list[int]:
    """Where each tokenized sentence starts in ``text``: its first token with a letter or digit,
    found from a cursor in the text lower-cased with digits as ``#`` (as c2fsum writes them)."""
    seen = re.sub(r"\d", "#", text.lower())
    cursor, starts = 0, []
    for sentence in sentences:
        words = [t for t in sentence if any(c.isalnum() or c == "#" for c in t) and not re.fullmatch(r"-[a-z]{3}-", t)]
        if not words:
            continue
        at = seen.find(words[0], cursor)
        if at < 0:
            continue
        starts.append(at)
        cursor = at + len(words[0])
        for w in words[1:]:  # move the cursor over the sentence
            nxt = seen.find(w, cursor, cursor + 200 + len(w))
            if nxt >= 0:
                cursor = nxt + len(w)
    return starts


def c2fsum_splitter() -> Splitter:
    """Units as c2fsum reads them: since issue 36 the blocks of :func:`c2fsum.data.layout.blocks`
    (a heading, each line of a table or caption, the sentences of a paragraph or legend); before it, the
    sentences of the whole text."""
    from c2fsum.data.tokenize import split_sentences, tokenize_words

    try:
        from c2fsum.data.layout import blocks
        from c2fsum.data.tokenize import preprocess_document
    except ImportError:  # a checkout before issue 36

        def before(text: str) -> list[int]:
            return _token_starts(text, split_sentences(text))

        before.timed = split_sentences  # type: ignore[attr-defined]
        return before

    def split(text: str) -> list[int]:
        units: list[list[str]] = []
        for block in blocks(text):
            if block.kind in ("text", "legend"):  # a legend is prose too: its sentences are its units
                units += split_sentences(block.text)
            else:
                units += [tokenize_words(line) for line in block.text.split("\n")]
        return _token_starts(text, units)

    split.timed = preprocess_document  # type: ignore[attr-defined]
    return split


def c2fsum_sbd() -> Splitter:
    from c2fsum.data.sbd import sentence_starts

    return lambda text: sentence_starts(text.replace("\n", " "))


def pysbd_splitter() -> Splitter:
    import pysbd

    seg = pysbd.Segmenter(language="en", clean=False, char_span=True)
    return lambda text: [s.start for s in seg.segment(text)]


def syntok_splitter() -> Splitter:
    from syntok import segmenter

    def split(text: str) -> list[int]:
        return [sentence[0].offset for paragraph in segmenter.analyze(text) for sentence in paragraph if sentence]

    return split


def punkt_splitter() -> Splitter:
    from nltk.tokenize.punkt import PunktSentenceTokenizer, PunktTrainer

    labelled = {p["id"] for p in json.loads(LABELS.read_text())["passages"]}
    trainer = PunktTrainer()
    trainer.INCLUDE_ALL_COLLOCS = True
    with gzip.open(DATA / "pubmed" / "train.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in itertools.islice(f, PUNKT_PAPERS):
            d = json.loads(line)
            if d["id"] not in labelled:
                trainer.train(d["article"], finalize=False)
    trainer.finalize_training()
    tok = PunktSentenceTokenizer(trainer.get_params())
    return lambda text: [a for a, _ in tok.span_tokenize(text)]


def spacy_splitter() -> Splitter:
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.max_length = 10**8
    return lambda text: [s.start_char for s in nlp(text).sents]


def blingfire_splitter() -> Splitter:
    import blingfire

    def split(text: str) -> list[int]:
        _, offsets = blingfire.text_to_sentences_and_offsets(text)
        return [a for a, _ in offsets]

    return split


METHODS: dict[str, Callable[[], Splitter]] = {
    "c2fsum": c2fsum_splitter,
    "c2fsum-sbd": c2fsum_sbd,
    "pysbd": pysbd_splitter,
    "syntok": syntok_splitter,
    "punkt": punkt_splitter,
    "spacy": spacy_splitter,
    "blingfire": blingfire_splitter,
}


# ------------------------------------------------------------------------------ scoring
def score(split: Splitter, passages: list[dict], articles: dict[str, str], errors: bool) -> tuple[int, int, int]:
    """(true positives, predicted, labelled) over all passages."""
    tp = predicted = labelled = 0
    for p in passages:
        a, b = p["span"]
        text = articles[p["id"]][a:b]
        first = snap(text, 0)
        gold = {snap(text, s - a) for s in p["starts"]}
        pred = {snap(text, s) for s in split(text)} - {first, len(text)}
        tp += len(gold & pred)
        predicted += len(pred)
        labelled += len(gold)
        if errors:
            for kind, offsets in (("missed", gold - pred), ("wrong", pred - gold)):
                for s in sorted(offsets):
                    print(f"  {kind:6s} {p['id']}: ...{text[max(0, s - 50) : s]!r} | {text[s : s + 30]!r}")
    return tp, predicted, labelled


def speed(split: Splitter, texts: list[str]) -> float:
    """Words per CPU second of ``split`` (for c2fsum: of its tokenizer and splitter, ``timed``, not
    of the bench's mapping of tokens back to offsets)."""
    run = getattr(split, "timed", split)
    run(texts[0])  # warm up: compiled patterns, caches of the first words
    words = sum(len(t.split()) for t in texts)
    started = time.process_time()
    for t in texts:
        run(t)
    return words / max(time.process_time() - started, 1e-9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="comma-separated methods (default: all installed)")
    parser.add_argument("--errors", default="", help="print the missed and wrong starts of these methods")
    parser.add_argument("--speed-papers", type=int, default=20)
    args = parser.parse_args()
    labels = json.loads(LABELS.read_text())
    passages = labels["passages"]
    articles = papers("train", {p["id"] for p in passages})
    speed_texts = list(papers("val", limit=args.speed_papers).values())
    names = args.only.split(",") if args.only else list(METHODS)
    show_errors = set(args.errors.split(",")) if args.errors else set()
    print(f"{labels['boundaries']} labelled starts in {len(passages)} passages; speed on {len(speed_texts)} val papers")
    print(f"{'method':12s} {'precision':>9s} {'recall':>7s} {'F1':>6s} {'words/s':>10s}")
    for name in names:
        try:
            split = METHODS[name]()
        except ImportError as e:
            print(f"{name:12s} not installed ({e.name})")
            continue
        tp, pred, gold = score(split, passages, articles, name in show_errors)
        p, r = tp / max(pred, 1), tp / max(gold, 1)
        f1 = 2 * p * r / max(p + r, 1e-9)
        print(f"{name:12s} {p:9.3f} {r:7.3f} {f1:6.3f} {speed(split, speed_texts):10,.0f}", flush=True)


if __name__ == "__main__":
    main()
