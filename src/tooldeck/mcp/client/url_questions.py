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
client is asked under ``<server>.<id>``, so two mounted servers' ids cannot meet in one
client. When the server says the question is complete, the client that was asked is
told under the same id, through the call's ``ctx.elicitation_complete`` (the call may
have ended: the completion usually comes once the user is done on the page). The
questions waiting for completion are remembered per connection, the latest
``REMEMBERED`` of them.

The pages a server lists when it refuses a call with ``-32042`` are asked the same way
(``asked``), and their completion relayed alike (``url_required``).
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from tooldeck._tool import AwaitingInput, ToolFailure

if TYPE_CHECKING:
    from tooldeck._peer import Elicited
    from tooldeck.mcp.client.server_requests import Caller
    from tooldeck.mcp.sdk import types

REMEMBERED = 64
"""URL questions per connection whose completion is still relayed (older ones are not)."""


class UrlQuestions:
    """One connection's URL questions that went to a call's client, until complete."""

    def __init__(self, server: str) -> None:
        self.server = server
        self._waiting: OrderedDict[str, tuple[Caller, str]] = OrderedDict()

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
        return None if answer is None else types.ElicitResult(action=answer.action)

    async def asked(self, caller: Caller, params: types.ElicitRequestURLParams) -> Elicited | None:
        """The answer of the call's client, the question's completion relayed once it
        was accepted; ``None`` when it cannot be asked (``ctx.elicit_url`` raised
        ``ToolFailure``). ``AwaitingInput``, and anything else it raised, propagate."""
        theirs = params.elicitation_id
        ours = f"{self.server}.{theirs}" if theirs else None
        ask = functools.partial(caller.ctx.elicit_url, elicitation_id=ours)
        try:
            answer = await caller.awaited(ask, params.message, params.url)
        except AwaitingInput:  # a ToolFailure too, but the call's client will answer
            raise
        except ToolFailure:  # the call has no one who can be sent to a URL
            return None
        if theirs and ours and answer.action == "accept":
            self._remember(theirs, caller, ours)
        return answer

    def completed(self, message: Any) -> bool:
        """Relay ``notifications/elicitation/complete`` of a question a call's client
        was asked; True when ``message`` is one (handled: relayed, or no one to tell)."""
        from tooldeck.mcp.sdk import types

        if not isinstance(message, types.ElicitCompleteNotification):
            return False
        waiting = self._waiting.pop(message.params.elicitation_id, None)
        if waiting is not None:
            caller, ours = waiting
            caller.run(caller.ctx.elicitation_complete, ours)
        return True

    def _remember(self, theirs: str, caller: Caller, ours: str) -> None:
        self._waiting[theirs] = (caller, ours)
        self._waiting.move_to_end(theirs)
        while len(self._waiting) > REMEMBERED:
            self._waiting.popitem(last=False)
