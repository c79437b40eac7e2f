"""Byte-identical check for refactors: decode 10 PubMed val papers with ``pubmed-model3`` and
``pubmed-model0``, 10 CNN/DailyMail val stories with ``cnndm-small`` (shipped defaults), and 3
papers with MODEL 3 reading 2 chunks per step within a 0.5 budget; write every summary's text,
tokens, score and an md5 of its attention and chunk attention to a JSON file. Run it before and
after a change and ``cmp`` the two files (a benchmark, not a test: it reads ../shared/data).

    OMP_NUM_THREADS=1 .venv/bin/python bench/golden_summaries.py /tmp/before.json
"""

import gzip
import hashlib
import json
import sys
import time
from pathlib import Path

import torch

from c2fsum.pipeline import load

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def articles(path: Path, n: int = 10) -> list[str]:
    with gzip.open(path, "rt") as f:
        return [json.loads(next(f))["article"] for _ in range(n)]


def md5(t: torch.Tensor | None) -> str | None:
    return None if t is None else hashlib.md5(t.detach().float().contiguous().numpy().tobytes()).hexdigest()


def main(out: str) -> None:
    torch.set_num_threads(1)
    pub, cnn = articles(DATA / "pubmed" / "val.jsonl.gz"), articles(DATA / "cnndm" / "val.jsonl.gz")
    runs = [
        ("cnndm-small", cnn, {}),
        ("pubmed-model0", pub, {}),
        ("pubmed-model3", pub, {}),
        ("pubmed-model3", pub[:3], {"read_chunks": 2, "read_budget": 0.5}),
    ]
    res = {}
    for name, texts, extra in runs:
        t = time.time()
        summaries = load(name).summarize(texts, **extra)
        key = name + (json.dumps(extra) if extra else "")
        res[key] = [
            {
                "text": s.text,
                "tokens": s.tokens,
                "score": repr(s.score),
                "coarse": md5(s.coarse),
                "attn": md5(s.attention),
                "ff": repr(s.fine_fraction),
            }
            for s in summaries
        ]
        print(key, f"{time.time() - t:.1f}s", flush=True)
    Path(out).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
