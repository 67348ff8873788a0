"""A mounted server's URL-mode questions during a call, relayed to the call's own
``ctx.elicit_url``, and its ``notifications/elicitation/complete`` relayed after them.

A URL-mode ``elicitation/create`` (MCP 2025-11-25) sends the user to a page the server
hosts (a sign-in, a payment), so nothing sensitive passes through the client. During a
call served by ``tooldeck mcp serve`` to a client that declared URL elicitation, the
question goes to that client, as a form does (``server_requests``): mid-call to a
handshake-era client, as an ``input_required`` round to a 2026-07-28 one. Where the
call has no one who can be sent to a URL, ``ctx.elicit_url`` fails and the question
goes to the Location's asker, as before.

Ids. The server names its question (``elicitationId``, unique within that server); the
client is asked under ``<server>.<id>`` (``asked_id``: a dot or ``%`` in the server's
name is escaped, so the first dot ends it), so two mounted servers' ids cannot meet in
one client, whatever dots their names and ids hold. When the server says the question
is complete, the client that was asked is told under the same id, through the call's
``ctx.elicitation_complete`` (the call may have ended: the completion usually comes once
the user is done on the page). A completion that comes while the client is still
deciding, or before it is asked (a page of a ``-32042`` whose earlier page the user is
still on), is relayed once it accepts.

The pages a server lists when it refuses a call with ``-32042`` are asked the same way
(``asked``), and their completion relayed alike; the retry of that call waits for those
completions (``done``). Those ids are ``expect``-ed before they are asked, so a
completion counts from then on, even before the wait begins (for a 2026-07-28 client,
in an earlier round of the call), and one wait uses it up: a completion nobody expects,
say one that comes after an earlier call's wait gave up, cannot let a later call with
the same id through at once.

Each kind of id is remembered per connection, the latest ``REMEMBERED`` of it.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from tooldeck._tool import AwaitingInput, ToolFailure
from tooldeck.mcp.client.pages import plain

if TYPE_CHECKING:
    from tooldeck._peer import Elicited
    from tooldeck.mcp.client.server_requests import Caller
    from tooldeck.mcp.sdk import types

T = TypeVar("T")

REMEMBERED = 64
"""Ids of each kind a connection remembers (open questions, accepted ones whose
completion is still relayed, expected ones)."""


class UrlQuestions:
    """One connection's URL questions that went to a call's client, until complete."""

    def __init__(self, server: str) -> None:
        self.server = server
        self._open: OrderedDict[str, bool] = OrderedDict()
        """Asked and not yet answered (across a 2026-07-28 client's rounds): whether the
        server has already said it is complete."""
        self._waiting: OrderedDict[str, tuple[Caller, str]] = OrderedDict()
        """Accepted: who to tell, under which id, when the server says it is complete."""
        self._expected: OrderedDict[str, bool] = OrderedDict()
        """Waited for (``expect``): whether the server has said it is complete since."""
        self._changed: anyio.Event | None = None
        """Set at the next completion; created by the first wait (on the connection's
        loop, where completions arrive too)."""

    async def ask(
        self, caller: Caller, params: types.ElicitRequestURLParams
    ) -> types.ElicitResult | None:
        """The answer of the call's client; ``None`` when it cannot be asked (the
        asker decides). Raises what ``ctx.elicit_url`` raised otherwise."""
        from tooldeck.mcp.sdk import types

        try:
            answer = await self.asked(caller, params)
        except AwaitingInput as stop:  # answered in the call's next round: stop this one
            caller.stop(stop)
            return types.ElicitResult(action="cancel")
        except ToolFailure:  # the call has no one who can be sent to a URL
            return None
        return types.ElicitResult(action=answer.action)

    async def asked(self, caller: Caller, params: types.ElicitRequestURLParams) -> Elicited:
        """The answer of the call's client, the question's completion relayed once it
        was accepted. Raises what ``ctx.elicit_url`` raised: ``ToolFailure`` when the
        call has no one who can be sent to a URL, ``AwaitingInput`` when its client
        answers in the call's next round."""
        theirs = params.elicitation_id
        ours = asked_id(self.server, theirs) if theirs else None
        ask = functools.partial(caller.ctx.elicit_url, elicitation_id=ours)
        if theirs:  # said complete already: a page of a -32042 the user finished early
            said = self._open.get(theirs, False) or self._expected.get(theirs, False)
            _keep(self._open, theirs, said)
        try:
            answer = await caller.awaited(ask, plain(params.message), params.url)
        except AwaitingInput:  # a ToolFailure too, but the call's client will answer
            raise
        except BaseException:
            self._open.pop(theirs or "", None)
            raise
        said = self._open.pop(theirs or "", False)
        if theirs and ours and answer.action == "accept":
            if said:
                caller.run(caller.ctx.elicitation_complete, ours)
            else:
                _keep(self._waiting, theirs, (caller, ours))
        return answer

    def completed(self, message: Any) -> bool:
        """Relay ``notifications/elicitation/complete`` of a question a call's client
        was asked; True when ``message`` is one (handled: relayed, or no one to tell)."""
        from tooldeck.mcp.sdk import types

        if not isinstance(message, types.ElicitCompleteNotification):
            return False
        theirs = message.params.elicitation_id
        waiting = self._waiting.pop(theirs, None)
        if waiting is not None:
            caller, ours = waiting
            caller.run(caller.ctx.elicitation_complete, ours)
        elif theirs in self._open:  # relayed once the client accepts (``asked``)
            self._open[theirs] = True
        if theirs in self._expected:
            self._expected[theirs] = True
            if self._changed is not None:
                self._changed.set()
                self._changed = None
        return True

    def expect(self, ids: Iterable[str]) -> None:
        """Count the server's completions of ``ids`` from now on, for a ``done``."""
        for theirs in ids:  # one expected already (an earlier round) keeps what was said
            _keep(self._expected, theirs, self._expected.get(theirs, False))

    async def done(self, ids: Iterable[str]) -> None:
        """Return once the server has said each of ``ids`` is complete since they were
        ``expect``-ed. However the wait ends, they are then expected no more (a server
        may name a later question as it named an earlier one). Unbounded: the caller
        bounds it."""
        missing = set(ids)
        try:
            while not all(self._expected.get(theirs) for theirs in missing):
                if self._changed is None:
                    self._changed = anyio.Event()
                await self._changed.wait()
        finally:
            self.forget(missing)

    def forget(self, ids: Iterable[str]) -> None:
        """Expect ``ids`` no more, nor count what the server said of them."""
        for theirs in ids:
            self._expected.pop(theirs, None)


def asked_id(server: str, theirs: str) -> str:
    """The id a call's client is asked under for ``server``'s question ``theirs``: one
    per pair (``a.b`` asking ``c`` is ``a%2Eb.c``, ``a`` asking ``b.c`` is ``a.b.c``)."""
    return f"{server.replace('%', '%25').replace('.', '%2E')}.{theirs}"


def _keep(remembered: OrderedDict[str, T], key: str, value: T) -> None:
    """``remembered[key] = value`` as the latest, forgetting the oldest past ``REMEMBERED``."""
    remembered[key] = value
    remembered.move_to_end(key)
    while len(remembered) > REMEMBERED:
        remembered.popitem(last=False)
