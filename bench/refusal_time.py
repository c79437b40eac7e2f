"""How long ``c2fsum`` takes to refuse bad input (issue 39): wall time of whole ``c2fsum`` processes
that must fail with exit status 2 and one error line, the median of ``--repeat`` runs each.

    .venv/bin/python bench/refusal_time.py [--repeat 5] [--c2fsum .venv/bin/c2fsum]

Cases: an empty file, a directory, a file that is not UTF-8, a missing file, an unknown model name
and an unknown model with a good file (``summarize``), and an empty file for ``extract``. Prints
one ``case: seconds  error line`` line per case and the slowest; the target is under 0.5 s each (the
input and the model name are checked before torch is imported: ``c2fsum/cli/inputs.py``). Not a
test: timings depend on the machine and its load (run it with ``OMP_NUM_THREADS=1`` on a quiet one).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cases(d: Path) -> dict[str, list[str]]:
    (d / "empty.txt").write_bytes(b"")
    (d / "blank.txt").write_bytes(b"  \n\n \t\n")
    (d / "latin1.txt").write_bytes("Caf\u00e9 au lait, na\u00efve r\u00e9sum\u00e9.".encode("latin-1"))
    (d / "good.txt").write_text("The bridge will close for repairs. It reopens in May.", encoding="utf-8")
    (d / "folder").mkdir()
    good, model = str(d / "good.txt"), "pubmed-model3"
    return {
        "empty file": ["summarize", "--model", model, str(d / "empty.txt")],
        "blank file": ["summarize", "--model", model, str(d / "blank.txt")],
        "directory": ["summarize", "--model", model, str(d / "folder")],
        "not UTF-8": ["summarize", "--model", model, str(d / "latin1.txt")],
        "missing file": ["summarize", "--model", model, str(d / "nothing.txt")],
        "unknown model": ["summarize", "--model", "pubmed-model9", good],
        "empty file, extract": ["extract", str(d / "empty.txt")],
        "empty file, --lines": ["summarize", "--lines", "--model", model, str(d / "empty.txt")],
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--c2fsum", default=str(Path(sys.executable).with_name("c2fsum")))
    a = p.parse_args()
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in cases(Path(tmp)).items():
            times, err = [], ""
            for _ in range(a.repeat):
                t0 = time.perf_counter()
                r = subprocess.run([a.c2fsum, *args], capture_output=True, text=True)
                times.append(time.perf_counter() - t0)
                err = r.stderr.strip().replace(tmp, "TMP")
                if r.returncode != 2:
                    print(f"{name}: exit status {r.returncode}, expected 2: {err}", file=sys.stderr)
                    return 1
            t = statistics.median(times)
            worst = max(worst, t)
            print(f"{name}: {t:.2f} s  {err}")
    print(f"slowest: {worst:.2f} s (target < 0.5 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
