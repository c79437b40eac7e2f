"""Run the app with uvicorn in a background thread on a free loopback port (tests, scripts, notebooks).

with BackgroundServer(create_app(run_dir)) as server:
    httpx.post(server.url + "/summarize", json={"text": "..."})
"""

from __future__ import annotations

import socket
import threading
import time

import uvicorn


class BackgroundServer:
    """A real uvicorn server on ``host`` (default 127.0.0.1) and a port the OS picks; stops on exit."""

    def __init__(self, app, *, host: str = "127.0.0.1", start_timeout: float = 30.0):
        self.app, self.host, self.start_timeout = app, host, start_timeout
        self.url = ""
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> BackgroundServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, 0))
        port = sock.getsockname()[1]
        self._server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", lifespan="on"))
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, daemon=True, name="c2fsum-uvicorn"
        )
        self._thread.start()
        deadline = time.monotonic() + self.start_timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"uvicorn did not start on {self.host}:{port}")
            time.sleep(0.02)
        self.url = f"http://{self.host}:{port}"
        return self

    def __exit__(self, *exc) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
