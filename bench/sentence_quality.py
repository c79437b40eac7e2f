#!/usr/bin/env python3
"""How many of the sentences c2fsum makes of a paper are broken, and how (issue 36).

This is a measurement, not a test. It runs :func:`c2fsum.pipeline.extract` (ILP, 250 words) on
validation papers of ``../shared/data/pubmed`` and checks every sentence it returns with
heuristics that do not share code with the splitter they judge:

    abbrev_end     ends on a single letter or a scientific abbreviation taken for a sentence end
                   ("... lon protease in e.", "the reconstructed p.", "et al.", "sp.")
    after_abbrev   starts where the document's previous sentence ended that way ("coli ...")
    heading        starts with one of the article's heading lines glued to the text under it
                   ("RESULTS biomarkers of ...", "cell culture and transfection a range of ...")
    file_caption   a supplementary-file caption ("click here for file", "additional file 2: ...")
    footnote       starts with a table footnote mark: a digit glued to a word ("3number of ..."),
                   "*", a dagger
    licence        a licence or copyright line ("creative commons", "©", "open access article")
    url            holds a URL or a DOI
    legend         a figure's or table's title ("Fig. N the histology of ...", not "Figure N shows ...")
    back_matter    an acknowledgement, funding, publication, competing-interests or authors'-contributions
                   statement ("we thank ...", "this work was supported by ... grant", "this article has been
                   published as part of ...", "the authors declare ...", "all authors read and approved ...")
    short          fewer than 4 words

A sentence counts once as broken, whatever the number of kinds it shows; the kinds are counted
each. ``--units`` checks every sentence of the papers (what the summarizers choose from) instead
of the extracts. ``--start`` picks the papers: 0 (papers 0-99) is the set the fix was built
looking at; 200 (papers 200-299) a set its builder did not read.

    python bench/sentence_quality.py                      # 100 val papers, ILP extracts
    python bench/sentence_quality.py --start 200 --units
    python bench/sentence_quality.py --dump before.jsonl      # then --rescore before.jsonl: no extraction
    PYTHONPATH=/path/to/old/checkout/src python bench/sentence_quality.py   # "before" with older code
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"

# abbreviations whose period, in scientific text, is no sentence end (judged on the sentence's last word)
_ABBREV_WORDS = frozenset(
    "al sp spp ssp subsp var cf ca approx fig figs eq eqs ref refs vs e.g i.e etc viz resp no nos vol pp "
    "dr mr mrs prof st ae aa".split()
)
_ABBREV_END = re.compile(r"(?:^|[\s(\[])([a-zA-Z]|[a-zA-Z]{2,6}|[a-z]\.[a-z])\.\s*$")
_HEADING_LINE_WORDS = 12
_FILE_CAPTION = re.compile(r"click here for file|^\s*additional file\b|additional file\s+\S+\s*:", re.I)
_FOOTNOTE = re.compile(r"^\s*(?:\d+(?!st\b|nd\b|rd\b|th\b)[a-z]{2,}|[*†‡§¶#])", re.I)  # not "1st"
_LICENCE = re.compile(
    r"creative commons|open access article|distributed under the terms|©|\(c\) \d|copyright|"
    r"all rights reserved|licensee biomed|licence|license",
    re.I,
)
_URL = re.compile(r"https?://|www\.|\bdoi\s*:|\b10\.\d{4,}/|ftp://", re.I)
# a figure's or table's title ("Fig. N the histology of ...", "Table N summary of samples"), not running text that
# names one ("Figure N shows ...", "Table N lists ...")
_LEGEND_TITLE = re.compile(
    r"(?:fig\.|figure|table)\s*(?:n|\d+)\s*[a-z]?\s+(?!(?:shows?|showed|lists?|summari[sz]es?|presents?|illustrates?"
    r"|compares?|depicts?|gives?|displays?|contains?|reports?|provides?|describes?|indicates?|reveals?|demonstrates?"
    r"|represents?|highlights?|plots?|is|are|was|were|also|and|in|of|,)\b)"
)
_WORD = re.compile(r"\w")
_BACK_MATTER = re.compile(  # broad on purpose: what it flags is read, not trusted
    r"\b(?:we|i|authors?)\b.{0,40}\b(?:thank|grateful|indebted)|gratefully acknowledg|\backnowledges?\s+(?:the\s+)?"
    r"(?:\w+\s+)?(?:support|funding)|\b(?:supported|funded|financed)\b.*\b(?:grants?|foundation|fellowship|ministry"
    r"|council|nih|nsf)\b|published as part of|contents of the supplement|publication (?:costs?|charges?|fees?)"
    r"|competing interests?|conflicts? of interests?|approved the final|contributed equally to this"
    r"|(?:drafted|wrote) the manuscript|funders? had no role",
    re.I,
)


def papers(split: str, start: int, n: int) -> list[dict]:
    with gzip.open(DATA / "pubmed" / f"{split}.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in itertools.islice(f, start, start + n)]


def heading_lines(article: str) -> list[str]:
    """Lines of the article that look like headings (short, no sentence end, letters), each with
    the first words of the line under it, lower-cased: ``"cell culture and transfection a range of"``.
    A sentence that starts with one of these holds a heading glued to its text."""
    out = set()
    lines = [" ".join(line.split()) for line in article.split("\n")]
    for s, below in zip(lines, lines[1:], strict=False):
        if not s or s[-1] in ".!?:;," or not re.search(r"[a-z]{3}", re.sub(r"<(dig|cit)>", " ", s.lower())):
            continue
        if len(s.split()) <= _HEADING_LINE_WORDS and below:
            out.add((s + " " + " ".join(below.split()[:3])).lower())
    return sorted(out, key=len, reverse=True)


def words(sentence: str) -> int:
    return sum(1 for w in sentence.split() if _WORD.search(w))


def ends_on_abbreviation(sentence: str) -> bool:
    m = _ABBREV_END.search(sentence)
    if not m or m.group(1) == "N":  # "N" is how the extract writes a <dig> number
        return False
    w = m.group(1).lower()
    return len(w) == 1 or w in _ABBREV_WORDS


def kinds(sentence: str, previous: str | None, headings: list[str]) -> list[str]:
    """The ways ``sentence`` (as the reader sees it) is broken; ``previous``: the document's sentence before it."""
    found = []
    low = " ".join(sentence.lower().split())
    if ends_on_abbreviation(sentence):
        found.append("abbrev_end")
    if previous is not None and ends_on_abbreviation(previous):
        found.append("after_abbrev")
    plain = re.sub(r"\bn\b", "<dig>", low)  # the extract writes <dig> as N
    if any(plain.startswith(h) or low.startswith(h) for h in headings):
        found.append("heading")
    if _FILE_CAPTION.search(sentence):
        found.append("file_caption")
    if _FOOTNOTE.search(sentence):
        found.append("footnote")
    if _LICENCE.search(sentence):
        found.append("licence")
    if _URL.search(sentence):
        found.append("url")
    if _LEGEND_TITLE.match(low):
        found.append("legend")
    if _BACK_MATTER.search(sentence):
        found.append("back_matter")
    if words(sentence) < 4:
        found.append("short")
    return found


def document_sentences(text: str) -> list[str]:
    """Every sentence of ``text`` as :func:`c2fsum.pipeline.extract` renders it (all of them chosen)."""
    from c2fsum.pipeline import extract

    big = extract(text, method="lead", words=10**9)[0]
    return big.text.split("\n")


def _checked(args: argparse.Namespace):
    """(paper id, heading lines, [(index, sentence, previous sentence)]) per paper: extracted now,
    or read back from a ``--dump`` file."""
    if args.rescore:
        rows: dict[str, tuple[list[str], list]] = {}
        with open(args.rescore, encoding="utf-8") as f:
            for line in f:
                paper_id, headings, j, sentence, previous = json.loads(line)
                rows.setdefault(paper_id, (headings, []))[1].append((j, sentence, previous))
        articles = {}
        with gzip.open(DATA / "pubmed" / f"{args.split}.jsonl.gz", "rt", encoding="utf-8") as f:
            for line in f:
                d = json.loads(line)
                if d["id"] in rows:
                    articles[d["id"]] = d["article"]
        for paper_id, (_, checked) in rows.items():  # headings found again: the checker may have changed
            yield paper_id, heading_lines(articles[paper_id]), checked
        return
    from c2fsum.pipeline import extract

    for paper in papers(args.split, args.start, args.n):
        text = paper["article"]
        every = document_sentences(text)
        if args.units:
            chosen = list(range(len(every)))
        else:
            chosen = extract(text, method="ilp", words=args.words)[0].sentences
        yield paper["id"], heading_lines(text), [(j, every[j], every[j - 1] if j > 0 else None) for j in chosen]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", default="val")
    parser.add_argument("--start", type=int, default=0, help="first paper (0: the papers the fix looked at)")
    parser.add_argument("-n", type=int, default=100, help="papers")
    parser.add_argument("--words", type=int, default=250, help="extract budget")
    parser.add_argument("--units", action="store_true", help="check every sentence, not the extracts")
    parser.add_argument("--examples", type=int, default=4, help="examples printed per kind")
    parser.add_argument("--json", type=Path, help="write the counts here")
    parser.add_argument("--dump", type=Path, help="write the checked sentences here (JSON lines)")
    parser.add_argument("--rescore", type=Path, help="check the sentences of a --dump file instead of extracting")
    args = parser.parse_args()

    started = time.perf_counter()
    per_kind: Counter = Counter()
    examples: dict[str, list[str]] = {}
    total = broken = 0
    dump = open(args.dump, "w", encoding="utf-8") if args.dump else None  # noqa: SIM115
    for paper_id, headings, checked in _checked(args):
        for j, sentence, previous in checked:
            if dump:
                dump.write(json.dumps([paper_id, headings, j, sentence, previous]) + "\n")
            found = kinds(sentence, previous, headings)
            total += 1
            if found:
                broken += 1
            for kind in found:
                per_kind[kind] += 1
                ex = examples.setdefault(kind, [])
                if len(ex) < args.examples:
                    ex.append(f"{paper_id}#{j}: {sentence[:150]}")
    if dump:
        dump.close()
    elapsed = time.perf_counter() - started
    what = "sentences of the papers" if args.units else f"sentences of ILP extracts ({args.words} words)"
    source = f"rescored {args.rescore}" if args.rescore else f"{args.n} {args.split} papers from #{args.start}"
    print(f"{source}: {total} {what}, {elapsed:.0f} s")
    print(f"broken: {broken} ({100 * broken / max(total, 1):.1f}%)")
    for kind, count in per_kind.most_common():
        print(f"  {kind:13s} {count:6d} ({100 * count / max(total, 1):.1f}%)")
    for kind, ex in examples.items():
        print(f"-- {kind}")
        for e in ex:
            print("   ", e)
    if args.json:
        args.json.write_text(
            json.dumps({"sentences": total, "broken": broken, "kinds": dict(per_kind)}, indent=1) + "\n"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
