"""Serve a Location's live catalog as an MCP server (the SDK's low-level ``Server``).

``tools/list`` answers exactly ``snapshot.definitions_for("mcp")`` of the current
snapshot; ``tools/call`` runs through ``run_tool_call`` (validation, permission, output
contract, bounding). When the catalog changes, every connected client hears it in its
own protocol era: 2026-07-28 clients through ``subscriptions/listen``, handshake-era
clients through ``notifications/tools/list_changed`` (the SDK has no broadcast, so a
middleware remembers one request session per handshake-era connection; its notifications
travel on the connection's own channel).
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tooldeck import __version__
from tooldeck.errors import PendingCallError
from tooldeck.host.execution.call import ToolCall
from tooldeck.host.execution.outcome import run_tool_call
from tooldeck.host.execution.snapshot import Snapshot
from tooldeck.host.registry.record import record_of
from tooldeck.host.schema.frozen import thaw
from tooldeck.mcp.asking import (
    MODERN,
    ElicitingAsker,
    answered,
    current_request,
    elicits_by_round_trip,
    input_required,
)
from tooldeck.mcp.results import call_result
from tooldeck.mcp.sdk import InMemorySubscriptionBus, ListenHandler, Server, ToolsListChanged, types

if TYPE_CHECKING:
    from tooldeck import Host

log = logging.getLogger("tooldeck.mcp")

Listing = tuple[types.Tool, ...]
MAX_SESSIONS = 100


class CatalogServer:
    """An MCP server over ``current()``: the host serving right now (it may be replaced)."""

    def __init__(self, current: Callable[[], Host], asker: ElicitingAsker) -> None:
        self._current = current
        self._asker = asker
        self._bus = InMemorySubscriptionBus()
        # Handshake-era connections by the identity of their initialize params (one object
        # per connection); the most recent MAX_SESSIONS are kept.
        self._sessions: dict[int, Any] = {}
        self._listed: tuple[object, Listing] | None = None
        self._calls = itertools.count(1)
        self.server: Server[Any] = Server(
            "tooldeck",
            version=__version__,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=ListenHandler(self._bus),
        )
        self.server.middleware.append(self._remember)

    # -- handlers --------------------------------------------------------------------------
    async def _remember(self, ctx: Any, call_next: Any) -> Any:
        session = ctx.session
        params = session.client_params
        if params is not None and session.protocol_version != MODERN:
            self._sessions.pop(id(params), None)
            self._sessions[id(params)] = session
            while len(self._sessions) > MAX_SESSIONS:
                del self._sessions[next(iter(self._sessions))]
        return await call_next(ctx)

    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list(self.listing()))

    def listing(self) -> Listing:
        """The current definitions as MCP tools (converted once per snapshot)."""
        definitions = self._current().snapshot().definitions_for("mcp")
        listed = self._listed
        if listed is None or listed[0] is not definitions:
            listed = self._listed = (definitions, tuple(_tool(d) for d in definitions))
        return listed[1]

    async def _call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        snapshot = self._current().snapshot()
        call = ToolCall(f"mcp-{next(self._calls)}", params.name, params.arguments or {})
        if elicits_by_round_trip(ctx):
            return await self._round_trip(params, snapshot, call)
        with current_request(ctx) as asked:
            scope = snapshot.scope("mcp", call.id, via="served")
            outcome = await run_tool_call(snapshot, call, scope=scope)
        if outcome.status == "declined" and asked.unanswerable:
            return types.CallToolResult(
                content=[
                    types.TextContent(
                        type="text", text=self._asker.declined_text(asked.unanswerable)
                    )
                ],
                is_error=True,
            )
        return call_result(
            outcome, structured=_declares_output(snapshot, params.name), call_id=call.id
        )

    async def _round_trip(
        self, params: types.CallToolRequestParams, snapshot: Snapshot, call: ToolCall
    ) -> types.CallToolResult | types.InputRequiredResult:
        """A 2026-07-28 call: asks are deferred, and a retry carrying the answer resumes
        the pending call it names (see ``asking``)."""
        answer = answered(params)
        if answer is None:
            scope = snapshot.scope("mcp", call.id, via="served")
            outcome = await run_tool_call(snapshot, call, scope=scope, on_ask="defer")
        else:
            try:
                outcome = await self._current().resume(*answer)
            except PendingCallError as exc:
                text = types.TextContent(type="text", text=str(exc))
                return types.CallToolResult(content=[text], is_error=True)
        if outcome.pending is not None:
            return input_required(outcome.pending)
        return call_result(
            outcome, structured=_declares_output(snapshot, params.name), call_id=call.id
        )

    # -- change notification ------------------------------------------------------------------
    async def tools_changed(self) -> None:
        """Tell every connected client, in its era, that the tool list changed."""
        await self._bus.publish(ToolsListChanged())
        for key, session in list(self._sessions.items()):
            try:
                await session.send_tool_list_changed()
            except Exception as exc:  # a client that left: forget it
                log.debug("could not notify an MCP client: %s", exc)
                self._sessions.pop(key, None)


def _tool(definition: Any) -> types.Tool:
    output = definition.get("outputSchema")
    return types.Tool(
        name=definition["name"],
        description=definition["description"],
        input_schema=thaw(definition["inputSchema"]),
        output_schema=thaw(output) if output is not None else None,
    )


def _declares_output(snapshot: Snapshot, name: str) -> bool:
    """Does the advertised tool carry an ``outputSchema`` (an object output)?"""
    tool = snapshot.get(name)
    if tool is None:
        return False
    schema = record_of(tool).output_schema
    return schema is not None and schema.get("type") == "object"
