#!/usr/bin/env python3
"""Golden hashes of the tokenizer's output on the shared corpora (tests/data/tokenize_golden.json.gz).

For every document of the golden set, the sha256 (first 16 hex digits) of the compact JSON of

    src       preprocess_article(article)            the article's sentences, each ending </s>
    refs      preprocess_highlights(highlights)      each highlight's tokens (what prepare writes)
    abstract  preprocess_summary(abstract)           PubMed only: the whole abstract

The golden set (read in place from ../shared/data, never copied):

    cnndm     train, val and test .jsonl.gz (2,753 documents) and the 20 raw stories/*.story
    longdocs  scisummnet_sample.jsonl.gz (300 ACL papers)
    pubmed    test.jsonl.gz, all 500 papers (a fixed, documented set: the whole test split)

``--impl before`` runs the tokenizer as it was before issue 17 (bench/tokenize_before.py, read from a pinned commit:
NLTK + pysbd), ``--impl package`` the package's :mod:`c2fsum.data.tokenize`. ``--full FILE``
also writes every output in full (JSON lines, gzip) for diffing. ``--check`` compares with
the committed golden file instead of writing it and lists the documents that differ.

    PYTHONPATH=src python scripts/make_tokenize_golden.py --impl before --full /tmp/before.jsonl.gz
    PYTHONPATH=src python scripts/make_tokenize_golden.py --check
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
GOLDEN = ROOT / "tests" / "data" / "tokenize_golden.json.gz"


def golden_documents(data: Path = DATA) -> Iterator[tuple[str, dict]]:
    """``(key, record)`` for every document of the golden set, in a fixed order.

    ``record`` has ``article``, ``highlights`` (a list) and, for PubMed, ``abstract``.
    """
    from c2fsum.data.readers import parse_story

    for split in ("train", "val", "test"):
        yield from _jsonl(data / "cnndm" / f"{split}.jsonl.gz", f"cnndm/{split}")
    for path in sorted((data / "cnndm" / "stories").glob("*.story")):
        article, highlights = parse_story(path.read_text(encoding="utf-8"))
        yield f"cnndm/stories/{path.stem}", {"article": article, "highlights": highlights}
    yield from _jsonl(data / "longdocs" / "scisummnet_sample.jsonl.gz", "longdocs")
    yield from _jsonl(data / "pubmed" / "test.jsonl.gz", "pubmed/test")


def _jsonl(path: Path, prefix: str) -> Iterator[tuple[str, dict]]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for i, line in enumerate(f):
            rec = json.loads(line)
            highlights = rec["highlights"]
            if isinstance(highlights, str):
                highlights = highlights.split("\n")
            out = {"article": rec["article"], "highlights": highlights}
            if "abstract" in rec:
                out["abstract"] = rec["abstract"]
            yield f"{prefix}/{i}:{rec.get('id', i)}", out


def outputs(tok, record: dict) -> dict:
    """The tokenizer's outputs for one golden record."""
    out = {"src": tok.preprocess_article(record["article"]), "refs": tok.preprocess_highlights(record["highlights"])}
    if "abstract" in record:
        out["abstract"] = tok.preprocess_summary(record["abstract"])
    return out


def digest(value) -> str:
    blob = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:16]


def load_impl(name: str):
    if name == "package":
        return importlib.import_module("c2fsum.data.tokenize")
    sys.path.insert(0, str(ROOT / "bench"))
    from tokenize_before import load  # type: ignore[import-not-found]

    return load()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--impl", choices=["before", "package"], default="package")
    ap.add_argument("--full", type=Path, help="also write every output in full here (JSON lines, gzip)")
    ap.add_argument("--check", action="store_true", help="compare with the golden file instead of writing it")
    ap.add_argument("--golden", type=Path, default=GOLDEN)
    args = ap.parse_args()
    tok = load_impl(args.impl)
    want = json.loads(gzip.decompress(args.golden.read_bytes())) if args.check else None
    hashes: dict[str, dict[str, str]] = {}
    full = gzip.open(args.full, "wt", encoding="utf-8") if args.full else None
    started = time.perf_counter()
    words = 0
    for n, (key, record) in enumerate(golden_documents(), start=1):
        out = outputs(tok, record)
        words += len(record["article"].split())
        hashes[key] = {field: digest(value) for field, value in out.items()}
        if full is not None:
            full.write(json.dumps({"key": key, **out}, ensure_ascii=False) + "\n")
        if want is not None and want.get(key) != hashes[key]:
            print(f"DIFF {key}: {sorted(f for f in hashes[key] if want.get(key, {}).get(f) != hashes[key][f])}")
        if n % 250 == 0:
            el = time.perf_counter() - started
            print(f"{n} documents, {words:,} article words, {el:.0f} s, {words / el:,.0f} words/s", file=sys.stderr)
    if full is not None:
        full.close()
    el = time.perf_counter() - started
    print(f"{len(hashes)} documents, {words:,} article words in {el:.1f} s ({words / el:,.0f} words/s)")
    if want is not None:
        bad = [k for k in want if want[k] != hashes.get(k)]
        print(f"{len(bad)} of {len(want)} documents differ from {args.golden}")
        sys.exit(1 if bad else 0)
    blob = json.dumps(hashes, sort_keys=True, separators=(",", ":")).encode("utf-8")
    args.golden.write_bytes(gzip.compress(blob, mtime=0))
    print(f"wrote {args.golden} ({args.golden.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
