"""An ASGI middleware that refuses request bodies over a size limit with 413, before parsing them."""

from __future__ import annotations

import json


class BodySizeLimit:
    """413 for a body larger than ``max_bytes``: at once from ``Content-Length``, else (a chunked
    body) as soon as the bytes read pass the limit. The body is read here (at most ``max_bytes``)
    and handed on in one message."""

    def __init__(self, app, *, max_bytes: int):
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None:
            try:
                n = int(length)
            except ValueError:
                await self._reply(send, 400, f"Content-Length: not a number ({length[:20]!r})")
                return
            if n > self.max_bytes:
                await self._reply(send, 413, self._message(n))
                return
        chunks, seen, more = [], 0, True
        while more:  # read the whole body (at most max_bytes), then hand it to the app in one message
            message = await receive()
            if message["type"] != "http.request":  # client went away
                return
            body = message.get("body", b"")
            seen += len(body)
            if seen > self.max_bytes:
                await self._reply(send, 413, self._message(seen, at_least=True))
                return
            chunks.append(body)
            more = message.get("more_body", False)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _message(self, n: int, *, at_least: bool = False) -> str:
        return (
            f"request body is {'more than ' if at_least else ''}{n} bytes; this server accepts at most "
            f"{self.max_bytes} (start it with a larger `c2fsum serve --max-chars` to raise the limit)"
        )

    @staticmethod
    async def _reply(send, status: int, detail: str) -> None:
        body = json.dumps({"detail": detail}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})
