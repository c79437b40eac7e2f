import subprocess
import sys

CODE = "from c2fsum.utils.malloc import keep_freed_memory as k; print(k(), k())"


def _run(env_value: str | None) -> str:
    import os

    env = dict(os.environ)
    env.pop("C2FSUM_MALLOC", None)
    if env_value is not None:
        env["C2FSUM_MALLOC"] = env_value
    return subprocess.run(
        [sys.executable, "-c", CODE], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


def test_keep_freed_memory_takes_effect_on_glibc_and_can_be_turned_off():
    assert _run(None) == "True True"  # Linux with glibc (this project's machines)
    assert _run("default") == "False False"
