"""training/checkpoint.py: a resumed run cuts its JSONL log back to what its checkpoint had seen;
a line cut by a crash (not JSON) or a line that is no object is not a row."""

import json

from c2fsum.training.checkpoint import rewind_log, truncate_log

ROWS = [{"step": 1, "loss": 2.5}, {"step": 2, "note": "é"}, {"step": 2, "val_ppl": 9.0}, {"step": 3}]


def write_log(path) -> None:
    lines = [json.dumps(r) for r in ROWS[:2]] + ['{"step": 2, "lo', "[1, 2]"] + [json.dumps(r) for r in ROWS[2:]]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def rows(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_truncate_keeps_the_first_rows_and_skips_what_is_no_row(tmp_path):
    log = tmp_path / "metrics.jsonl"
    write_log(log)
    truncate_log(log, 3)
    assert rows(log) == ROWS[:3]  # the cut line and the list are not rows
    truncate_log(tmp_path / "absent.jsonl", 3)  # no log: nothing to do
    assert not (tmp_path / "absent.jsonl").exists()


def test_rewind_keeps_the_rows_up_to_a_step_and_counts_them(tmp_path):
    log = tmp_path / "metrics.jsonl"
    write_log(log)
    assert rewind_log(log, 2) == 3
    assert rows(log) == ROWS[:3]
    assert "é" in log.read_text(encoding="utf-8")  # written as the run appends them (not escaped)
    assert rewind_log(log, 0) == 0 and log.read_text(encoding="utf-8") == ""
    assert rewind_log(tmp_path / "absent.jsonl", 2) == 0
