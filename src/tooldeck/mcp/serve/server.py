"""Serve a Location's live catalog as an MCP server (the SDK's low-level ``Server``).

Each request is served the view of the client that sent it (``sessions.ClientView``: its
session's snapshot under its principal's rules, kept while the catalog and the rules stay
the same). ``tools/list`` answers exactly the view's ``definitions_for("mcp")``;
``tools/call`` runs through ``run_tool_call`` against the same view (validation,
permission, limits, hooks, output contract, bounding), so what a client is listed and
what it may call cannot drift. When the catalog changes, every connected client hears it
in its own protocol era: 2026-07-28 clients through ``subscriptions/listen``,
handshake-era clients through ``notifications/tools/list_changed`` (the SDK has no
broadcast, so a middleware remembers one request session per handshake-era connection;
its notifications travel on the connection's own channel).
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from tooldeck import __version__
from tooldeck.errors import PendingCallError
from tooldeck.host.boundary.boundary import run_tool_call
from tooldeck.host.boundary.outcome import ToolCallOutcome
from tooldeck.host.call.path import CallScope, ToolCall
from tooldeck.host.permissions.call_rules import CallRules, applying
from tooldeck.host.registry.record import record_of
from tooldeck.host.schema.frozen import thaw
from tooldeck.mcp.sdk import (
    CacheHint,
    InMemorySubscriptionBus,
    ListenHandler,
    Server,
    ToolsListChanged,
    types,
)
from tooldeck.mcp.serve.asking import (
    MODERN,
    ElicitingAsker,
    answered,
    current_request,
    elicits_by_round_trip,
    input_required,
)
from tooldeck.mcp.serve.sessions import (
    ClientSessions,
    ClientView,
    client_key,
    current_principal,
    principal_of,
)
from tooldeck.providers import results_for
from tooldeck.telemetry.propagation import ServedRequest, serving

if TYPE_CHECKING:
    from tooldeck import Snapshot
    from tooldeck.mcp.serve.watch import Serving

log = logging.getLogger("tooldeck.mcp")

Listing = tuple[types.Tool, ...]
MAX_SESSIONS = 100
LIST_FRESH = CacheHint(ttl_ms=1000, scope="private")
"""How long a 2026-07-28 client may reuse a ``tools/list`` answer: changes are noticed
about once a second anyway (``watch.POLL_S``), and a change evicts it at once through
``subscriptions/listen``. Without it the SDK's client lists again before every call to
check output schemas. ``private``: each principal is listed its own tools."""


class CatalogServer:
    """An MCP server over ``serving.host``: the host serving right now (it may be replaced)."""

    def __init__(
        self,
        serving: Serving,
        asker: ElicitingAsker,
        sessions: ClientSessions | None = None,
    ) -> None:
        self._asker = asker
        self.sessions = sessions or ClientSessions(serving, idle_timeout_s=900.0, max_calls=16)
        self._bus = InMemorySubscriptionBus()
        # Handshake-era connections by the identity of their initialize params (one object
        # per connection); the most recent MAX_SESSIONS are kept.
        self._sessions: dict[int, Any] = {}
        # MCP tools per definitions tuple (one per snapshot; the sessions of one catalog
        # share it)
        self._listed: dict[int, tuple[object, Listing]] = {}
        self._schemas: dict[int, tuple[object, dict[str, Any]]] = {}
        self._calls = itertools.count(1)
        self.server: Server[Any] = Server(
            "tooldeck",
            version=__version__,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=ListenHandler(self._bus),
            cache_hints={"tools/list": LIST_FRESH},
            get_tool_input_schema=self.input_schema,
        )
        self.server.middleware.append(self._remember)

    # -- every request ------------------------------------------------------------------------
    async def _remember(self, ctx: Any, call_next: Any) -> Any:
        session = ctx.session
        params = session.client_params
        if params is not None and session.protocol_version != MODERN:
            self._sessions.pop(id(params), None)
            self._sessions[id(params)] = session
            while len(self._sessions) > MAX_SESSIONS:
                del self._sessions[next(iter(self._sessions))]
        return await call_next(ctx)

    # -- listing ------------------------------------------------------------------------------
    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        request = ctx.request
        key = client_key(request)
        if key is not None:
            self.sessions.touch(key)
        view = self.sessions.view(key, principal_of(request))
        return types.ListToolsResult(tools=list(self.listing(view.snapshot)))

    def listing(self, snapshot: Snapshot) -> Listing:
        """``snapshot``'s definitions as MCP tools, converted once per definitions tuple."""
        definitions = snapshot.definitions_for("mcp")
        listed = self._listed.get(id(definitions))
        if listed is None or listed[0] is not definitions:
            if len(self._listed) >= 64:
                self._listed.clear()
            listed = (definitions, tuple(_tool(d) for d in definitions))
            self._listed[id(definitions)] = listed
        return listed[1]

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        """``name``'s input schema as the requesting principal was advertised it, for the
        SDK's ``Mcp-Param-*`` header check of a 2026-07-28 call (None: not listed, the
        check is skipped). Without it the SDK runs a whole ``tools/list`` per call to find
        one schema. The SDK gives this callback the name alone, so the principal comes
        from the request's task (``sessions.current_principal``); a session's own tools
        are not looked up (stateless requests have none)."""
        snapshot = self.sessions.view(None, current_principal()).snapshot
        definitions = snapshot.definitions_for("mcp")
        schemas = self._schemas.get(id(definitions))
        if schemas is None or schemas[0] is not definitions:
            if len(self._schemas) >= 64:
                self._schemas.clear()
            schemas = (definitions, {d["name"]: thaw(d["inputSchema"]) for d in definitions})
            self._schemas[id(definitions)] = schemas
        return schemas[1].get(name)

    # -- calls --------------------------------------------------------------------------------
    async def _call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        request = ctx.request
        key = client_key(request)
        principal = principal_of(request)
        if key is None:  # stateless: the Location's view, asks tracked for this call alone
            view = self.sessions.view(None, principal)
            return await self._call(ctx, params, view, self.sessions.stateless_key())
        if not self.sessions.enter(key):
            return _error(
                f"This MCP session already has {self.sessions.max_calls} tool calls in flight "
                "([mcp.serve] max_calls_per_session); wait for one to finish and call again."
            )
        try:
            return await self._call(ctx, params, self.sessions.view(key, principal), key)
        finally:
            self.sessions.leave(key)

    async def _call(
        self, ctx: Any, params: types.CallToolRequestParams, view: ClientView, session_id: str
    ) -> types.CallToolResult | types.InputRequiredResult:
        call = ToolCall(f"mcp-{next(self._calls)}", params.name, params.arguments or {})
        scope = view.snapshot.scope(session_id, call.id, via="served")
        if view.snapshot.call_hooks is None:  # no ``tool_call`` hook: no span reads the request
            return await self._run(ctx, params, view, call, scope)
        with serving(_served(ctx)):  # what the call's span records and continues
            return await self._run(ctx, params, view, call, scope)

    async def _run(
        self,
        ctx: Any,
        params: types.CallToolRequestParams,
        view: ClientView,
        call: ToolCall,
        scope: CallScope,
    ) -> types.CallToolResult | types.InputRequiredResult:
        with _under(view.rules):
            if elicits_by_round_trip(ctx):
                return await self._round_trip(params, view, call, scope)
            with current_request(ctx) as asked:
                outcome = await run_tool_call(view.snapshot, call, scope=scope)
        if outcome.status == "declined" and asked.unanswerable:
            name = view.rules.name if view.rules is not None else None
            text = self._asker.declined_text(asked.unanswerable, name, view.host.trust)
            return _error(text)
        return _result(outcome, view, params.name, call.id)

    async def _round_trip(
        self,
        params: types.CallToolRequestParams,
        view: ClientView,
        call: ToolCall,
        scope: CallScope,
    ) -> types.CallToolResult | types.InputRequiredResult:
        """A 2026-07-28 call: asks are deferred, and a retry carrying the answer resumes
        the pending call it names (see ``asking``)."""
        answer = answered(params)
        if answer is None:
            outcome = await run_tool_call(view.snapshot, call, scope=scope, on_ask="defer")
        else:
            try:
                outcome = await view.host.resume(*answer)
            except PendingCallError as exc:
                return _error(str(exc))
        if outcome.pending is not None:
            return input_required(outcome.pending)
        return _result(outcome, view, params.name, call.id)

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


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def _under(rules: CallRules | None) -> AbstractContextManager[None]:
    """A principal's call runs under its rules (``call_rules``); without a principal the
    Location's rules are the ones in force already, and nothing is set."""
    return applying(rules) if rules is not None else nullcontext()


def _result(
    outcome: ToolCallOutcome, view: ClientView, name: str, call_id: str
) -> types.CallToolResult:
    """The MCP result of ``outcome``: ``results_for("mcp", ...)``, the one conversion hosts
    use too; failed, declined and interrupted outcomes are errors. The output is its
    ``structured_content`` only when the advertised tool declares an object output."""
    structured = view.outputs.get(name)
    if structured is None:  # once per tool and view
        structured = view.outputs[name] = _declares_output(view.snapshot, name)
    [result] = results_for("mcp", [(ToolCall(call_id), outcome)])
    if not structured:
        result.pop("structuredContent", None)
    return types.CallToolResult.model_validate(result)


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


def _served(ctx: Any) -> ServedRequest:
    """The request a served call answers, for its span (MCP semconv, ``params._meta``)."""
    request = ctx.request
    session = request.headers.get("mcp-session-id") if request is not None else None
    request_id = ctx.request_id
    return ServedRequest(
        session,
        ctx.protocol_version,
        str(request_id) if request_id is not None else None,
        ctx.meta,
    )
