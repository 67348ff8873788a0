"""What a client of ``tooldeck mcp serve --http`` reads when a limit refuses its request.

A refusal is an HTTP error whose body is a JSON-RPC error naming the limit and its
``[mcp.serve]`` key, so the SDK's client raises "too many connections: the server holds
[mcp.serve] max_connections = 4096; ..." rather than "Server returned an error response"
(it surfaces a JSON-RPC error body at any status; a plain-text body it cannot read):

* **503, too many connections** (``max_connections``): counted here, from uvicorn's own
  table of open connections, instead of uvicorn's ``limit_concurrency``, whose 503 is
  plain text. The check is two ``len`` calls per request.
* **413, body too large** (``max_body_bytes``) and **503, too many sessions**
  (``max_sessions``): the SDK refuses these itself (the 413 in plain text); their
  response head is recognised by its status and the body replaced. Only ``POST``
  requests can meet them, so only those have their ``send`` wrapped.

The error's ``id`` is ``null`` (the request was refused before its body was read) and its
code ``LIMIT_ERROR``, JSON-RPC's range for server-defined errors.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

_log = logging.getLogger(__name__)

LIMIT_ERROR: Final = -32000
"""The JSON-RPC error code of every refusal by a ``[mcp.serve]`` limit."""


UNAUTHORIZED: Final = -32001
"""The JSON-RPC error code of a request refused for its bearer token."""


def refusal_body(message: str, code: int = LIMIT_ERROR) -> bytes:
    """A JSON-RPC error without a request id, as bytes."""
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
    return json.dumps(error).encode()


class Refusals:
    """ASGI wrapper, outermost: refuses past ``max_connections`` and gives the SDK's own
    refusals a JSON-RPC body. ``state`` is uvicorn's ``ServerState`` (its ``connections``
    and ``tasks``), set once the server exists; until then nothing is counted."""

    def __init__(
        self, app: Any, *, max_connections: int, max_body_bytes: int, max_sessions: int
    ) -> None:
        self.app = app
        self.state: Any = None
        self._limit = max_connections
        self._refused = 0  # since the last line on stderr (at most one a second)
        self._report_at = 0.0
        self._busy = refusal_body(
            f"too many connections: the server holds [mcp.serve] max_connections = "
            f"{max_connections}; retry once some close"
        )
        self._rewritten = {
            413: refusal_body(
                f"request body too large: over [mcp.serve] max_body_bytes = {max_body_bytes}"
            ),
            503: refusal_body(
                f"too many open sessions: [mcp.serve] max_sessions = {max_sessions}; end "
                "one (DELETE) or wait for idle ones to close (idle_timeout_s)"
            ),
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = self.state
        limit = self._limit
        if state is not None and (len(state.connections) > limit or len(state.tasks) > limit):
            self._report()
            await _send(send, 503, self._busy, close=True)
            return
        if scope["method"] == "POST":
            await self.app(scope, receive, _Rewriting(send, self._rewritten))
        else:
            await self.app(scope, receive, send)

    def _report(self) -> None:
        """Tell the operator the server is full, in one line a second however many are
        refused (a burst must not turn into a flood of log lines)."""
        self._refused += 1
        now = time.monotonic()
        if now >= self._report_at:
            _log.warning(
                "tooldeck: refused %d request(s): [mcp.serve] max_connections = %d reached",
                self._refused,
                self._limit,
            )
            self._refused = 0
            self._report_at = now + 1.0


class _Rewriting:
    """``send`` of one request: a response head whose status is a known refusal goes out
    with that refusal's JSON-RPC body instead of the app's, whose body is dropped.

    A plain method returning ``send``'s own awaitable: a message passed through costs no
    coroutine of its own."""

    __slots__ = ("_bodies", "_replaced", "_send")

    def __init__(self, send: Send, bodies: dict[int, bytes]) -> None:
        self._send = send
        self._bodies = bodies
        self._replaced = False

    def __call__(self, message: MutableMapping[str, Any]) -> Awaitable[None]:
        if self._replaced:
            return _nothing()  # the app's own body of a replaced refusal
        if message["type"] == "http.response.start":
            body = self._bodies.get(message["status"])
            if body is not None:
                self._replaced = True
                return _send(self._send, message["status"], body, close=False)
        return self._send(message)


async def _nothing() -> None:
    return None


async def _send(send: Send, status: int, body: bytes, *, close: bool) -> None:
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    if close:  # frees the connection the limit counts
        headers.append((b"connection", b"close"))
    if status == 503:
        headers.append((b"retry-after", b"1"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
