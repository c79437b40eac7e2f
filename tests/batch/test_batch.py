"""``c2fsum batch`` on real news articles with the shipped ``cnndm-small``: the summaries ``c2fsum
summarize`` prints, in the input's order, bad records in ``errors.jsonl``, the same files from the
local engine and from Ray Data (a local cluster of 2 CPUs started here, 2 workers), and a run
killed mid-way (driver or worker, SIGKILL) finished by the same command with the same files.

Output rows are compared whole except ``seconds`` (a time).
"""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from c2fsum.batch.engines import worker_cpus
from c2fsum.batch.run import run_batch
from c2fsum.batch.store import read_shard_file
from c2fsum.cli.main import main
from shared_data import DATA, read_raw

pytestmark = pytest.mark.real_data()

MODEL = "cnndm-small"
N_A, N_B = 8, 4
"""Articles of the two shards of :func:`corpus`."""
C2FSUM = [sys.executable, "-m", "c2fsum"]
Completed = subprocess.CompletedProcess


def _env() -> dict[str, str]:
    """This process's environment (with the Ray fixture's RAY_AUTH_MODE: its token lets a driver
    join), one thread per process."""
    return {**os.environ, "OMP_NUM_THREADS": "1"}


def _rows(out: Path) -> dict[str, list[dict]]:
    """Every output file of a batch folder (shards and errors.jsonl), rows without ``seconds``."""
    files = sorted(p for p in out.iterdir() if p.suffix in (".jsonl", ".parquet"))
    return {p.name: [{k: v for k, v in r.items() if k != "seconds"} for r in read_shard_file(p)] for p in files}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """Two shards of real CNN/DM test articles: ``a.jsonl`` with ids, ``b.jsonl.gz``... as plain
    JSONL without ids (their line numbers then), articles in an order unlike their lengths."""
    import gzip

    folder = tmp_path_factory.mktemp("corpus")
    docs = read_raw("test", N_A + N_B, real=True)
    with open(folder / "a.jsonl", "w", encoding="utf-8") as f:
        for d in docs[:N_A]:
            f.write(json.dumps({"id": d["id"], "article": d["article"]}) + "\n")
    with gzip.open(folder / "b.jsonl.gz", "wt", encoding="utf-8") as f:
        for d in docs[N_A:]:
            f.write(json.dumps({"article": d["article"]}) + "\n")
    return folder


@pytest.fixture(scope="module")
def reference(corpus, tmp_path_factory) -> Path:
    """An uninterrupted run of the local engine (2 workers, batches of 3)."""
    out = tmp_path_factory.mktemp("reference") / "out"
    report = run_batch(MODEL, [corpus], out, workers=2, batch_size=3)
    assert (report.summarized, report.errors, report.resumed) == (N_A + N_B, 0, 0)
    assert len(report.workers) == 2
    return out


@pytest.fixture(scope="module")
def ray_address():
    """A local Ray cluster of 2 CPUs without a dashboard, for this module; its address."""
    ray = pytest.importorskip("ray")
    mode = os.environ.get("RAY_AUTH_MODE")  # ray.init sets it (token): the drivers started here inherit it
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()
        if mode is None:
            os.environ.pop("RAY_AUTH_MODE", None)
        else:
            os.environ["RAY_AUTH_MODE"] = mode


def test_each_row_is_what_summarize_prints_in_the_inputs_order(corpus, reference, tmp_path, capsys):
    rows = _rows(reference)
    assert list(rows) == ["00000-a.jsonl", "00001-b.jsonl", "errors.jsonl"]
    docs = read_raw("test", N_A + N_B, real=True)
    assert [r["id"] for r in rows["00000-a.jsonl"]] == [d["id"] for d in docs[:N_A]]
    assert [r["id"] for r in rows["00001-b.jsonl"]] == [str(i) for i in range(1, N_B + 1)]  # line numbers
    assert rows["errors.jsonl"] == []
    paths = []
    for i, d in enumerate(docs):
        paths.append(tmp_path / f"{i}.txt")
        paths[-1].write_text(d["article"], encoding="utf-8")
    capsys.readouterr()
    assert main(["-q", "summarize", "--model", MODEL, *map(str, paths)]) == 0
    printed = capsys.readouterr().out
    got = [r["summary"] for r in rows["00000-a.jsonl"] + rows["00001-b.jsonl"]]
    pairs = enumerate(zip(paths, got, strict=True))
    expected = "".join(("" if i == 0 else "\n") + f"==> {p} <==\n{s}\n" for i, (p, s) in pairs)
    assert printed == expected
    manifest = json.loads((reference / "batch.json").read_text())["manifest"]
    assert len(manifest) == 64
    assert {(r["model"], r["manifest"], r["sentences"]) for r in rows["00000-a.jsonl"]} == {(MODEL, manifest, None)}


def test_bad_records_go_to_errors_and_the_run_goes_on(tmp_path, caplog, monkeypatch):
    """Not UTF-8, bad JSON, no article, an article not a string, an empty one, in JSONL and CSV;
    a Parquet file without an article column. Parquet output; the watchdog speaks while the
    workers load the model."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    import c2fsum.batch.run as run

    docs = read_raw("test", 3, real=True)
    good = [d["article"] for d in docs]
    jsonl = tmp_path / "in" / "j.jsonl"
    jsonl.parent.mkdir()
    lines = [
        json.dumps({"id": "g1", "article": good[0]}).encode(),
        b'{"id": "u", "article": "caf\xe9 au lait"}',
        b"{not json",
        json.dumps({"id": "no-article", "text": good[1]}).encode(),
        json.dumps({"id": "number", "article": 7}).encode(),
        json.dumps({"id": "blank", "article": " \u200b "}).encode(),
        json.dumps({"article": good[1]}).encode(),
    ]
    jsonl.write_bytes(b"\n".join(lines) + b"\n")
    with open(tmp_path / "in" / "k.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "article"])
        w.writerows([["c1", good[2]], ["c2", ""], ["c3", "two", "fields too many"]])
    pq.write_table(pa.table({"id": ["p1"], "text": [good[0]]}), tmp_path / "in" / "m.parquet")
    monkeypatch.setattr(run, "PATIENCE", 0.5)
    report = run_batch(MODEL, [tmp_path / "in"], tmp_path / "out", workers=1, batch_size=2, fmt="parquet")
    assert any("no paper finished in the last" in r.message for r in caplog.records)
    rows = _rows(tmp_path / "out")
    assert [r["id"] for r in rows["00000-j.parquet"]] == ["g1", "7"]  # no id: its line
    assert [r["id"] for r in rows["00001-k.parquet"]] == ["c1"]
    assert rows["00002-m.parquet"] == []
    errors = [(Path(e["where"]).name, e["reason"], e["id"]) for e in rows["errors.jsonl"]]
    assert errors == [
        ("j.jsonl:2", "not_utf8", None),
        ("j.jsonl:3", "bad_json", None),
        ("j.jsonl:4", "missing_column", None),
        ("j.jsonl:5", "bad_value", None),
        ("j.jsonl:6", "empty", "blank"),
        ("k.csv:3", "empty", "c2"),
        ("k.csv:4", "bad_csv", None),
        ("m.parquet", "missing_column_files", None),
    ]
    assert all(e["detail"] for e in rows["errors.jsonl"])
    assert (report.summarized, report.errors) == (3, 8)


def test_the_same_job_only_into_its_folder(corpus, reference, tmp_path):
    from c2fsum.errors import InputError

    with pytest.raises(InputError, match=r"batch.json: written by another job \(extract"):
        run_batch(MODEL, [corpus], reference, extract=True)
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="a folder with other files"):
        run_batch(MODEL, [corpus], tmp_path)
    again = run_batch(MODEL, [corpus], reference)  # finished: nothing to do, nothing changes
    assert (again.summarized, again.skipped_shards, again.workers) == (0, 2, set())


def test_without_ray_one_line_names_the_extra(corpus, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    argv = ["batch", "--model", MODEL, "--input", str(corpus), "--output", str(tmp_path / "o"), "--engine", "ray"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'c2fsum[ray]'" in err[0] and err[0].startswith("c2fsum batch: error:")
    assert not (tmp_path / "o").exists()


def test_ray_client_addresses_are_refused_with_the_way_that_works(corpus, tmp_path, capsys):
    argv = ["batch", "--model", MODEL, "--input", str(corpus), "--output", str(tmp_path / "o")]
    assert main([*argv, "--engine", "ray", "--address", "ray://head:10001"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Ray Client" in err[0] and "--address auto" in err[0]
    assert not (tmp_path / "o").exists()


def _fake_ray(monkeypatch, began=None, wait_for=None, fail=None) -> list[str]:
    """``run_batch``'s Ray engine replaced by the local engine made the same way (in a thread of its
    own); it sets the event ``began``, waits for ``wait_for``, or raises ``fail``. Returns what it did."""
    import threading

    import c2fsum.batch.run as run_module
    from c2fsum.batch.engines import LocalEngine

    done: list[str] = []

    class FakeRay(LocalEngine):
        def __init__(self, workers, address):
            done.append("main" if threading.current_thread() is threading.main_thread() else "thread")
            if began is not None:
                began.set()
            if wait_for is not None:
                assert wait_for.wait(60), "the model was checked only after the engine had started"
            if fail is not None:
                raise fail
            super().__init__(workers)

        def close(self):
            done.append("closed")

    monkeypatch.setattr(run_module, "RayEngine", FakeRay)
    monkeypatch.setattr(run_module, "import_ray", lambda: None)
    return done


def test_ray_starts_while_the_driver_plans(corpus, reference, tmp_path, monkeypatch):
    """The Ray engine (ray.init: a local cluster's processes, seconds) is started in a thread of
    its own while the driver reads the inputs and checks the model, and closed at the end. Each
    waits for the other to have begun: one after the other, either would wait in vain."""
    import threading

    import c2fsum.batch.run as run_module

    began, checked = threading.Event(), threading.Event()
    done = _fake_ray(monkeypatch, began=began, wait_for=checked)
    identity = run_module.model_identity

    def model_identity(model):
        assert began.wait(60), "the engine was started only after the model was checked"
        checked.set()
        return identity(model)

    monkeypatch.setattr(run_module, "model_identity", model_identity)
    report = run_batch(MODEL, [corpus], tmp_path / "out", engine="ray", workers=2, batch_size=3)
    assert report.summarized == N_A + N_B and done == ["thread", "closed"]
    assert _rows(tmp_path / "out") == _rows(reference)


def test_a_ray_start_that_fails_or_is_not_needed(corpus, tmp_path, monkeypatch):
    """An engine that cannot start raises its error; a bad input is said as before, and the engine
    started meanwhile is closed."""
    from c2fsum.data.readers import DataError
    from c2fsum.errors import InputError

    _fake_ray(monkeypatch, fail=InputError("--address x: no Ray cluster there"))
    with pytest.raises(InputError, match="no Ray cluster"):
        run_batch(MODEL, [corpus], tmp_path / "a", engine="ray", workers=2)
    done = _fake_ray(monkeypatch)
    with pytest.raises(DataError, match="input not found"):
        run_batch(MODEL, [tmp_path / "missing.jsonl"], tmp_path / "b", engine="ray", workers=2)
    assert done == ["thread", "closed"]


@pytest.mark.parametrize(
    "nodes, workers, expected",
    [([2], 2, 0.975), ([2], 1, 1.0), ([2], 3, 0.65), ([2, 2], 4, 0.975), ([16], 4, 1.0), ([3, 1], 4, 0.983)],
)
def test_every_worker_fits_beside_the_read_stage(nodes, workers, expected):
    """Each worker's CPUs: at most 1, and all workers plus the read stage (0.05, first node) fit.
    By hand: (2 - 0.05) / 2 = 0.975; 1.95 / 3 = 0.65; [3, 1] with 4 workers: 3.95 / 4 = 0.9875
    puts 2 + 1 on the nodes, the next smaller share 2.95 / 3 = 0.9833 puts 3 + 1 (to 3 decimals)."""
    share = worker_cpus(nodes, workers)
    assert share == expected
    room = [c - (0.05 if i == 0 else 0) for i, c in enumerate(nodes)]
    assert sum(int(r / share + 1e-9) for r in room) >= workers


def test_ray_reads_and_summarizes_whole_batches_packed_as_one_row(corpus, monkeypatch):
    """Ray Data's rows: a batch of B rows each (the read stage packs them as one row, a block of
    its own), so each worker call gets one whole batch, as the local engine's calls do (blocks cut
    by bytes gave calls of B and of the 1-7 rows left). By hand: shard a has 8 articles and its
    end row, 9 rows: batches of 4, 4, 1; b's 4 and its end row: 4, 1."""
    from c2fsum.batch.engines import PACKED, PackedSummarizer, _read_batches, row_batches, unpack
    from c2fsum.batch.shards import find_shards
    from c2fsum.batch.worker import Summarizer

    shards = find_shards([corpus])
    items = {"shard": [s.index for s in shards], "path": [s.path for s in shards], "done": ["[]", "[]"]}
    read = [row for s in shards for row in _read_batches({k: [v[s.index]] for k, v in items.items()}, batch_size=4)]
    assert [list(r) for r in read] == [[PACKED]] * 5
    batches = [unpack(r[PACKED][0]) for r in read]
    assert [len(b["seq"]) for b in batches] == [4, 4, 1, 4, 1]
    assert batches == [b for s in shards for b in row_batches([(s, set())], 4)]
    assert batches[0]["article"][0].startswith(read_raw("test", 1, real=True)[0]["article"][:50])

    calls = []
    monkeypatch.setattr(Summarizer, "__call__", lambda self, b: calls.append(b) or {"seq": b["seq"]})
    worker = PackedSummarizer.__new__(PackedSummarizer)  # the model is not needed to pass batches through
    out = worker({PACKED: [r[PACKED][0] for r in read[:2]]})
    assert calls == batches[:2]
    assert [unpack(v) for v in out[PACKED]] == [{"seq": b["seq"]} for b in batches[:2]]


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:  # not Linux, or gone
        return []


def _alive(pid: int) -> bool:
    """The process runs (a zombie, ended and waiting for init to reap it, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _run(args: list[str], out: Path, *, kill_when=None, timeout: float = 240) -> Completed | list[int]:
    """``c2fsum batch`` in a process; with ``kill_when(out, proc)`` polled, SIGKILL there (the
    driver, or the pid it returns) once it holds, and the victim's child processes back."""
    cmd = [*C2FSUM, "-q", "batch", "--model", MODEL, "--output", str(out), *args]
    if kill_when is None:
        return subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=timeout)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            victim = kill_when(out, proc)
            if victim:
                children = _children(victim)
                os.kill(victim, signal.SIGKILL)
                proc.wait(timeout=60)
                return children
            time.sleep(0.05)
        raise AssertionError(f"the run ended before it was killed: {proc.communicate()}")
    finally:
        if proc.poll() is None:
            proc.kill()


def _pieces(out: Path) -> int:
    """Pieces holding a finished record: a piece of only a shard's "end" row (Ray may deliver
    that batch first) leaves nothing done before a rerun."""
    done = 0
    for piece in (out / ".batch" / "pieces").glob("*/piece-*.jsonl"):
        try:
            done += any(r["kind"] != "end" for r in read_shard_file(piece))
        except FileNotFoundError:  # its shard finished meanwhile (pieces removed)
            continue
    return done


def _driver_after_a_piece(out: Path, proc: subprocess.Popen) -> int | None:
    return proc.pid if _pieces(out) >= 1 else None


def _worker_after_a_piece(out: Path, proc: subprocess.Popen) -> int | None:
    """A pool process of the driver (not the resource tracker), once a piece is written."""
    if _pieces(out) < 1:
        return None
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
    for pid in children:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        if b"spawn_main" in cmdline and b"resource_tracker" not in cmdline:
            return int(pid)
    return None


def _resumed(result: subprocess.CompletedProcess | list[int]) -> tuple[int, int]:
    """(papers summarized, records done before) from the run's last line."""
    assert isinstance(result, subprocess.CompletedProcess), "the run was killed"
    assert result.returncode == 0, result.stderr
    line = result.stdout.strip().splitlines()[-1]
    summarized = int(line.split("c2fsum batch: ")[1].split()[0])
    before = int(line.split(", ")[-1].split(" records and")[0]) if "done before" in line else 0
    return summarized, before


@pytest.mark.parametrize("victim", ["driver", "worker"])
def test_killed_local_run_finished_by_the_same_command(corpus, reference, tmp_path, victim):
    """SIGKILL mid-run (the driver, or a worker: then the driver stops and says to rerun); the same
    command does only what is missing and the files equal an uninterrupted run's."""
    out = tmp_path / "out"
    args = ["--input", str(corpus), "--workers", "1", "--batch-size", "2"]
    if victim == "driver":
        pool = _run(args, out, kill_when=_driver_after_a_piece)
        assert isinstance(pool, list)
        deadline = time.monotonic() + 30  # each pool process sees its driver gone within 0.5 s, then exits
        while any(map(_alive, pool)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in pool if _alive(pid)], "pool processes outlived their driver"
    else:
        cmd = [*C2FSUM, "-q", "batch", "--model", MODEL, "--output", str(out), *args]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
        while proc.poll() is None and not (pid := _worker_after_a_piece(out, proc)):
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before a worker was killed"
        os.kill(pid, signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 2 and "a worker process died" in err and "run the same command again" in err
    assert not (out / "00001-b.jsonl").exists()
    summarized, before = _resumed(_run(args, out))
    assert before >= 2 and summarized + before == N_A + N_B
    assert _rows(out) == _rows(reference)
    assert not list((out / ".batch" / "pieces").glob("*/*"))


def test_ray_agrees_with_local_and_resumes_after_a_kill(corpus, reference, ray_address, tmp_path):
    """Ray Data on the fixture's 2-CPU cluster with 2 workers (the set-up that once never started
    an actor): killed mid-run, then the same command; the files equal the local engine's."""
    out = tmp_path / "out"
    args = ["--input", str(corpus), "--engine", "ray", "--address", ray_address, "--workers", "2"]
    args += ["--batch-size", "2"]
    assert isinstance(_run(args, out, kill_when=_driver_after_a_piece), list)
    result = _run(args, out)
    summarized, before = _resumed(result)
    assert before >= 2 and summarized + before == N_A + N_B
    assert _rows(out) == _rows(reference)


def test_a_run_starts_and_stops_its_own_ray(corpus, reference, tmp_path):
    """Without --address the run starts a local Ray instance, in the thread that makes the engine
    while the driver plans (that thread lives to the end: when it ended, Ray's processes died with
    it and the driver exited 1 without a word), and stops it."""
    out = tmp_path / "out"
    result = _run(["--input", str(corpus), "--engine", "ray", "--workers", "1", "--batch-size", "4"], out)
    assert _resumed(result) == (N_A + N_B, 0)
    assert _rows(out) == _rows(reference)


@pytest.mark.real_data(DATA / "pubmed" / "test.jsonl.gz")
def test_extract_rows_are_what_extract_prints(tmp_path, capsys):
    """``--extract`` with the sentence selector ``pubmed-rewrite``: each row's text and sentences
    are what ``c2fsum extract --model pubmed-rewrite`` prints for that paper (its default length)."""
    import gzip

    with gzip.open(DATA / "pubmed" / "test.jsonl.gz", "rt", encoding="utf-8") as f:
        papers = [json.loads(line) for _, line in zip(range(2), f, strict=False)]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps({"article": p["article"]}) + "\n" for p in papers))
    run_batch("pubmed-rewrite", [tmp_path / "p.jsonl"], tmp_path / "out", extract=True, workers=1)
    rows = read_shard_file(tmp_path / "out" / "00000-p.jsonl")
    for i, (p, row) in enumerate(zip(papers, rows, strict=True)):
        (tmp_path / f"{i}.txt").write_text(p["article"], encoding="utf-8")
        capsys.readouterr()
        assert main(["-q", "extract", "--model", "pubmed-rewrite", "--json", str(tmp_path / f"{i}.txt")]) == 0
        printed = json.loads(capsys.readouterr().out)
        assert (row["summary"], row["sentences"]) == (printed["text"], printed["sentences"])
        assert row["id"] == str(i + 1) and row["sentences"]


def test_a_ray_started_here_runs_its_workers_at_nice_0(tmp_path):
    """Ray runs its worker processes at nice 15 unless told; the Ray instance c2fsum starts runs
    them at nice 0, as the local engine's (with 2 workers on 2 cores, the driver and Ray's daemons
    went before them at every turn)."""
    pytest.importorskip("ray")
    code = (
        "import os\n"
        "from c2fsum.batch.engines import import_ray, init_local_ray\n"
        "ray = import_ray()\n"
        "init_local_ray(ray, num_cpus=1)\n"
        "print('nice', ray.get(ray.remote(lambda: os.nice(0)).remote()))\n"
        "ray.shutdown()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "nice 0" in done.stdout.splitlines()
