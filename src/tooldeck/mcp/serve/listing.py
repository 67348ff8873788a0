"""``tools/list`` of ``tooldeck mcp serve``, and the input schemas it advertised.

A client is listed exactly its view's ``definitions_for("mcp")`` (``sessions``), as MCP
tools converted once per definitions tuple: the sessions of one catalog share it. The
same advertised schemas answer the SDK's ``Mcp-Param-*`` header check of a 2026-07-28
call (``input_schema``), so that check never lists the catalog again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tooldeck.host.schema.frozen import thaw
from tooldeck.mcp.sdk import CacheHint, types
from tooldeck.mcp.serve.paging import page
from tooldeck.mcp.serve.sessions import client_key, current_principal, principal_of

if TYPE_CHECKING:
    from tooldeck import Snapshot
    from tooldeck.mcp.serve.server import CatalogServer

Listing = tuple[types.Tool, ...]
LIST_FRESH = CacheHint(ttl_ms=1000, scope="private")
"""How long a 2026-07-28 client may reuse a ``tools/list`` answer: changes are noticed
about once a second anyway (``watch.POLL_S``), and a change evicts it at once through
``subscriptions/listen``. Without it the SDK's client lists again before every call to
check output schemas. ``private``: each principal is listed its own tools."""
KEPT = 64
"""Definitions tuples whose conversion is kept; past it the memo starts again."""


class ToolListing:
    """The ``tools/list`` requests of ``server``'s clients, and the schemas listed."""

    def __init__(self, server: CatalogServer) -> None:
        self._server = server
        # MCP tools per definitions tuple (one per snapshot; the sessions of one catalog
        # share it)
        self._listed: dict[int, tuple[object, Listing]] = {}
        self._schemas: dict[int, tuple[object, dict[str, Any]]] = {}

    async def list(self, ctx: Any, params: Any) -> types.ListToolsResult:
        server = self._server
        request = ctx.request
        key = client_key(request)
        if key is not None:
            server.sessions.touch(key)
        view = server.sessions.view(key, principal_of(request))
        listing = self.listing(view.snapshot)
        cursor = getattr(params, "cursor", None) if params is not None else None
        if cursor is None and len(listing) <= server.page_size:
            return types.ListToolsResult(tools=list(listing))
        tools, after = page(listing, lambda t: t.name, cursor, server.page_size)
        return types.ListToolsResult(tools=tools, next_cursor=after)

    def listing(self, snapshot: Snapshot) -> Listing:
        """``snapshot``'s definitions as MCP tools, converted once per definitions tuple."""
        definitions = snapshot.definitions_for("mcp")
        listed = self._listed.get(id(definitions))
        if listed is None or listed[0] is not definitions:
            if len(self._listed) >= KEPT:
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
        snapshot = self._server.sessions.view(None, current_principal()).snapshot
        definitions = snapshot.definitions_for("mcp")
        schemas = self._schemas.get(id(definitions))
        if schemas is None or schemas[0] is not definitions:
            if len(self._schemas) >= KEPT:
                self._schemas.clear()
            schemas = (definitions, {d["name"]: thaw(d["inputSchema"]) for d in definitions})
            self._schemas[id(definitions)] = schemas
        return schemas[1].get(name)


def _tool(definition: Any) -> types.Tool:
    output = definition.get("outputSchema")
    return types.Tool(
        name=definition["name"],
        description=definition["description"],
        input_schema=thaw(definition["inputSchema"]),
        output_schema=thaw(output) if output is not None else None,
    )
