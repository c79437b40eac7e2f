"""The recipes of the shipped models (configs/NAME.stages, read by scripts/train_shipped.sh) name
configs that load, share out the whole budget, end with NAME itself, and chain models that can
start from each other (a flat MODEL 0 may start a hierarchical one; the reverse is refused)."""

from pathlib import Path

import pytest

from c2fsum.config import load_config
from c2fsum.pretrained.registry import SHIPPED

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
STAGES = sorted(CONFIGS.glob("*.stages"))


def read_stages(path: Path) -> list[tuple[str, float, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, share, data = line.split(maxsplit=2)
            rows.append((name, float(share), data.strip()))
    return rows


def test_every_shipped_model_has_a_recipe():
    for name in SHIPPED:
        assert (CONFIGS / f"{name}.yaml").is_file(), name


@pytest.mark.parametrize("path", STAGES, ids=lambda p: p.stem)
def test_stages_load_share_the_budget_and_end_with_the_model(path):
    rows = read_stages(path)
    assert rows and rows[-1][0] == path.stem
    assert sum(share for _, share, _ in rows) == pytest.approx(1.0)
    configs = [load_config(CONFIGS / f"{name}.yaml") for name, _, _ in rows]
    assert len({c.data.vocab_size for c in configs}) == 1  # one vocabulary: the weights carry over
    # a "pairs" stage is a sentence rewriter trained apart (select-rewrite's fine level): it starts
    # from nothing, the stage after it does not start from it, and it must write words by copying
    for (_, _, data), c in zip(rows, configs, strict=True):
        if data == "pairs":
            assert c.model.family in ("model0", "model1") and c.model.pointer
            assert any(later.model.family == "select-rewrite" for later in configs[configs.index(c) + 1 :])
    chained = [c.model for (_, _, data), c in zip(rows, configs, strict=True) if data != "pairs"]
    for before, after in zip(chained, chained[1:], strict=False):
        sizes = ("emb_dim", "hidden", "enc_layers", "dec_layers", "bidirectional", "pointer", "share_embeddings")
        sizes += ("shared_output", "input_feed", "intra_decoder", "output")  # the weights mean the same
        assert all(getattr(before, k) == getattr(after, k) for k in sizes)
        flat_to_hierarchical = before.family in ("model0", "model1") and after.family in ("model2", "model3")
        assert before.family == after.family or flat_to_hierarchical
