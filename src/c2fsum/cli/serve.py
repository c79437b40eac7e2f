"""``c2fsum serve``: the HTTP API and the attention page, run by uvicorn.

c2fsum serve --model MODEL [--host 127.0.0.1] [--port 8000] [--device cpu|cuda]
             [--max-chars N] [--max-batch K] [--max-queue Q] [--timeout S] [--threads T]
"""

from __future__ import annotations

import argparse

from c2fsum.cli.options import Command, add_device, add_model


def cmd_serve(a: argparse.Namespace) -> int:
    import torch
    import uvicorn

    from c2fsum.serving import ServeSettings, create_app

    if a.threads:
        torch.set_num_threads(a.threads)
    settings = ServeSettings(
        max_chars=a.max_chars,
        max_batch=a.max_batch,
        max_queue=a.max_queue,
        timeout=a.timeout,
    )
    app = create_app(a.model, settings=settings, device=a.device)
    print(f"c2fsum: serving {a.model} on http://{a.host}:{a.port}/ (API docs at /docs)", flush=True)
    uvicorn.run(app, host=a.host, port=a.port, log_level="warning" if a.quiet else "info")
    return 0


def _arguments(s: argparse.ArgumentParser) -> None:
    add_model(s)
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    s.add_argument("--port", type=int, default=8000, help="port (8000)")
    add_device(s)
    s.add_argument(
        "--max-chars",
        type=int,
        default=1_000_000,
        help="longest article accepted, characters (1000000: the 100,000 words summarize reads)",
    )
    s.add_argument("--max-batch", type=int, default=8, help="documents decoded together (8)")
    s.add_argument("--max-queue", type=int, default=64, help="requests waiting before 503 (64)")
    s.add_argument("--timeout", type=float, default=30.0, help="seconds per request before 504 (30)")
    s.add_argument("--threads", type=int, help="torch CPU threads (default: torch's choice)")


COMMAND = Command(
    "serve",
    help="HTTP API and a web page showing where the model reads",
    run=cmd_serve,
    arguments=_arguments,
)
