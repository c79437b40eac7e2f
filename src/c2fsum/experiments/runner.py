"""``c2fsum experiment``: every preset under the same budget, evaluated like the baselines.

Layout of an experiment directory (``EXP_DIR``)::

    experiment.json            the settings (data, presets, budget, overrides); a rerun must agree
    runs/PRESET/               a training run (config.json, metrics.jsonl, best/, last/)
    runs/PRESET/finished.json  written once training is over: the trainer's summary and wall time
    eval/PRESET/               predictions.jsonl, metrics.json (+ timing.json) on the test split, each
                               article cut to its first ``max_words`` words (400: the thesis's protocol)
    eval-whole/PRESET/         with ``whole_documents``: the same on whole articles (another setting)
    eval/first, eval/lead3, eval/ilp, eval/berkeley   the baselines on the same documents
    report.md, report.html, figures/   built by :mod:`c2fsum.reports.experiment`

Resuming: a run with ``finished.json`` is kept and skipped; a run with a ``last/`` checkpoint but
no ``finished.json`` was interrupted and continues with ``--resume`` semantics (its time budget
counts the minutes it already spent); an evaluation with ``metrics.json`` is kept. A preset that
fails (bad config, training error) is reported with its reason and the others go on.
"""

from __future__ import annotations

import json
import logging
import time
import traceback
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from c2fsum.config import PAPER_MAX_WORDS, load_config
from c2fsum.errors import UserError
from c2fsum.evaluation.baselines import run_baseline
from c2fsum.evaluation.evaluate import evaluate
from c2fsum.training.trainer import Trainer
from c2fsum.utils.io import existing_checkpoint_dir, write_json

log = logging.getLogger(__name__)

BASELINE_NAMES = ("first", "lead3", "ilp", "berkeley")
"""Baselines evaluated in every experiment: the thesis's Table 6.1 rows besides the models
(BERKELEY with its shipped CNN/DM weights)."""

PACKAGE_CONFIGS = Path(__file__).resolve().parents[3] / "configs"
SAVED_DEFAULTS = {"max_words": 0}
"""Settings absent from an ``experiment.json`` written before they existed: what it did then
(evaluation read whole articles)."""


class ExperimentError(UserError, ValueError):
    """Bad experiment arguments, or a rerun that disagrees with ``experiment.json``."""


@dataclass
class ExperimentSettings:
    """What defines an experiment; saved as ``experiment.json`` and checked on every rerun.

    ``budget_minutes`` (training wall time per preset) and ``epochs`` are the two budgets of the
    issue; ``max_steps`` is for tests. ``eval_limit`` 0 evaluates the whole split.

    ``max_words``: the models read the first ``max_words`` words of each test article (default
    400, the thesis's protocol for Tables 6.1-6.2: the 10x40 grid they were trained on; 0: whole
    articles). ``whole_documents``: also evaluate every model on whole articles, into
    ``eval-whole/`` (a separate table of the report, labelled as not the thesis's protocol).
    """

    data: str
    presets: list[str]
    budget_minutes: float = 0.0
    epochs: int = 0
    max_steps: int = 0
    overrides: list[str] = field(default_factory=list)
    threads: int = 1
    split: str = "test"
    eval_limit: int = 0
    beam: int | None = None
    device: str = "cpu"
    seed: int | None = None
    max_words: int = PAPER_MAX_WORDS
    whole_documents: bool = False

    def budget_overrides(self) -> list[str]:
        out = [f"train.threads={self.threads}", f"train.device={self.device}"]
        if self.budget_minutes:
            out.append(f"train.max_minutes={self.budget_minutes}")
        if self.epochs:
            out.append(f"train.epochs={self.epochs}")
        if self.max_steps:
            out.append(f"train.max_steps={self.max_steps}")
        if self.seed is not None:
            out.append(f"train.seed={self.seed}")
        return out + list(self.overrides)


def preset_path(preset: str, search: list[Path] | None = None) -> Path:
    """The config file of ``preset``: a path to a file, or ``NAME`` found as ``configs/NAME.yaml``
    (current directory first, then the source tree's ``configs/``)."""
    p = Path(preset)
    if p.suffix in (".yaml", ".yml", ".toml", ".json"):
        if not p.is_file():
            raise ExperimentError(f"--presets: {preset}: no such config file")
        return p
    dirs = search if search is not None else [Path.cwd() / "configs", PACKAGE_CONFIGS]
    for d in dirs:
        for suffix in (".yaml", ".yml", ".toml"):
            cand = d / f"{preset}{suffix}"
            if cand.is_file():
                return cand
    raise ExperimentError(
        f"--presets: unknown preset {preset!r} (looked for {preset}.yaml in {', '.join(str(d) for d in dirs)})"
    )


def preset_name(preset: str) -> str:
    """The directory name of a preset (``configs/model0-cpu.yaml`` -> ``model0-cpu``)."""
    p = Path(preset)
    return p.stem if p.suffix else preset


def _check_settings(exp_dir: Path, settings: ExperimentSettings) -> None:
    """Write ``experiment.json``, or check that a rerun asks for the same budget and data."""
    path = exp_dir / "experiment.json"
    mine = asdict(settings)
    if path.exists():
        saved = json.loads(path.read_text(encoding="utf-8"))
        for key in (
            "data",
            "budget_minutes",
            "epochs",
            "max_steps",
            "overrides",
            "split",
            "eval_limit",
            "beam",
            "seed",
            "max_words",
        ):
            was = saved.get(key, SAVED_DEFAULTS.get(key))
            if was != mine[key]:
                raise ExperimentError(
                    f"{path}: this experiment was run with {key}={was!r}, got "
                    f"{mine[key]!r}; use the same settings to resume or another --out"
                )
        # presets may be added to an experiment; keep the union in order; likewise the whole-document setting
        mine["presets"] = list(dict.fromkeys([*saved.get("presets", []), *settings.presets]))
        mine["whole_documents"] = bool(saved.get("whole_documents")) or settings.whole_documents
    write_json(path, mine)


def _log_failure(exp_dir: Path, name: str, stage: str, err: BaseException) -> dict:
    first_line = str(err).splitlines()[0] if str(err) else ""
    row = {"preset": name, "stage": stage, "error": f"{type(err).__name__}: {first_line}"}
    log.error("%s: %s failed: %s", name, stage, row["error"])
    log.debug("%s", traceback.format_exc())
    failures = exp_dir / "failures.json"
    old = json.loads(failures.read_text(encoding="utf-8")) if failures.exists() else []
    old = [r for r in old if not (r["preset"] == name and r["stage"] == stage)]
    write_json(failures, [*old, row])
    return row


def _clear_failure(exp_dir: Path, name: str) -> None:
    failures = exp_dir / "failures.json"
    if failures.exists():
        old = json.loads(failures.read_text(encoding="utf-8"))
        write_json(failures, [r for r in old if r["preset"] != name])


def train_preset(settings: ExperimentSettings, preset: str, run_dir: Path, *, progress: bool = True) -> dict:
    """Train one preset into ``run_dir`` (or resume it); returns ``finished.json``'s content."""
    finished = run_dir / "finished.json"
    if finished.exists():
        log.info("%s: training already finished, kept", run_dir)
        return json.loads(finished.read_text(encoding="utf-8"))
    cfg = load_config(preset_path(preset), settings.budget_overrides())
    resume = existing_checkpoint_dir(run_dir / "last") is not None
    log.info("%s: %s training (%s)", preset, "resuming" if resume else "starting", run_dir)
    t0 = time.monotonic()
    summary = Trainer(cfg, settings.data, run_dir, resume=resume, progress=progress).fit()
    summary.update(preset=preset, resumed=resume, wall_s_last_session=round(time.monotonic() - t0, 1))
    write_json(finished, summary)
    return summary


def evaluate_preset(
    settings: ExperimentSettings,
    run_dir: Path,
    eval_dir: Path,
    *,
    progress: bool = True,
    max_words: int | None = None,
) -> dict:
    """Evaluate a finished run on the experiment's split (kept if ``metrics.json`` exists), each
    article cut to ``max_words`` words (default: ``settings.max_words``; 0: whole articles)."""
    metrics_path = eval_dir / "metrics.json"
    if metrics_path.exists():
        return json.loads(metrics_path.read_text(encoding="utf-8"))
    t0 = time.monotonic()
    metrics = evaluate(
        run_dir,
        settings.data,
        settings.split,
        eval_dir,
        beam=settings.beam,
        limit=settings.eval_limit,
        device=settings.device,
        progress=progress,
        max_words=settings.max_words if max_words is None else max_words,
    )
    write_json(eval_dir / "timing.json", {"eval_s": round(time.monotonic() - t0, 1)})
    return metrics


def run_baselines(settings: ExperimentSettings, exp_dir: Path) -> dict[str, dict]:
    """FIRST, LEAD-3, ILP and BERKELEY on the experiment's split (each kept once written)."""
    out = {}
    for name in BASELINE_NAMES:
        d = exp_dir / "eval" / name
        if (d / "metrics.json").exists():
            out[name] = json.loads((d / "metrics.json").read_text(encoding="utf-8"))
            continue
        t0 = time.monotonic()
        try:
            out[name] = run_baseline(name, settings.data, settings.split, d, limit=settings.eval_limit)
        except (ValueError, FileNotFoundError, RuntimeError) as e:
            _log_failure(exp_dir, name, "baseline", e)
            continue
        write_json(d / "timing.json", {"eval_s": round(time.monotonic() - t0, 1)})
    return out


def run_experiment(
    settings: ExperimentSettings,
    exp_dir: str | Path,
    *,
    progress: bool = True,
    report: bool = True,
    doc_ids: list[str] | None = None,
) -> dict:
    """Train and evaluate every preset, run the baselines, then build the report.

    Returns ``{"runs": {preset: metrics}, "baselines": {...}, "failures": [...], "report": path}``.
    """
    exp_dir = Path(exp_dir)
    if not settings.presets:
        raise ExperimentError("--presets: give at least one preset")
    if settings.budget_minutes <= 0 and settings.epochs <= 0 and settings.max_steps <= 0:
        raise ExperimentError("give a training budget: --budget-minutes N or --epochs N")
    if settings.max_words < 0:
        raise ExperimentError(f"--max-words: expected >= 0 (0: whole articles), got {settings.max_words}")
    data = Path(settings.data).resolve()
    settings = replace(settings, data=str(data))  # the same directory however a rerun spells it
    for f in ("vocab.txt", "train.jsonl", "val.jsonl", f"{settings.split}.jsonl"):
        if not (data / f).is_file():
            raise FileNotFoundError(f"--data {data}: no {f} (run `c2fsum prepare` first)")
    names = [preset_name(p) for p in settings.presets]
    if len(set(names)) != len(names):
        raise ExperimentError(f"--presets: a preset is named twice: {','.join(names)}")
    for p in settings.presets:  # fail early on a typo, before hours of training
        preset_path(p)
    exp_dir.mkdir(parents=True, exist_ok=True)
    _check_settings(exp_dir, settings)
    saved_whole = bool(json.loads((exp_dir / "experiment.json").read_text(encoding="utf-8")).get("whole_documents"))
    failures = []
    baselines = run_baselines(settings, exp_dir)
    runs = {}
    for preset, name in zip(settings.presets, names, strict=True):
        run_dir, eval_dir = exp_dir / "runs" / name, exp_dir / "eval" / name
        try:
            train_preset(settings, preset, run_dir, progress=progress)
        except (ValueError, FileNotFoundError, RuntimeError) as e:
            failures.append(_log_failure(exp_dir, name, "train", e))
            continue
        try:
            runs[name] = evaluate_preset(settings, run_dir, eval_dir, progress=progress)
            if settings.whole_documents or saved_whole:
                evaluate_preset(settings, run_dir, exp_dir / "eval-whole" / name, progress=progress, max_words=0)
        except (ValueError, FileNotFoundError, RuntimeError) as e:
            failures.append(_log_failure(exp_dir, name, "evaluate", e))
            continue
        _clear_failure(exp_dir, name)
    result: dict = {"runs": runs, "baselines": baselines, "failures": failures, "report": None}
    if report:
        from c2fsum.reports.experiment import build_report

        result["report"] = str(build_report(exp_dir, progress=progress, doc_ids=doc_ids))
    return result
