#!/usr/bin/env python3
"""The tables `make demo` prints, from the metrics.json and predictions.jsonl of evaluation folders.

    python scripts/demo_table.py [--concat] LABEL=EVAL_DIR ...

One row per system: words read per document (models), summary length in tokens, ROUGE-1/2/L x100
(``--concat``: the whole reference, every highlight sentence, as one; else the best-matching
highlight, the thesis's protocol), the model's decoding seconds per document, and the share of
the document encoded at the word level. No perplexity: across these systems it compares nothing
(MODEL 3's is that of one chunk per step, the baselines have none).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def row(label: str, eval_dir: Path, concat: bool) -> list[str]:
    m = json.loads((eval_dir / "metrics.json").read_text(encoding="utf-8"))
    preds = [json.loads(line) for line in (eval_dir / "predictions.jsonl").open(encoding="utf-8")]
    tokens = sum(len(p["candidate"].split()) for p in preds) / max(len(preds), 1)
    suffix = "_concat" if concat else ""
    model = "seconds_per_doc" in m

    def num(key: str, fmt: str) -> str:
        return fmt.format(m[key]) if model and m.get(key) is not None else "-"

    return [
        label,
        num("words_read", "{:,.0f}"),
        f"{tokens:.0f}",
        *(f"{m['rouge' + k + suffix]:.2f}" for k in ("1", "2", "L")),
        num("seconds_per_doc", "{:.2f}"),
        num("fine_fraction", "{:.0%}"),
        str(m["n_docs"]),
    ]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("systems", nargs="+", metavar="LABEL=EVAL_DIR")
    p.add_argument("--concat", action="store_true", help="the whole reference as one (PubMed's abstracts)")
    a = p.parse_args()
    head = ["system", "words read", "tokens", "R-1", "R-2", "R-L", "s / doc", "read at word level", "docs"]
    rows = [row(*_split(s), a.concat) for s in a.systems]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for i, r in enumerate([head, ["-" * w for w in widths], *rows]):
        cells = [c.ljust(w) if j == 0 else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths, strict=True))]
        print("  ".join(cells) if i != 1 else "  ".join(r))


def _split(spec: str) -> tuple[str, Path]:
    label, _, path = spec.partition("=")
    return label, Path(path)


if __name__ == "__main__":
    main()
