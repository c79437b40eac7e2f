"""The HTTP API (FastAPI) and the web page that shows where the model reads.

``create_app(RUN_DIR)`` loads a model once and returns an ASGI app; ``c2fsum serve`` runs it
with uvicorn. Requests are queued in front of one decoding thread and batched.
"""

from c2fsum.serving.app import create_app
from c2fsum.serving.settings import ServeSettings

__all__ = ["ServeSettings", "create_app"]
