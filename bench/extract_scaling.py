#!/usr/bin/env python3
"""How ``c2fsum extract`` (ILP, 250 words) scales with the length of its input: time and peak memory.

A benchmark, not a test. Texts of exactly 5,000, 25,000 and 100,000 whitespace-separated words
(SumPubMed validation papers concatenated, blank lines between them, or ``--source longdocs``:
the scientific papers of ``../shared/data/longdocs``) are written to files, then for each size,
in a fresh process (so the peak resident memory is its own):

    extract_s     wall time of ``c2fsum.pipeline.extract(text)`` after the imports
    extract_cpu_s its CPU time (user + system: what a loaded machine changes least)
    read_s        of which reading, tokenizing and spelling (``preprocess_document``, before it
                  ``preprocess_article`` and ``surface_forms``)
    concepts_s    of which ``build_problem``
    solve_s       of which ``solve`` (HiGHS over the candidates)
    cli_s         wall time of the whole command ``c2fsum -q extract FILE`` (start-up and imports included)
    cli_cpu_s     its CPU time
    cli_mib       its peak resident memory (``/usr/bin/time -v``'s maximum resident set size, when
                  that program exists; else ``ru_maxrss`` of the child)
    cli_torch     whether the command imported torch (it must not: issue 36)
    load          the machine's 1-minute load average when the command started (``os.getloadavg``;
                  on 2 cores at load 4 a command gets about half a core, so wall time doubles)
    peak_mib      the process's peak resident memory (``ru_maxrss``; imports included)
    imports_mib   its resident memory after the imports, before the text is read
    sentences     the text's sentences; ``candidates``: those the solver chose among

The phases are timed again one by one after ``extract`` (the same calls, the same results), so
they add up to about ``extract_s`` less the writing of the chosen sentences. Run it from a
checkout; ``PYTHONPATH`` chooses the code measured (another checkout's ``src`` for a before /
after pair)::

    OMP_NUM_THREADS=1 PYTHONPATH=src .venv/bin/python bench/extract_scaling.py --out results/extract
    OMP_NUM_THREADS=1 PYTHONPATH=/path/to/old/src .venv/bin/python bench/extract_scaling.py --out results/extract-before
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared" / "data"
SOURCES = {
    "pubmed": SHARED / "pubmed" / "val.jsonl.gz",
    "longdocs": SHARED / "longdocs" / "scisummnet_sample.jsonl.gz",
}
FIELDS = [
    "words",
    "extract_s",
    "extract_cpu_s",
    "read_s",
    "concepts_s",
    "solve_s",
    "cli_s",
    "cli_cpu_s",
    "cli_mib",
    "cli_torch",
    "load",
    "peak_mib",
    "imports_mib",
    "sentences",
    "candidates",
    "chosen",
]


def make_text(source: Path, words: int) -> str:
    """Exactly ``words`` whitespace-separated words: the source's articles in order, joined by blank lines."""
    texts, n = [], 0
    with gzip.open(source, "rt", encoding="utf-8") as f:
        for line in f:
            article = json.loads(line)["article"]
            texts.append(article)
            n += len(article.split())
            if n >= words:
                break
    if n < words:
        raise SystemExit(f"{source}: only {n} words, asked for {words}")
    pieces, count = re.split(r"(\s+)", "\n\n".join(texts)), 0
    out = []
    for piece in pieces:
        if piece and not piece.isspace():
            count += 1
            if count > words:
                break
        out.append(piece)
    return "".join(out).rstrip()


def measure(path: str, words: int) -> dict:
    """In this process (a fresh one): the imports, then one extract and its phases."""
    from c2fsum.baselines.ilp import build_problem, solve
    from c2fsum.pipeline import extract

    try:  # the reader of pipeline.extract: headings as sections, non-running text left out
        from c2fsum.data.tokenize import preprocess_document

        def read(text: str) -> list[list[str]]:
            doc = preprocess_document(text)
            doc.surface()
            return doc.sentences
    except ImportError:  # a checkout from before it
        from c2fsum.data.surface import surface_forms
        from c2fsum.data.tokenize import preprocess_article

        def read(text: str) -> list[list[str]]:
            sents = preprocess_article(text)
            surface_forms(text, sents)
            return sents

    rss = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # noqa: E731 (KiB on Linux)
    imports = rss()
    text = Path(path).read_text(encoding="utf-8")
    t, c = time.perf_counter(), time.process_time()
    (e,) = extract(text, words=250)
    row = {"words": words, "extract_s": time.perf_counter() - t, "extract_cpu_s": time.process_time() - c}
    row.update(peak_mib=rss(), imports_mib=imports)
    t = time.perf_counter()
    sents = read(text)
    row["read_s"] = time.perf_counter() - t
    t = time.perf_counter()
    problem = build_problem(sents, 250)
    row["concepts_s"] = time.perf_counter() - t
    t = time.perf_counter()
    chosen = solve(problem)
    row["solve_s"] = time.perf_counter() - t
    try:
        from c2fsum.baselines.ilp import candidates

        row["candidates"] = len(candidates(problem))
    except ImportError:  # a checkout from before the pruning
        row["candidates"] = len(sents)
    row["sentences"], row["chosen"] = len(sents), len(chosen)
    assert chosen == e.sentences or not chosen, (chosen, e.sentences)
    return row


TIME_V = "/usr/bin/time"
WHOLE_COMMAND = (
    "import sys, runpy\n"
    "sys.argv = ['c2fsum', '-q', 'extract', sys.argv[1]]\n"
    "try:\n"
    "    runpy.run_module('c2fsum', run_name='__main__')\n"
    "finally:\n"
    "    print('torch' in sys.modules, file=sys.stderr)\n"
)


def whole_command(path: Path, env: dict) -> dict:
    """``c2fsum -q extract FILE`` in a fresh process, as a user runs it: wall and CPU time, peak
    memory (``/usr/bin/time -v``), whether torch was imported, and the load it ran under."""
    timer = [TIME_V, "-v"] if os.path.exists(TIME_V) else []
    load = os.getloadavg()[0]
    t, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [*timer, sys.executable, "-c", WHOLE_COMMAND, str(path)], env=env, capture_output=True, text=True, check=True
    )
    row: dict = {"cli_s": time.perf_counter() - t, "load": load}
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    row["cli_cpu_s"] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    row["cli_mib"] = int(peak.group(1)) / 1024 if peak else after.ru_maxrss / 1024
    row["cli_torch"] = any(line.strip() == "True" for line in done.stderr.splitlines())
    return row


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=ROOT / "results" / "extract_scaling", help="results folder")
    p.add_argument("--sizes", default="5000,25000,100000", help="words per text (comma-separated)")
    p.add_argument("--source", choices=sorted(SOURCES), default="pubmed")
    p.add_argument("--no-cli", action="store_true", help="skip the whole-command timing")
    p.add_argument("--measure", nargs=2, metavar=("FILE", "WORDS"), help=argparse.SUPPRESS)  # the child process
    a = p.parse_args()
    if a.measure:
        print(json.dumps(measure(a.measure[0], int(a.measure[1]))))
        return
    a.out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    rows = []
    for words in [int(s) for s in a.sizes.split(",")]:
        path = a.out / f"text-{words}.txt"
        path.write_text(make_text(SOURCES[a.source], words), encoding="utf-8")
        child = subprocess.run(
            [sys.executable, __file__, "--measure", str(path), str(words)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        row = json.loads(child.stdout.strip().splitlines()[-1])
        if not a.no_cli:
            row.update(whole_command(path, env))
        rows.append(row)
        print(" ".join(f"{k}={row[k]:.2f}" if isinstance(row.get(k), float) else f"{k}={row.get(k)}" for k in FIELDS))
    with open(a.out / "extract_scaling.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    print(
        f"written {a.out / 'extract_scaling.csv'}; target at 100,000 words (issue 36): the whole command "
        "cli_s <= 2 and cli_mib <= 500, without torch"
    )


if __name__ == "__main__":
    main()
