"""scripts/compare.sh evaluates under the thesis's protocol (the first 400 words) unless told."""

import os
import stat
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "compare.sh"


def run_with_fake_c2fsum(tmp_path: Path, env_extra: dict) -> list[str]:
    """Run compare.sh with BIN pointing at a stand-in ``c2fsum`` that logs its arguments."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.txt"
    fake = bin_dir / "c2fsum"
    fake.write_text(f'#!/usr/bin/env bash\necho "$*" >> "{log}"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    env = {**os.environ, "BIN": str(bin_dir), **env_extra}
    out = subprocess.run(
        ["bash", str(SCRIPT), "DATA", str(tmp_path / "out"), "model0-cpu"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=SCRIPT.parents[1],
    )
    return [*log.read_text().splitlines(), out.stdout]


@pytest.mark.parametrize("env,want", [({}, "--max-words 400"), ({"MAX_WORDS": "0"}, "--max-words 0")])
def test_compare_script_passes_the_input_length_to_evaluate(env, want, tmp_path):
    calls = run_with_fake_c2fsum(tmp_path, env)
    evaluate = [c for c in calls if " evaluate " in f" {c} "]
    assert len(evaluate) == 1 and want in evaluate[0]
    assert ("whole articles" in calls[-1]) is (want == "--max-words 0")
