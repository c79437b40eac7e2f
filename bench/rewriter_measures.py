#!/usr/bin/env python3
"""How a rewriter rewrites, on a `c2fsum pairs` split (issue 37)::

    PYTHONPATH=src .venv/bin/python bench/rewriter_measures.py EVAL_DIR|predictions.jsonl [...] \\
        --data PAIRS_DIR --split val [--examples 10] [--seed 0]

Each input is an ``evaluate`` (or ``baseline first``: the copy baseline) output folder on the pairs
of ``--split``. One row per input: the share of outputs that are verbatim copies of their source
sentence, that are one contiguous run of it, that are rewritten (neither), and the compression
(output tokens / source tokens; :mod:`c2fsum.metrics.rewriting`). ROUGE and its paired bootstrap
against the copy baseline: ``c2fsum compare EVAL_DIR COPY_DIR``. ``--examples N`` prints N pairs
drawn at random, source, target and each system's output, to read.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from c2fsum.data.prepare import read_prepared
from c2fsum.metrics.rewriting import rewrite_measures


def read_predictions(path: Path) -> dict[str, str]:
    if path.is_dir():
        path = path / "predictions.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {str(r["id"]): r["candidate"] for r in rows}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("predictions", nargs="+", type=Path, help="evaluate/baseline folders or predictions.jsonl files")
    p.add_argument("--data", required=True, help="the `c2fsum pairs` folder")
    p.add_argument("--split", default="val", help="the split (val)")
    p.add_argument("--examples", type=int, default=0, help="pairs to print beside each system's output (0)")
    p.add_argument("--seed", type=int, default=0, help="which pairs --examples draws (0)")
    a = p.parse_args()
    systems = {str(path): read_predictions(path) for path in a.predictions}
    ids = set.intersection(*(set(s) for s in systems.values()))
    pairs = {r["id"]: r for r in read_prepared(Path(a.data) / f"{a.split}.jsonl") if r["id"] in ids}
    print(f"{len(pairs)} pairs of {a.data} {a.split} that every input holds")
    print(
        f"{'system':<48} {'verbatim %':>10} {'span %':>7} {'rewritten %':>11} {'compr. mean':>11} {'compr. total':>12}"
    )
    for name, preds in systems.items():
        m = rewrite_measures((pairs[i]["src"][0], preds[i].split()) for i in sorted(pairs))
        print(
            f"{name[-48:]:<48} {m.verbatim:>10.1f} {m.span:>7.1f} {m.rewritten:>11.1f}"
            f" {m.compression_mean:>11.3f} {m.compression_total:>12.3f}"
        )
    for i in random.Random(a.seed).sample(sorted(pairs), min(a.examples, len(pairs))):
        r = pairs[i]
        print(f"\n=== {i} (recall {r.get('pair', {}).get('recall')})")
        print("SOURCE:", " ".join(t for t in r["src"][0] if t != "</s>"))
        print("TARGET:", " ".join(r["tgt"]))
        for name, preds in systems.items():
            print(f"{Path(name).name.upper()}:", preds[i])


if __name__ == "__main__":
    main()
