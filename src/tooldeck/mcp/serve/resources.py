"""``resources/*`` of ``tooldeck mcp serve``: list, templates, read, subscribe.

Each request is served its client's view, like a tool call (``sessions``): the view's
snapshot decides what is listed and found, its rules what a read may do. A read asserts
the resource's permission in the client's session, under its principal's rules, and
asks the client through elicitation like a call does. ``tooldeck://calls/...`` URIs are
the files the client's own calls returned (``files``). Errors are protocol errors, as
the spec asks: an unknown URI is ``-32002``, a refused or failed read ``-32603`` with
the reason.
"""

from __future__ import annotations

import builtins
import itertools
import logging
from typing import TYPE_CHECKING, Any

from tooldeck._resource import Resource
from tooldeck._tool import ToolFailure
from tooldeck.errors import PermissionBlocked, PermissionCorrected, PermissionDeclined
from tooldeck.host.features import reading
from tooldeck.host.registry.features import ResourceEntry
from tooldeck.mcp.sdk import INTERNAL_ERROR, INVALID_PARAMS, RESOURCE_NOT_FOUND, MCPError, types
from tooldeck.mcp.serve.asking import current_request
from tooldeck.mcp.serve.content import file_contents, resource_contents
from tooldeck.mcp.serve.files import SCHEME
from tooldeck.mcp.serve.paging import page
from tooldeck.mcp.serve.peer import current_peer
from tooldeck.mcp.serve.sessions import client_key, principal_of

if TYPE_CHECKING:
    from tooldeck.mcp.serve.server import CatalogServer

log = logging.getLogger("tooldeck.mcp")


class ResourceHandlers:
    """The resource requests of ``server``'s clients."""

    def __init__(self, server: CatalogServer) -> None:
        self._server = server
        self._reads = itertools.count(1)

    async def list(self, ctx: Any, params: Any) -> types.ListResourcesResult:
        entries = self._visible(ctx, Resource)
        chosen, cursor = page(entries, lambda e: e.uri, _cursor(params), self._server.page_size)
        return types.ListResourcesResult(
            resources=[_listed(e.resource) for e in chosen], next_cursor=cursor
        )

    async def templates(self, ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        entries = [e for e in self._visible(ctx, None) if not isinstance(e.resource, Resource)]
        chosen, cursor = page(entries, lambda e: e.uri, _cursor(params), self._server.page_size)
        return types.ListResourceTemplatesResult(
            resource_templates=[_template(e.resource) for e in chosen], next_cursor=cursor
        )

    async def read(self, ctx: Any, params: types.ReadResourceRequestParams) -> Any:
        uri = str(params.uri)
        request = ctx.request
        key = client_key(request)
        server = self._server
        if uri.startswith(SCHEME):
            part = server.files.get(server.owner(request), uri)
            if part is None:
                raise MCPError(RESOURCE_NOT_FOUND, f"Resource not found: {uri} (no such file here)")
            return types.ReadResourceResult(contents=[file_contents(uri, part)])
        principal = principal_of(request)
        view = server.sessions.view(key, principal)
        session_id = key if key is not None else server.sessions.stateless_key()
        read_id = f"mcp-read-{next(self._reads)}"
        round_ = server.round_of(ctx, params)
        if isinstance(round_, str):  # the client's state is not this request's
            raise MCPError(INVALID_PARAMS, f"Reading {uri} failed: {round_}")
        peer = server.peer(ctx, key, f"resource {uri}", round_)
        scope = view.snapshot.scope(session_id, read_id, via="served", peer=peer)
        with server.under(view.rules), current_request(ctx, round_) as asked, current_peer(peer):
            try:
                contents = await reading.read(view.snapshot, view.permissions, uri, scope, read_id)
            except reading.ResourceNotFound:
                raise MCPError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}") from None
            except PermissionDeclined:
                why = server.declined_text(asked.unanswerable) if asked.unanswerable else None
                raise MCPError(INTERNAL_ERROR, why or f"Reading {uri} was declined.") from None
            except (PermissionBlocked, PermissionCorrected, ToolFailure) as exc:
                if round_ is not None and round_.needed is not None:  # asked in a round
                    return server.rounds.input_required(round_, params, principal)
                raise MCPError(INTERNAL_ERROR, f"Reading {uri} failed: {exc}") from None
            finally:
                await peer.outbox.flush()
        if round_ is not None and round_.needed is not None:
            return server.rounds.input_required(round_, params, principal)
        every = (contents, *contents.more)
        return types.ReadResourceResult(contents=[resource_contents(each) for each in every])

    async def subscribe(self, ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
        self._server.announcer.subscribe(ctx, str(params.uri))
        return types.EmptyResult()

    async def unsubscribe(
        self, ctx: Any, params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        self._server.announcer.unsubscribe(ctx, str(params.uri))
        return types.EmptyResult()

    def _visible(self, ctx: Any, kind: type | None) -> builtins.list[ResourceEntry]:
        request = ctx.request
        key = client_key(request)
        if key is not None:
            self._server.sessions.touch(key)
        view = self._server.sessions.view(key, principal_of(request))
        entries = reading.visible_resources(view.snapshot, view.permissions)
        return entries if kind is None else [e for e in entries if isinstance(e.resource, kind)]


def _cursor(params: Any) -> str | None:
    return getattr(params, "cursor", None) if params is not None else None


def _listed(resource: Any) -> types.Resource:
    return types.Resource(
        uri=resource.uri,
        name=resource.name,
        description=resource.description,
        mime_type=resource.mime_type,
    )


def _template(template: Any) -> types.ResourceTemplate:
    return types.ResourceTemplate(
        uri_template=template.uri_template,
        name=template.name,
        description=template.description,
        mime_type=template.mime_type,
    )
