"""Issue 47's decoding steps, each measured alone: ``c2fsum evaluate`` with one step turned off.

    python bench/select_steps.py --step all      --model M --data DIR --split val --limit 100 --out DIR
    python bench/select_steps.py --step no-rules ...   # the pick rules off (no overlap cap, no pointers, ...)
    python bench/select_steps.py --step no-order ...   # the summary in pick order
    python bench/select_steps.py --step all-spans ...  # every safe span left out, whatever the rewriter wrote
    python bench/select_steps.py --step no-refers ...  # the rules, but a sentence opening on "these ..." alone
    python bench/select_steps.py --step content-overlap ...  # the overlap cap on content words only
    python bench/select_steps.py --step all --select-beam 4 [--select-norm A] ...  # a beam over the picks

then ``c2fsum compare --concat A B`` for the paired-bootstrap interval of each difference. The
other arguments are ``c2fsum evaluate``'s.
"""

from __future__ import annotations

import sys

from c2fsum.cli.main import main
from c2fsum.decoding import selection
from c2fsum.models import select_rewrite

selection_safe_version = selection.safe_version

STEPS = ("all", "no-rules", "no-order", "none", "all-spans", "no-refers", "content-overlap")


def every_safe_span(rewrite, source):
    """:func:`~c2fsum.decoding.selection.safe_version` as if the rewriter had left out every safe span."""
    return selection_safe_version([], source)


if __name__ == "__main__":
    args = sys.argv[1:]
    step = "all"
    if "--step" in args:
        k = args.index("--step")
        step = args[k + 1]
        del args[k : k + 2]
    for flag, name, kind in (("--select-beam", "SELECT_BEAM", int), ("--select-norm", "SELECT_BEAM_NORM", float)):
        if flag in args:
            k = args.index(flag)
            setattr(selection, name, kind(args[k + 1]))
            del args[k : k + 2]
    if step not in STEPS:
        raise SystemExit(f"--step: expected one of {', '.join(STEPS)}, got {step!r}")
    selection.PICK_RULES = step in ("all", "no-order", "all-spans", "no-refers", "content-overlap")
    selection.PAPER_ORDER = step in ("all", "no-rules", "all-spans", "no-refers", "content-overlap")
    select_rewrite.OVERLAP_WORDS = step != "content-overlap"
    if step == "no-refers":
        rule = selection.sentence_rule
        selection.sentence_rule = lambda words: "" if rule(words) == "refers" else rule(words)
    if step == "all-spans":
        selection.safe_version = every_safe_span
    sys.exit(main(["evaluate", *args]))
