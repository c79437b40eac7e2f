"""Claims in the docs that the code decides: kept in step with it."""

from pathlib import Path

import pytest

from c2fsum.training import trainer

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_full_scale_doc_says_the_batch_is_global_as_the_trainer_does():
    """``train.batch_size`` is the global batch (documents per optimizer step on any number of
    processes, tests/training/test_distributed.py); the GPU guide must not say it is per GPU."""
    assert "``train.batch_size`` is the global batch" in " ".join((trainer.__doc__ or "").split())
    text = " ".join((DOCS / "full-scale.md").read_text(encoding="utf-8").split())
    assert "`train.batch_size` is the *global* batch" in text
    for stale in ("each with a batch of 20", "global batch is 20 x N", "per-GPU batch", "issue 7 is building"):
        assert stale not in text, stale


@pytest.mark.parametrize("doc", ["full-scale.md", "distributed.md"])
def test_docs_do_not_call_distributed_training_unfinished(doc):
    text = (DOCS / doc).read_text(encoding="utf-8").lower()
    assert "still being built" not in text and "is building" not in text
