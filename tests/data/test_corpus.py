"""The committed test corpus (tests/data/corpus): what its script writes, and news-shaped enough
for the tests that train and score on it."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from c2fsum.data.prepare import process_document
from c2fsum.data.readers import RawDocument
from shared_data import CORPUS, read_raw

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_corpus  # noqa: E402


def test_committed_files_are_what_the_script_writes():
    assert make_corpus.main(["--check"]) == 0
    assert sum(p.stat().st_size for p in CORPUS.glob("*.jsonl")) < 1_000_000


def test_every_document_prepares_and_its_highlights_come_from_its_article():
    words: Counter[str] = Counter()
    for split, n in make_corpus.SIZES.items():
        docs = read_raw(split, n)
        assert len({d["id"] for d in docs}) == n
        for d in docs:
            rec = process_document(RawDocument(d["id"], d["article"], tuple(d["highlights"].split("\n")), split))
            assert isinstance(rec, dict), (split, d["id"], rec)
            assert len(d["article"]) < 6000, d["id"]  # what the serving tests' server accepts
            assert 3 <= len(rec["refs"]) <= 4 and len(rec["tgt"]) >= 11, d["id"]
            article = {w for s in rec["src"] for w in s}
            for ref in rec["refs"]:  # copied from the article and cut (a quote is reported: "X said they ...")
                assert sum(w in article for w in ref) >= 0.7 * len(ref), (d["id"], ref)
            if split == "train":
                words.update(w for s in rec["src"] for w in s)
    # a long tail, as in real news: the tests' vocabulary caps (500 to 3,000 words) leave <unk>s
    assert len(words) > 3000 and sum(1 for c in words.values() if c == 1) > 1000


def test_lines_have_the_raw_cnndm_layout():
    line = (CORPUS / "test.jsonl").read_text(encoding="utf-8").splitlines()[0]
    d = json.loads(line)
    assert list(d) == ["id", "article", "highlights"] and len(d["id"]) == 40
