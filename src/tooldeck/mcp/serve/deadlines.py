"""Bounded resources of ``tooldeck mcp serve --http``: slow clients are dropped, not waited on.

``refusals.py`` bounds connections (a 503 past ``max_connections``) and uvicorn the idle
time between requests (keep-alive), but not a request whose headers never finish: a client
that sends one byte every few seconds holds its connection, and its descriptor, for as
long as it likes, and one that stops halfway through its body holds it too.
``read_deadlines`` closes such connections, however they trickle; a request whose body
has arrived is never touched, however long its call runs.
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


def read_deadlines(header_timeout_s: float, body_timeout_s: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol, closing connections whose request does not arrive in time.

    One timer per connection, armed when it opens and after each response: at
    ``header_timeout_s`` a connection still without a whole request head is closed; one
    whose body is still arriving gets ``body_timeout_s`` more, then is closed too. Nothing
    runs per request, so the bound costs the served calls nothing.
    """

    class ReadDeadlines(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _body_grace = False

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
            self._body_grace = False
            self._deadline = self.loop.call_later(header_timeout_s, self._expire)

        def _expire(self) -> None:
            if self.transport.is_closing():
                return
            cycle = self.cycle
            if cycle is None or cycle.response_complete:
                self.transport.close()  # no request under way: its head did not come in time
            elif self.conn.their_state is h11.SEND_BODY:
                if self._body_grace:
                    self.transport.close()  # the body stalled: the app sees a disconnect
                else:
                    self._body_grace = True
                    self._deadline = self.loop.call_later(body_timeout_s, self._expire)

    return ReadDeadlines
