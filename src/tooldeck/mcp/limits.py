"""Bounded resources of ``tooldeck mcp serve --http``: slow clients are dropped, not waited on.

uvicorn bounds connections (``limit_concurrency``: a 503 past it) and the idle time
between requests (keep-alive), but not a request whose headers never finish: a client
that sends one byte every few seconds holds its connection, and its descriptor, for as
long as it likes. ``header_deadline`` closes a connection whose request headers are not
complete ``header_timeout_s`` after it opened (or after its previous response), however
it trickles. ``BodyTimeout`` answers 408 when a request's body stalls for
``body_timeout_s`` between two chunks. Neither touches a request being served.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import anyio
from uvicorn.protocols.http.h11_impl import H11Protocol

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def header_deadline(header_timeout_s: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol, closing connections whose headers do not arrive in time."""

    class HeaderDeadline(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = self.loop.call_later(header_timeout_s, self._expire)

        def _expire(self) -> None:
            waiting = self.cycle is None or self.cycle.response_complete
            if waiting and not self.transport.is_closing():
                self.transport.close()  # no request under way: headers did not come in time

    return HeaderDeadline


class BodyTimeout:
    """ASGI wrapper: a request body that stalls for ``timeout_s`` gets 408 and is dropped."""

    def __init__(self, app: Any, timeout_s: float) -> None:
        self.app = app
        self.timeout_s = timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False
        body_done = False

        async def sending(message: MutableMapping[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        async def receiving() -> MutableMapping[str, Any]:
            nonlocal body_done
            if body_done:  # after the body only a disconnect comes: no deadline on it
                return await receive()
            with anyio.move_on_after(self.timeout_s) as waited:
                message = await receive()
            if waited.cancelled_caught:
                raise _Stalled
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_done = True
            return message

        try:
            await self.app(scope, receiving, sending)
        except Exception as exc:
            if not _stalled(exc):
                raise
            if not started:
                await _respond(send, 408, "request body too slow: dropped\n")


class _Stalled(Exception):
    """The request body stalled past its timeout."""


def _stalled(exc: BaseException) -> bool:
    """``_Stalled``, or a task group's exception group made of it."""
    if isinstance(exc, BaseExceptionGroup):
        return all(_stalled(inner) for inner in exc.exceptions)
    return isinstance(exc, _Stalled)


async def _respond(send: Send, status: int, text: str) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain"), (b"connection", b"close")],
        }
    )
    await send({"type": "http.response.body", "body": text.encode()})
