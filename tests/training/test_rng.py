"""One format for random generator states (training/rng.py): checkpoints and ranks; the older
two-file checkpoint layout still restores."""

import json
import random

import numpy as np
import torch
from safetensors.torch import save_file

from c2fsum.training import rng


def draws() -> tuple:
    return float(torch.rand(())), random.random(), float(np.random.rand())


def test_capture_restore_round_trip_through_json():
    torch.manual_seed(1), random.seed(2), np.random.seed(3)
    state = json.loads(json.dumps(rng.capture()))  # JSON values only
    want = draws()
    draws()  # move every generator on
    rng.restore(state)
    assert draws() == want


def test_save_and_load_a_checkpoint_folder(tmp_path):
    torch.manual_seed(4), random.seed(5), np.random.seed(6)
    rng.save(tmp_path)
    assert set(json.loads((tmp_path / "rng.json").read_text())) >= {"torch_cpu", "python", "numpy"}
    assert not (tmp_path / "rng.safetensors").exists()
    want = draws()
    rng.load(tmp_path)
    assert draws() == want


def test_a_checkpoint_in_the_older_two_file_layout_restores(tmp_path):
    """Before one format: torch states in rng.safetensors, Python and NumPy in rng.json."""
    torch.manual_seed(7), random.seed(8), np.random.seed(9)
    save_file({"torch_cpu": torch.get_rng_state()}, str(tmp_path / "rng.safetensors"))
    full = rng.capture()
    (tmp_path / "rng.json").write_text(json.dumps({"python": full["python"], "numpy": full["numpy"]}))
    want = draws()
    rng.load(tmp_path)
    assert draws() == want
