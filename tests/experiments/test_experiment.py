"""`c2fsum experiment` end to end on tiny runs: the report's tables hold the metrics files' numbers,
finished work is kept on a rerun, an interrupted run resumes to the same weights, failures are reported."""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, replace
from pathlib import Path

import pytest
from safetensors.torch import load_file

import tiny
from c2fsum.cli.main import main
from c2fsum.config import load_config
from c2fsum.evaluation.significance import compare_systems
from c2fsum.experiments.runner import ExperimentSettings, preset_path, run_experiment
from c2fsum.training.trainer import Trainer

SHRINK = [
    *tiny.SHRINK,
    "decode.max_len=12",
]
PRESETS = ["model0-cpu", "model3-cpu"]


def experiment_argv(data: Path, out: Path, presets=PRESETS, steps: int = 3, whole: bool = False) -> list[str]:
    return [
        "-q",
        "experiment",
        *(["--whole-documents"] if whole else []),
        "--data",
        str(data),
        "--presets",
        ",".join(presets),
        "--out",
        str(out),
        "--epochs",
        "1",
        "--max-steps",
        str(steps),
        "--eval-limit",
        "4",
        "--set",
        *SHRINK,
    ]


@pytest.fixture(scope="module")
def exp(prepared_small, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("exp") / "exp"
    assert main(experiment_argv(prepared_small, out, whole=True)) == 0
    return out


def markdown_table(md: str, heading: str) -> list[dict]:
    """The first Markdown table after ``heading``, as dicts keyed by the header cells."""
    section = md.split(heading, 1)[1]
    lines = [x for x in section.splitlines() if x.startswith("|")]
    table = []
    for x in lines:
        if table and not x.startswith("|"):
            break
        table.append(x)
    header = [c.strip() for c in table[0].strip("|").split("|")]
    rows = []
    for line in table[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != len(header):
            break
        rows.append(dict(zip(header, cells, strict=True)))
    return rows


def fmt(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def test_results_table_holds_the_metrics_files(exp):
    md = (exp / "report.md").read_text()
    rows = markdown_table(md, "## Results (thesis Table 6.1)")
    assert [r["Model"] for r in rows] == ["FIRST", "LEAD-3", "ILP", "BERKELEY", *PRESETS]
    for r, key in zip(rows, ["first", "lead3", "ilp", "berkeley", *PRESETS], strict=True):
        m = json.loads((exp / "eval" / key / "metrics.json").read_text())
        assert m["n_docs"] == 4
        assert (r["PPL"], r["ROUGE-1"], r["ROUGE-2"], r["ROUGE-L"]) == (
            fmt(m["ppl"]),
            fmt(m["rouge1"]),
            fmt(m["rouge2"]),
            fmt(m["rougeL"]),
        ), key
    # the thesis's BERKELEY row, run by `c2fsum baseline berkeley`, not ILP standing in for it
    assert "in place of BERKELEY" not in md and "as `c2fsum baseline berkeley` runs it, with a budget of 25 " in md
    entropy = markdown_table(md, "## Coarse attention entropy (thesis Table 6.2)")
    assert [r["Model"] for r in entropy] == PRESETS
    for r in entropy:
        m = json.loads((exp / "eval" / r["Model"] / "metrics.json").read_text())
        assert (r["Entropy"], r["ln M"]) == (fmt(m["entropy"]), fmt(m["entropy_uniform"]))
        assert float(r["Entropy"]) <= float(r["ln M"]) + 1e-2
    sig = markdown_table(md, "Against FIRST (paired bootstrap")
    assert [r["System"] for r in sig] == ["LEAD-3", "ILP", "BERKELEY", *PRESETS]
    r = compare_systems(exp / "eval" / "model3-cpu", exp / "eval" / "first", samples=1000, seed=0)["rougeL"]
    assert sig[-1]["ROUGE-L diff [95% CI]"] == f"{r['diff']:+.2f} [{r['low']:+.2f}, {r['high']:+.2f}]"
    runs = markdown_table(md, "## Runs")
    for r in runs:
        finished = json.loads((exp / "runs" / r["Model"] / "finished.json").read_text())
        assert int(r["Steps"]) == finished["steps"] == 3 and r["Stopped by"] == "max_steps"


def test_models_read_the_papers_400_words_and_whole_articles_are_a_separate_labelled_table(exp, prepared_small):
    """Tables 6.1-6.2 under the thesis's protocol by default: each model reads the first 400
    words (recorded in metrics.json and stated in the report); whole articles only as another,
    labelled table."""
    words = [sum(len(s) for s in json.loads(x)["src"]) for x in (prepared_small / "test.jsonl").open()][:4]
    assert max(words) > 400  # so the cut matters on these documents
    md, html = (exp / "report.md").read_text(), (exp / "report.html").read_text()
    assert "each model reads the first 400 words of each article, the thesis's protocol" in md
    assert "each model reads the first 400 words of each article, the thesis&#39;s protocol" in html
    whole_rows = markdown_table(md, "## Whole articles (not the thesis's protocol)")
    assert [r["Model"] for r in whole_rows] == PRESETS
    for key, r in zip(PRESETS, whole_rows, strict=True):
        cut = json.loads((exp / "eval" / key / "metrics.json").read_text())
        whole = json.loads((exp / "eval-whole" / key / "metrics.json").read_text())
        assert cut["max_words"] == 400 and whole["max_words"] == 0
        assert (r["PPL"], r["ROUGE-L"]) == (fmt(whole["ppl"]), fmt(whole["rougeL"]))
        assert cut["ppl"] != whole["ppl"]  # the models read other words
        assert cut["entropy_uniform"] <= math.log(10) + 1e-9  # at most 10 chunks of 40 words
        assert cut["entropy_uniform"] < whole["entropy_uniform"]  # more chunks on the long articles
    # the Table 6.1 rows are the 400-word figures
    rows = {r["Model"]: r for r in markdown_table(md, "## Results (thesis Table 6.1)")}
    for key in PRESETS:
        assert rows[key]["PPL"] == fmt(json.loads((exp / "eval" / key / "metrics.json").read_text())["ppl"])


def test_an_experiment_from_before_the_protocol_is_not_mixed_with_it(tmp_path):
    """experiment.json without max_words was evaluated on whole articles: a rerun asking for the
    thesis's 400 words is refused (its evaluations would mix both protocols)."""
    from c2fsum.experiments.runner import ExperimentError, _check_settings

    settings = ExperimentSettings(data="d", presets=["model0-cpu"], epochs=1)
    old = {k: v for k, v in asdict(settings).items() if k not in ("max_words", "whole_documents")}
    (tmp_path / "experiment.json").write_text(json.dumps(old))
    with pytest.raises(ExperimentError, match="max_words=0, got 400"):
        _check_settings(tmp_path, settings)
    _check_settings(tmp_path, replace(settings, max_words=0))  # the old protocol, asked for: accepted


def test_report_shows_summaries_figures_configs_environment(exp):
    md, html = (exp / "report.md").read_text(), (exp / "report.html").read_text()
    first_id = json.loads((exp / "eval" / "first" / "predictions.jsonl").read_text().splitlines()[0])["id"]
    assert f"### Document {first_id}" in md and f"Document {first_id}" in html
    for key in ["first", "lead3", "ilp", "berkeley", *PRESETS]:  # every system's output on that document
        row = json.loads((exp / "eval" / key / "predictions.jsonl").read_text().splitlines()[0])
        assert row["candidate"].replace("\n", " ") in md
    for key in PRESETS:
        png = exp / "figures" / f"attention-{key}.png"
        assert png.read_bytes()[:4] == b"\x89PNG" and f"(figures/attention-{key}.png)" in md
        cfg = json.loads((exp / "runs" / key / "config.json").read_text())
        assert cfg["model"]["hidden"] == 24 and f"Resolved config of {key}" in html
    assert (exp / "figures" / "curves.png").read_bytes()[:4] == b"\x89PNG"
    assert html.count('src="data:image/png;base64,') == 1 + len(PRESETS)  # curves + one heatmap per model
    assert "<table>" in html and "| torch |" in md and "devices used for training | cpu" in md


def test_rerun_keeps_finished_work_and_rebuilds_the_report(exp, prepared_small, capsys):
    kept = [exp / "runs" / k / "last" / "model.safetensors" for k in PRESETS]
    kept += [exp / "eval" / k / "metrics.json" for k in ["first", "ilp", "berkeley", *PRESETS]]
    before = {p: p.stat().st_mtime_ns for p in kept}
    (exp / "report.md").unlink()
    assert main(experiment_argv(prepared_small, exp)) == 0
    assert {p: p.stat().st_mtime_ns for p in kept} == before
    assert (exp / "report.md").exists()
    # chosen documents
    ids = [json.loads(x)["id"] for x in (exp / "eval" / "first" / "predictions.jsonl").read_text().splitlines()]
    assert main(["-q", "experiment", "--out", str(exp), "--report-only", "--docs", ids[2]]) == 0
    md = (exp / "report.md").read_text()
    assert f"### Document {ids[2]}" in md and f"### Document {ids[0]}" not in md
    assert f"Document {ids[2]}: one row per source chunk" in md
    assert main(["-q", "experiment", "--out", str(exp), "--report-only", "--docs", "nope"]) == 2
    assert "document 'nope': not among the predictions of FIRST" in capsys.readouterr().err
    # another budget in the same directory is refused, naming the setting
    assert main(experiment_argv(prepared_small, exp, steps=5)) == 2
    assert "max_steps=3, got 5" in capsys.readouterr().err


def test_interrupted_run_resumes_to_the_uninterrupted_weights(prepared_small, tmp_path):
    def settings(steps):
        return ExperimentSettings(
            data=str(prepared_small), presets=["model0-cpu"], epochs=1, max_steps=steps, overrides=SHRINK, eval_limit=2
        )

    run_experiment(settings(4), tmp_path / "straight", progress=False, report=False)
    # an interrupted run: stopped at step 2 without finished.json
    cfg = load_config(preset_path("model0-cpu"), settings(2).budget_overrides())
    Trainer(cfg, prepared_small, tmp_path / "resumed" / "runs" / "model0-cpu", progress=False).fit()
    run_experiment(settings(4), tmp_path / "resumed", progress=False, report=False)
    finished = json.loads((tmp_path / "resumed" / "runs" / "model0-cpu" / "finished.json").read_text())
    assert finished["resumed"] is True and finished["steps"] == 4
    a = load_file(tmp_path / "straight" / "runs" / "model0-cpu" / "last" / "model.safetensors")
    b = load_file(tmp_path / "resumed" / "runs" / "model0-cpu" / "last" / "model.safetensors")
    assert a.keys() == b.keys() and all(a[k].equal(b[k]) for k in a)


def test_a_failing_preset_is_reported_and_the_others_go_on(prepared_small, tmp_path, capsys):
    bad = tmp_path / "broken.yaml"
    bad.write_text("train:\n  objective: bogus\n")
    out = tmp_path / "exp"
    assert main(experiment_argv(prepared_small, out, presets=[str(bad), "model0-cpu"], steps=2)) == 1
    printed = capsys.readouterr().out
    assert "failed: broken (train): ConfigError: " in printed and "train.objective: got 'bogus'" in printed
    md = (out / "report.md").read_text()
    assert "- broken (train): ConfigError: " in md and "train.objective: got 'bogus'" in md
    assert [r["Model"] for r in markdown_table(md, "## Results")] == [
        "FIRST",
        "LEAD-3",
        "ILP",
        "BERKELEY",
        "model0-cpu",
    ]


def test_bad_arguments_fail_before_any_work(prepared_small, tmp_path, capsys):
    out = tmp_path / "exp"
    assert main(experiment_argv(prepared_small, out, presets=["model0-cpu", "no-such-preset"])) == 2
    assert "unknown preset 'no-such-preset'" in capsys.readouterr().err and not out.exists()
    assert main(["-q", "experiment", "--data", str(prepared_small), "--presets", "model0-cpu", "--out", str(out)]) == 2
    assert "give a training budget" in capsys.readouterr().err
    assert (
        main(
            ["-q", "experiment", "--data", str(tmp_path), "--presets", "model0-cpu", "--out", str(out), "--epochs", "1"]
        )
        == 2
    )
    assert re.search(r"no vocab.txt", capsys.readouterr().err)


def test_orderings_mark_ties_at_the_tables_precision():
    from c2fsum.reports.experiment import orderings

    rows = [
        {"model": "A", "rouge1": 10.0, "rouge2": 0.0, "rougeL": 5.001},
        {"model": "B", "rouge1": 12.0, "rouge2": 0.0, "rougeL": 4.999, "entropy": 1.5},
        {"model": "C", "rouge1": 11.0, "rouge2": 1.0, "rougeL": 1.0, "entropy": 0.5},
    ]
    assert orderings(rows) == {
        "ROUGE-1": "B > C > A",
        "ROUGE-2": "C > A = B",
        "ROUGE-L": "A = B > C",
        "Entropy (lowest first)": "C < B",
    }
