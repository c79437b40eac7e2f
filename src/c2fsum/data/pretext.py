"""Self-supervised pretext tasks: summarization-shaped examples made from unlabeled articles.

A prepared document is a list of sentences ``s_0 .. s_{n-1}`` (each a token list ending in
``</s>``). A *window* starting at sentence ``k`` is a new example whose target is the window's
lead sentence ``s_k``:

* ``lead``  (copy the lead):       source ``s_k s_{k+1} ...``, target ``s_k``.
  Teaches the pointer to find the start of the text, copy it in order and stop at its end.
* ``rest``  (lead from the rest):  source ``s_{k+1} s_{k+2} ...``, target ``s_k``.
  The lead of a news text restates what follows; predicting it from the rest is the
  abstractive half of summarization, with no human summary needed.
* ``lead`` with ``skip_short``: as ``lead``, but a window may start with short lines (bylines
  such as "by . daily mail reporter .") that the target skips, as a summary of a whole article does.
* ``mixed``: each window is ``lead`` or ``rest`` (alternating by window index, so the choice
  is reproducible).

Windows start every ``stride`` sentences in the first ``max_start`` sentences whose lead has
``min_words`` to ``max_words`` words (bylines such as "by . associated press ." are skipped).
The output is a prepared data folder (``train.jsonl``, ``val.jsonl``, the source folder's
``vocab.txt``) that ``c2fsum train`` reads like any other, so a model pretrained on it can be
fine-tuned with ``train.init_from`` on the real summaries with the same vocabulary.

Only training documents should feed pretext training: with ``val_holdout`` (the CPU presets'
train+val recipe) the last ``val_holdout`` validation documents stay out of the pretext
training set and make its validation set instead, so nothing chosen on them was trained on them.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from c2fsum.config import PretextSettings
from c2fsum.data.prepare import read_prepared
from c2fsum.data.vocab import EOS


def _words(sentence: list[str]) -> int:
    return sum(1 for t in sentence if t != EOS)


def pretext_examples(
    docs: Iterable[dict[str, Any]],
    settings: PretextSettings,
    *,
    max_start: int = 30,
    min_words: int = 8,
    max_words: int = 50,
) -> Iterator[dict[str, Any]]:
    """Pretext examples (prepared-document dicts: ``id``, ``src``, ``tgt``, ``refs``) of ``docs``,
    by ``settings.task``, a window every ``settings.stride`` sentences.

    ``id`` is ``{doc id}#{k}{l|r}``: the window's first sentence and its task.
    ``settings.skip_short`` (``lead`` only): a window whose first sentences are shorter than
    ``min_words`` (a byline, a dateline) keeps them in its source and takes the first long enough
    sentence as its target.
    """
    task, stride, skip_short = settings.task, settings.stride, settings.skip_short
    window = 0
    for doc in docs:
        sents: list[list[str]] = doc["src"]
        last_target = -1
        for k in range(0, min(len(sents) - 1, max_start), stride):
            # the window's lead: its first sentence of min_words..max_words words (a "lead" window
            # may begin with shorter lines, such as a byline, that the model learns to skip)
            j = k
            if task == "lead" and skip_short:
                while j < len(sents) - 1 and _words(sents[j]) < min_words:
                    j += 1
            n = _words(sents[j])
            if not min_words <= n <= max_words or j >= len(sents) - 1 or j == last_target:
                continue
            last_target = j
            kind = task if task != "mixed" else ("lead" if window % 2 == 0 else "rest")
            window += 1
            src = sents[k:] if kind == "lead" else sents[j + 1 :]
            tgt = [t for t in sents[j] if t != EOS]
            yield {"id": f"{doc['id']}#{k}{kind[0]}", "src": src, "tgt": tgt, "refs": [tgt]}


def _write(path: Path, examples: Iterable[dict[str, Any]]) -> int:
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for ex in examples:
            f.write(json.dumps(ex, separators=(",", ":")) + "\n")
            n += 1
    return n


def write_pretext(
    data_dir: str | Path,
    out_dir: str | Path,
    settings: PretextSettings | None = None,
    *,
    extra_train: Iterable[str | Path] = (),
) -> dict[str, int]:
    """Write a pretext data folder from the prepared folder ``data_dir`` as ``settings`` say
    (:class:`c2fsum.config.PretextSettings`; None: its defaults); returns example counts.

    Training windows come from ``train.jsonl``, the validation documents but the last
    ``val_holdout`` (0: none of them), and each prepared split file in ``extra_train`` (for
    example another corpus's ``train.jsonl``; its words outside ``vocab.txt`` are copied or
    ``<unk>``). Validation windows come from the last ``val_holdout`` validation documents
    (all of them when ``val_holdout`` is 0).

    ``with_summaries`` > 0 makes a multi-task folder for fine-tuning instead: ``train.jsonl``
    holds the pretext windows and ``with_summaries`` copies of every real training document (with
    its human summary), and ``val.jsonl`` is the source folder's own, untouched, so that training
    with ``data.val_holdout`` set to the same ``val_holdout`` adds the same validation documents to
    training (real and pretext) and validates on the same held-out ones.

    ``validate_on="summaries"`` (pretext only): ``val.jsonl`` holds the held-out documents with
    their human summaries, so that checkpoints are chosen by how well they summarize; train on
    the folder with ``data.val_holdout: 0``.
    """
    settings = settings or PretextSettings()
    val_holdout, with_summaries = settings.val_holdout, settings.with_summaries
    data_dir, out_dir = Path(data_dir), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    val_docs = list(read_prepared(data_dir / "val.jsonl"))
    held = val_docs[-val_holdout:] if val_holdout > 0 else val_docs
    trained_val = val_docs[:-val_holdout] if val_holdout > 0 else []

    def train_docs() -> Iterator[dict[str, Any]]:
        yield from read_prepared(data_dir / "train.jsonl")
        yield from trained_val
        for path in extra_train:
            yield from read_prepared(path)

    if with_summaries > 0:

        def multi_task() -> Iterator[dict[str, Any]]:
            yield from pretext_examples(train_docs(), settings)
            for _ in range(with_summaries):
                yield from read_prepared(data_dir / "train.jsonl")

        counts = {"train": _write(out_dir / "train.jsonl", multi_task())}
        shutil.copyfile(data_dir / "val.jsonl", out_dir / "val.jsonl")
        counts["val"] = len(val_docs)
    else:
        counts = {
            "train": _write(out_dir / "train.jsonl", pretext_examples(train_docs(), settings)),
            "val": _write(
                out_dir / "val.jsonl",
                held if settings.validate_on == "summaries" else pretext_examples(held, settings),
            ),
        }
    shutil.copyfile(data_dir / "vocab.txt", out_dir / "vocab.txt")
    (out_dir / "stats.json").write_text(
        json.dumps(
            {
                "pretext": settings.task,
                "stride": settings.stride,
                "with_summaries": with_summaries,
                "skip_short": settings.skip_short,
                "validate_on": settings.validate_on,
                "source": str(data_dir),
                "examples": counts,
            },
            indent=2,
        )
        + "\n"
    )
    return counts
