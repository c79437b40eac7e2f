"""Configs saved by older versions still load: the retired ``eval`` section (``eval.limit``, never
read; ``evaluate --limit`` is the option) is accepted and dropped, nothing else is."""

import json
from pathlib import Path

import pytest

from c2fsum.config import ConfigError, config_from_json, resolve

SHIPPED = Path(__file__).resolve().parents[1] / "src" / "c2fsum" / "pretrained" / "cnndm-small" / "config.json"


def test_a_shipped_config_with_eval_limit_loads():
    saved = json.loads(SHIPPED.read_text(encoding="utf-8"))
    assert saved["eval"] == {"limit": 0}  # written before the section was retired
    cfg = config_from_json(json.dumps(saved))
    assert cfg.model.family == saved["model"]["family"] and cfg.data.chunks == saved["data"]["chunks"]
    assert "eval" not in cfg.to_dict()


def test_an_eval_section_with_other_keys_is_still_an_error():
    with pytest.raises(ConfigError, match="eval"):
        resolve({"eval": {"limit": 3, "beam": 2}})
    with pytest.raises(ConfigError, match="eval"):
        resolve(overrides=["eval.limit=3"])


def test_off_reaches_a_choice_field_as_off_not_as_yaml_false(tmp_path):
    """``--set train.amp=off`` and ``amp: off`` in a preset: YAML 1.1 reads ``off`` as False and
    OmegaConf hands the text field 'False'; the field gets ``off`` back. A word no choice takes
    is still refused by name."""
    from c2fsum.config import ConfigError, load_config

    assert load_config(None, ["train.amp=off"]).train.amp == "off"
    preset = tmp_path / "p.yaml"
    preset.write_text("train:\n  amp: off\n")
    assert load_config(preset).train.amp == "off"
    assert load_config(None, ["train.amp=bf16"]).train.amp == "bf16"
    with pytest.raises(ConfigError, match="train.objective: got 'False'"):
        load_config(None, ["train.objective=off"])  # ml or mixed: no 'off' to give back
