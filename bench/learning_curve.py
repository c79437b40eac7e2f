#!/usr/bin/env python3
"""Validation curves of training runs: perplexity and greedy ROUGE-1 (all highlights as one
reference, ``train.val_rouge``) against training minutes, one line per run (issue 31, item 6)::

    PYTHONPATH=src .venv/bin/python bench/learning_curve.py RUN_DIR[=LABEL] ... --out curve.png

Reads each run's ``metrics.jsonl`` (validation rows) and ``last/trainer.json``. Minutes at a
validation row are the run's own, linear between the steps whose minutes are known (its
``best/`` and ``last/`` checkpoints, ``--anchor RUN_DIR=CHECKPOINT_DIR`` for more); a run started
from another (``train.init_from``) counts from its own start, and ``--offset RUN_DIR=MINUTES``
adds the minutes of the run it started from.
``--beam LABEL=MINUTES:EVAL_DIR`` (repeatable) adds a point of a checkpoint decoded as shipped
(``c2fsum evaluate`` on the same validation papers: its ``rouge1_concat``); with any, the right
panel shows those points (one line per label) instead of the noisy greedy ROUGE logged in training.
Prints one table row per validation and writes the figure (matplotlib).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def anchors(run: Path, extra: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """Known (step, minutes) points of ``run``: its start, its ``best/`` and ``last/`` checkpoints
    (``position.elapsed``) and ``extra`` (e.g. a copy of an earlier checkpoint), sorted by step."""
    points = {0: 0.0}
    for ckpt in ("best", "last"):
        f = run / ckpt / "trainer.json"
        if f.exists():
            pos = json.loads(f.read_text())["position"]
            points[pos["step"]] = pos["elapsed"] / 60
    points.update(dict(extra))
    return sorted(points.items())


def minutes_at(step: int, known: list[tuple[int, float]]) -> float:
    """Minutes at ``step``, linear between the known points around it (the pace of a run shared
    with other work changes, so one mean pace would misplace the early validations)."""
    for (s0, m0), (s1, m1) in zip(known, known[1:], strict=False):
        if s0 <= step <= s1:
            return m0 + (m1 - m0) * (step - s0) / max(s1 - s0, 1)
    s0, m0 = known[-1]
    return m0 if len(known) < 2 else m0 + (step - s0) * (m0 - known[-2][1]) / max(s0 - known[-2][0], 1)


def curve(run: Path, extra: list[tuple[int, float]] | None = None) -> list[dict]:
    """The validation rows of ``run`` with ``minutes`` added (:func:`minutes_at`)."""
    known = anchors(run, extra or [])
    rows = []
    for line in (run / "metrics.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r.get("split") == "val":
            rows.append({**r, "minutes": minutes_at(r["step"], known)})
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", help="RUN_DIR or RUN_DIR=LABEL")
    p.add_argument("--offset", action="append", default=[], help="RUN_DIR=MINUTES trained before this run started")
    p.add_argument(
        "--anchor", action="append", default=[], help="RUN_DIR=CHECKPOINT_DIR: one more known (step, minutes) point"
    )
    p.add_argument(
        "--beam",
        action="append",
        default=[],
        help="LABEL=MINUTES:EVAL_DIR: validation ROUGE-1 of a checkpoint decoded as shipped (c2fsum evaluate)",
    )
    p.add_argument("--out", required=True, help="the figure (.png)")
    a = p.parse_args()
    offsets = {Path(k).resolve(): float(v) for k, v in (o.split("=", 1) for o in a.offset)}
    extra: dict[Path, list[tuple[int, float]]] = {}
    for spec in a.anchor:
        run_dir, ckpt = spec.split("=", 1)
        pos = json.loads((Path(ckpt) / "trainer.json").read_text())["position"]
        extra.setdefault(Path(run_dir).resolve(), []).append((pos["step"], pos["elapsed"] / 60))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_ppl, ax_r1) = plt.subplots(1, 2, figsize=(10, 4))
    print("| run | step | minutes | val ppl | val ROUGE-1 (greedy, whole abstract) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for spec in a.runs:
        path, _, label = spec.partition("=")
        run = Path(path)
        rows = curve(run, extra.get(run.resolve()))
        off = offsets.get(run.resolve(), 0.0)
        label = label or run.name
        for r in rows:
            r1 = r.get("rouge1_concat")
            score = "" if r1 is None else f"{r1:.2f}"
            print(f"| {label} | {r['step']} | {r['minutes'] + off:.0f} | {r['ppl']:.1f} | {score} |")
        ax_ppl.plot([r["minutes"] + off for r in rows], [r["ppl"] for r in rows], marker="o", label=label)
        scored = [r for r in rows if "rouge1_concat" in r]
        if not a.beam:
            ax_r1.plot(
                [r["minutes"] + off for r in scored], [r["rouge1_concat"] for r in scored], marker="o", label=label
            )
    beam: dict[str, list[tuple[float, float, int]]] = {}
    for spec in a.beam:
        label, _, rest = spec.partition("=")
        minutes, _, folder = rest.partition(":")
        m = json.loads((Path(folder) / "metrics.json").read_text())
        beam.setdefault(label, []).append((float(minutes), m["rouge1_concat"], m["n_docs"]))
    if beam:
        print("\n| run | minutes | val ROUGE-1 (decoded as shipped, whole abstract) | papers |")
        print("| --- | ---: | ---: | ---: |")
    for label, points in beam.items():
        points.sort()
        for minutes, r1, n in points:
            print(f"| {label} | {minutes:.0f} | {r1:.2f} | {n} |")
        ax_r1.plot([x for x, _, _ in points], [y for _, y, _ in points], marker="o", label=label)
    ax_ppl.set(xlabel="training minutes", ylabel="validation perplexity", yscale="log")
    which = "as shipped" if beam else "greedy"
    ax_r1.set(xlabel="training minutes", ylabel=f"val. ROUGE-1 ({which})")
    for ax in (ax_ppl, ax_r1):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print(f"written {a.out}")


if __name__ == "__main__":
    main()
