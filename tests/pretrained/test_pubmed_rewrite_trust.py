"""Issue 47, on the shipped ``pubmed-rewrite``: what a reader of its summaries can rely on, on every
CPU (text and invariants, no float): each summary sentence is the paper's own sentence, or that
sentence without safe spans (an opener, a bracketed aside, a citation, a list marker); the sentences
come in the paper's order, the pick order kept beside them; no sentence twice, no two sharing more
than 60% of their content words; ``extract`` on a file of one repeated sentence prints it once."""

from __future__ import annotations

import gzip
import json
from itertools import combinations, islice

import pytest

import c2fsum
from c2fsum.data.tokenize import preprocess_document
from c2fsum.decoding.selection import MAX_OVERLAP, safe_spans, sentence_rule
from c2fsum.models.selector_parts import content_sets
from shared_data import DATA, need_real

pytestmark = pytest.mark.real_data


@pytest.fixture(scope="module")
def model():
    return c2fsum.load("pubmed-rewrite")


def _papers(n: int) -> list[str]:
    path = need_real(DATA / "pubmed" / "val.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line)["article"] for line in islice(f, 200, 200 + n)]  # papers past those tuned on


def _is_sources_or_safe_cuts(out: list[str], sources: list[list[str]]) -> bool:
    """``out`` is the ``sources`` one after another, each whole or without some of its safe spans
    (and the commas around them): a subsequence whose left-out tokens all lie in safe spans."""
    source = [w for x in sources for w in x]
    spans, at = [], 0
    for x in sources:
        spans += [(a + at, b + at) for a, b in safe_spans(x)]
        at += len(x)
    kept, i = [], 0
    for w in out:
        while i < len(source) and source[i] != w:
            i += 1
        if i == len(source):
            return False
        kept.append(i)
        i += 1
    gone = set(range(len(source))) - set(kept)

    return all(any(a <= k < b for a, b in spans) or source[k] == "," for k in gone)


def test_summaries_of_unseen_papers_are_the_papers_sentences_in_its_order(model):
    papers = _papers(6)
    summaries = model.summarize(papers)
    for paper, s in zip(papers, summaries, strict=True):
        sentences = [[w for w in x if w != "</s>"] for x in preprocess_document(paper).sentences]
        assert s.sentences and s.sentences == sorted(s.sentences) and sorted(s.picked) == s.sentences
        assert _is_sources_or_safe_cuts(list(s.tokens), [sentences[j] for j in s.sentences])
        for j in s.sentences:
            assert sentence_rule(sentences[j]) not in ("points", "earlier")
        words = [content_sets([sentences[j]])[0] for j in s.sentences]
        for a, b in combinations(words, 2):
            assert len(a & b) <= MAX_OVERLAP * max(1, min(len(a), len(b)))


def test_extract_prints_a_repeated_sentence_once(model):
    """``extract --model pubmed-rewrite`` printed one sentence 18 times on such a file (issue 49)."""
    text = " ".join(["Thirteen novel mature miRNAs were discovered in the salmon ovary."] * 18)
    text += " The ovary expressed 400 known miRNAs at high levels. Expression changed during maturation."
    (e,) = model.extract([text])
    assert e.text.count("Thirteen novel mature miRNAs") == 1 and "The ovary expressed" in e.text
    assert len(e.sentences) == len(set(e.sentences)) >= 2
