"""``c2fsum serve``: its options reach the app, and a missing run directory is a one-line error."""

from __future__ import annotations

import uvicorn
from fastapi.testclient import TestClient

from c2fsum.cli.main import main


def test_serve_builds_the_app_with_the_given_limits(served_run, monkeypatch, capsys):
    seen = {}

    def fake_run(app, **kw):
        seen["app"], seen["kw"] = app, kw

    monkeypatch.setattr(uvicorn, "run", fake_run)
    assert (
        main(
            [
                "-q",
                "serve",
                "--model",
                str(served_run),
                "--port",
                "8123",
                "--max-chars",
                "50",
                "--max-queue",
                "3",
                "--timeout",
                "7",
            ]
        )
        == 0
    )
    assert seen["kw"] == {"host": "127.0.0.1", "port": 8123, "log_level": "warning"}
    assert "http://127.0.0.1:8123/" in capsys.readouterr().out
    s = seen["app"].state.settings
    assert (s.max_chars, s.max_queue, s.timeout) == (50, 3, 7.0)
    with TestClient(seen["app"]) as c:
        r = c.post("/summarize", json={"text": "x" * 51})
        assert r.status_code == 413 and r.json()["detail"] == (
            "text: 51 characters; this server accepts at most 50 (start it with a larger "
            "`c2fsum serve --max-chars` to raise the limit)"
        )


def test_serve_without_a_run_directory_is_a_clear_error(tmp_path, capsys):
    assert main(["-q", "serve", "--model", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"c2fsum serve: error: {tmp_path / 'nope'}: no such model: not a shipped model (")
    assert "no such directory" in err and len(err.splitlines()) == 1
