"""Serve a Location's live catalog as an MCP server (the SDK's low-level ``Server``).

Each request is served the view of the client that sent it (``sessions.ClientView``: its
session's snapshot under its principal's rules, kept while the catalog and the rules stay
the same). ``tools/list`` answers exactly the view's ``definitions_for("mcp")``
(``listing``); ``tools/call`` runs through ``run_tool_call`` against the same view
(validation, permission, limits, hooks, output contract, bounding), so what a client is
listed and what it may call cannot drift. Resources and prompts are served from the same view
(``resources``, ``prompts``). A call's tool reaches its client through a ``ServedPeer``
(``peer``): logs, progress, questions and samples; the files it returns stay readable
(``files``); for a 2026-07-28 client its questions and samples go through
``input_required`` round trips (``rounds``). When the catalog changes, or a pack says a
resource changed, every connected client hears it in its own protocol era (``notify``).

The capabilities say what is served: tools, resources (with subscriptions), prompts
(each announcing list changes), completions and logging.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from tooldeck import __version__
from tooldeck._peer import LOG_LEVELS, peer_of_resumed_calls
from tooldeck._tool import ContentPart, FilePart
from tooldeck.errors import PendingCallError
from tooldeck.host.boundary.boundary import run_tool_call
from tooldeck.host.boundary.outcome import ToolCallOutcome
from tooldeck.host.call.values import CallScope, ToolCall
from tooldeck.host.execution.snapshot import named_record
from tooldeck.host.permissions.call_rules import CallRules, applying
from tooldeck.host.permissions.request import PermissionRequest
from tooldeck.host.registry.record import record_of
from tooldeck.mcp.sdk import (
    INVALID_PARAMS,
    MCPError,
    NotificationOptions,
    Server,
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
from tooldeck.mcp.serve.files import CallFiles
from tooldeck.mcp.serve.listing import LIST_FRESH, ToolListing
from tooldeck.mcp.serve.logs import LogLevels
from tooldeck.mcp.serve.notify import Announcer, FollowingListen
from tooldeck.mcp.serve.paging import PAGE_SIZE
from tooldeck.mcp.serve.peer import ServedPeer, current_peer
from tooldeck.mcp.serve.prompts import PromptHandlers
from tooldeck.mcp.serve.resources import ResourceHandlers
from tooldeck.mcp.serve.rounds import (
    STOPPED_BEFORE,
    InputRounds,
    Round,
    RoundParams,
    carries_inputs,
    granted_in_place,
    stopped_for_input,
)
from tooldeck.mcp.serve.sessions import (
    PREFIX,
    ClientSessions,
    ClientView,
    client_key,
    principal_of,
)
from tooldeck.providers import results_for
from tooldeck.telemetry.propagation import ServedRequest, serving

if TYPE_CHECKING:
    from tooldeck import Host, Snapshot
    from tooldeck.mcp.serve.watch import Serving

log = logging.getLogger("tooldeck.mcp")

ANNOUNCED = NotificationOptions(prompts_changed=True, resources_changed=True, tools_changed=True)
"""Every list change is announced (``notify``), so every capability says ``listChanged``."""


class _AnnouncingServer(Server[Any]):
    """The SDK's server, whose capabilities say that list changes are announced on every
    transport (the SDK's HTTP app asks for the options without any)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> Any:
        return super().create_initialization_options(
            notification_options or ANNOUNCED, experimental_capabilities, extensions
        )


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
        self.announcer = Announcer()
        self.levels = LogLevels()
        self.files = CallFiles()
        self.rounds = InputRounds()
        """Seals a 2026-07-28 call's answers between rounds; ``command`` keys it by the
        bearer tokens, so replicas serving the same tokens accept each other's."""
        self.page_size = PAGE_SIZE
        self._calls = itertools.count(1)
        self.tool_listing = ToolListing(self)
        resources, prompts = ResourceHandlers(self), PromptHandlers(self)
        self.server: Server[Any] = _AnnouncingServer(
            "tooldeck",
            version=__version__,
            on_list_tools=self.tool_listing.list,
            on_call_tool=self._call_tool,
            on_list_resources=resources.list,
            on_list_resource_templates=resources.templates,
            on_read_resource=resources.read,
            on_subscribe_resource=resources.subscribe,
            on_unsubscribe_resource=resources.unsubscribe,
            on_list_prompts=prompts.list,
            on_get_prompt=prompts.get,
            on_completion=prompts.complete,
            on_subscriptions_listen=FollowingListen(self.announcer),
            cache_hints={"tools/list": LIST_FRESH},
            get_tool_input_schema=self.tool_listing.input_schema,
        )
        # Added, not passed: the constructor warns that logging leaves the 2026-07-28 era.
        self.server.add_request_handler(
            "logging/setLevel", types.SetLevelRequestParams, self._set_level
        )
        self.server.middleware.append(self.announcer.remember)
        serving.each_host(self._serve_host)
        self.sessions.on_end.append(self._forget)

    def _serve_host(self, host: Host) -> None:
        """A host serves from now on (at start, and after each config change): its packs'
        resource updates reach the subscribers, and it follows what they subscribed to."""
        host.location.on_resource_updated(self.resource_updated)
        self.announcer.follow_with(host.location.follow_resource)

    # -- what the handlers share --------------------------------------------------------------
    def peer(self, ctx: Any, key: str | None, what: str, round_: Round | None = None) -> ServedPeer:
        """The peer of one request of client ``key``: its logs at that client's level,
        its questions answered from ``round_`` (a 2026-07-28 call's)."""
        return ServedPeer(ctx, lambda: self.levels.of(key), what, round_)

    def round_of(self, ctx: Any, params: RoundParams) -> Round | str | None:
        """The round a request of a 2026-07-28 client runs in (its earlier answers, if it
        carries some; a string says why those are refused); ``None`` in older eras."""
        if ctx.session.protocol_version != MODERN:
            return None
        if not carries_inputs(params):
            return Round()
        return self.rounds.resumed(params, principal_of(ctx.request)) or Round()

    def owner(self, request: Any) -> str:
        """Who a served call's files belong to: its session, or its principal if stateless."""
        key = client_key(request)
        return key if key is not None else f"{PREFIX}principal:{principal_of(request)}"

    def under(self, rules: CallRules | None) -> AbstractContextManager[None]:
        return _under(rules)

    def declined_text(self, requests: list[PermissionRequest]) -> str:
        return self._asker.declined_text(requests)

    def _forget(self, key: str) -> None:
        """A client session ended: its level and its calls' files go with it."""
        self.levels.forget(key)
        self.files.forget(key)

    async def _set_level(self, ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
        if params.level not in LOG_LEVELS:
            raise MCPError(INVALID_PARAMS, f"Unknown level {params.level!r}")
        self.levels.set(client_key(ctx.request), params.level)
        return types.EmptyResult()

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
        if named_record(view.snapshot, params.name) is None:  # the spec: a protocol error
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {params.name}")
        round_ = self.round_of(ctx, params)
        if isinstance(round_, str):
            return _error(round_)
        call = ToolCall(f"mcp-{next(self._calls)}", params.name, params.arguments or {})
        peer = self.peer(ctx, client_key(ctx.request), params.name, round_)
        scope = view.snapshot.scope(session_id, call.id, via="served", peer=peer)
        try:
            with current_peer(peer):
                if view.snapshot.call_hooks is None:  # no ``tool_call`` hook: no span reads it
                    return await self._run(ctx, params, view, call, scope)
                with serving(_served(ctx)):  # what the call's span records and continues
                    return await self._run(ctx, params, view, call, scope)
        finally:
            await peer.outbox.flush()  # the client hears every log before the result
            peer.answered = True

    async def _run(
        self,
        ctx: Any,
        params: types.CallToolRequestParams,
        view: ClientView,
        call: ToolCall,
        scope: CallScope,
    ) -> types.CallToolResult | types.InputRequiredResult:
        peer = scope.peer if isinstance(scope.peer, ServedPeer) else None
        progress = peer.progress if peer is not None else None
        round_ = peer.round if peer is not None else None
        with _under(view.rules):
            if elicits_by_round_trip(ctx):
                return await self._round_trip(ctx, params, view, call, scope)
            with current_request(ctx) as asked, granted_in_place(round_):
                outcome = await run_tool_call(view.snapshot, call, scope=scope, progress=progress)
        if round_ is not None and round_.needed is not None:
            return self.rounds.input_required(round_, params, principal_of(ctx.request))
        if outcome.status == "declined" and asked.unanswerable:
            name = view.rules.name if view.rules is not None else None
            return _error(self._asker.declined_text(asked.unanswerable, name, view.host.trust))
        if _has_files(outcome.content):  # the usual result holds none: files.py waits
            self.files.keep(self.owner(ctx.request), call.id, outcome.content)
        return _result(outcome, view, params.name, call.id)

    async def _round_trip(
        self,
        ctx: Any,
        params: types.CallToolRequestParams,
        view: ClientView,
        call: ToolCall,
        scope: CallScope,
    ) -> types.CallToolResult | types.InputRequiredResult:
        """A 2026-07-28 call: asks are deferred, and a retry carrying the answer resumes
        the pending call it names (see ``asking``); the tool's own questions stop the
        run and are asked the same way (``rounds``). A resumed call runs with this
        call's peer, so its questions are answered from the same round."""
        owner, principal = self.owner(ctx.request), principal_of(ctx.request)
        peer = scope.peer if isinstance(scope.peer, ServedPeer) else None
        round_ = peer.round if peer is not None else None
        answer = answered(params)
        if answer is None:
            progress = peer.progress if peer is not None else None
            with granted_in_place(round_):
                outcome = await run_tool_call(
                    view.snapshot, call, scope=scope, on_ask="defer", progress=progress
                )
        else:
            try:
                with peer_of_resumed_calls(peer), granted_in_place(round_):
                    outcome = await view.host.resume(*answer)
            except PendingCallError as exc:
                return _error(str(exc))
        if outcome.pending is not None:
            asking = input_required(outcome.pending)
            return self.rounds.carried_by(asking, round_, params, principal)
        if round_ is not None and round_.needed is not None:
            return self.rounds.input_required(round_, params, principal)
        if stopped_for_input(outcome):  # a resume's record replayed: the stop, not a result
            return _error(STOPPED_BEFORE)
        if _has_files(outcome.content):
            self.files.keep(owner, call.id, outcome.content)
        return _result(outcome, view, params.name, call.id)

    # -- change notification ------------------------------------------------------------------
    def resource_updated(self, uri: str) -> None:
        """A pack said ``uri`` changed (``Location.resource_updated``, any thread): its
        subscribers hear it."""
        self.announcer.updated_soon(uri)

    async def tools_changed(self) -> None:
        """Tell every connected client, in its era, that the tool list changed."""
        await self.announcer.tools_changed()

    async def catalog_changed(self, before: Snapshot, after: Snapshot) -> None:
        """Tell the clients what changed from ``before`` to ``after`` (``notify``)."""
        await self.announcer.catalog_changed(before, after)


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


def _has_files(content: Sequence[ContentPart]) -> bool:
    """Whether a result holds a file its client may read back (``files.py``)."""
    return any(isinstance(part, FilePart) for part in content)
