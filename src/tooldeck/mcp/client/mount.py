"""One listed MCP tool → one tooldeck ``Tool`` whose executor calls the server.

The tool keeps the server's name (normalized by the registry), description and schemas
as listed, in the server's namespace, so its effective name is ``<server>_<tool>``. A
tool whose name already starts with ``<server>_`` (a git server's ``git_status``) keeps
that prefix once: its local name drops it (``status``), so the effective name is
``git_status``, never ``git_git_status``; the server is still called with its own name.
Validity (names, schemas) is the registry's job: an invalid tool is refused by
``editor.add`` with a diagnostic naming the server's namespace and the tool.

A call validates its arguments at the execution boundary first, then asserts the
permission action (the effective name: rules decide, ``ask`` goes to the asker), then
crosses to the Location's loop where the connection lives; the server's progress, logs
and questions during the call come back to it (``server_requests``).

Arguments are validated against the server's input schema as the server wrote it. The
registry closes an object schema that leaves ``additionalProperties`` unsaid (so a
model is told exactly which keys exist), and drops undeclared keys from what a tool
receives; for a mounted tool the server is the judge of its own arguments, so every
object the registry would close is marked open explicitly (``additionalProperties:
true``, which is what leaving it unsaid means) and what the caller sent reaches the
server unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tooldeck._tool import AnyTool, Tool, ToolContext, ToolResult
from tooldeck.host.registry.names import effective_name, normalize
from tooldeck.mcp.client.calls import call_tool
from tooldeck.mcp.client.executors import default_codemode
from tooldeck.mcp.client.results import tool_result
from tooldeck.mcp.client.server_requests import Caller
from tooldeck.telemetry.propagation import mounted_call, mounted_session

if TYPE_CHECKING:
    from tooldeck.mcp.client.connection import Connection
    from tooldeck.mcp.client.loop import LoopThread
    from tooldeck.mcp.sdk import types


class RemoteCall:
    """The executor of a mounted tool (a class, so the report and tests can see whose)."""

    __slots__ = ("action", "connection", "declares_output", "loop", "remote_name")

    def __init__(
        self,
        connection: Connection,
        loop: LoopThread,
        remote_name: str,
        action: str,
        declares_output: bool,
    ) -> None:
        self.connection = connection
        self.loop = loop
        self.remote_name = remote_name
        self.action = action
        self.declares_output = declares_output

    async def __call__(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        await ctx.permission.assert_(self.action, [])
        # The current trace context in ``_meta``, so the server's spans join the call's
        # trace whether or not the SDK's own spans are on (``tooldeck.telemetry``).
        meta = mounted_call(self.connection.name, self.connection.protocol_version)
        try:
            result = await self.loop.run(
                call_tool, self.connection, self.remote_name, dict(arguments), meta, Caller(ctx)
            )
        finally:  # known once connected: a deferred server starts with its first call
            if self.connection.session_id is not None:
                mounted_session(self.connection.session_id)
        return tool_result(
            result,
            server=self.connection.name,
            tool=self.remote_name,
            declares_output=self.declares_output,
        )


Mounted = dict[str, tuple["types.Tool", AnyTool]]
"""A server's mounted tools by effective name, each with the listing it was built from."""


def mounted_tools(
    connection: Connection,
    loop: LoopThread,
    listed: tuple[types.Tool, ...],
    previous: Mounted,
) -> tuple[Mounted, tuple[str, ...]]:
    """The tooldeck tools for a server's listing, and notes on what was left out.

    A tool listed exactly as before keeps its ``Tool`` object, and with it everything the
    registry derived from it once (validity, schemas, validators, definitions), so a
    list change costs what changed rather than the whole listing. Two listed tools with
    the same effective name (a duplicate, or names that differ only in characters the
    registry normalizes) mount the first one.
    """
    spec = connection.spec
    codemode = default_codemode(spec.config)  # a code-executing server: native
    tools: Mounted = {}
    notes: list[str] = []
    for listed_tool in listed:
        name = listed_tool.name
        local = local_name(name, spec.namespace) if isinstance(name, str) else name
        effective = effective_name(local, spec.namespace) if isinstance(name, str) else repr(name)
        if effective in tools:
            notes.append(
                f"tool {name!r} is listed more than once (as {effective!r}); "
                "the first one is mounted"
            )
            continue
        before = previous.get(effective)
        if before is not None and before[0] == listed_tool:
            tools[effective] = before
        else:
            tools[effective] = (
                listed_tool,
                _tool(connection, loop, listed_tool, local, effective, codemode),
            )
    return tools, tuple(notes)


def local_name(name: str, namespace: str) -> str:
    """``name`` without a leading ``<namespace>_`` (as normalized), when something follows
    it: the server's prefix is the namespace already."""
    prefix = f"{namespace.replace('.', '_')}_"
    normalized = normalize(name)
    if normalized.startswith(prefix) and len(normalized) > len(prefix):
        return name[len(prefix) :]
    return name


def _tool(
    connection: Connection,
    loop: LoopThread,
    listed: types.Tool,
    local: str,
    effective: str,
    codemode: bool,
) -> AnyTool:
    description = (listed.description or "").strip() or (listed.title or "").strip()
    if not description:
        description = f"Tool {listed.name} of MCP server {connection.name}."
    output = listed.output_schema
    execute = RemoteCall(connection, loop, listed.name, effective, output is not None)
    return Tool(
        name=local,
        description=description,
        input=as_written(listed.input_schema),
        output=output,
        namespace=connection.spec.namespace,
        codemode=codemode,
        defer_loading=bool(connection.spec.config.defer_loading),
        execute=execute,
    )


# Keywords whose subschemas the registry closes (``host/schema/derive.py``: the instance's
# own parts; never below ``anyOf``/``oneOf``/``allOf``/``not``/``if``, which it leaves as
# they are), and which of them map names to schemas or hold lists of them.
_STRUCTURAL: tuple[str, ...] = ("properties", "patternProperties", "items", "prefixItems")
_STRUCTURAL += ("additionalProperties", "additionalItems", "$defs", "definitions")
_NAMED = ("properties", "patternProperties", "$defs", "definitions")
_OPEN_SAID = ("additionalProperties", "patternProperties", "unevaluatedProperties")


def as_written(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` with every object the registry would close marked open, as leaving
    ``additionalProperties`` unsaid means in JSON Schema: validation then accepts what
    the server accepts, and undeclared keys reach it."""
    return _opened(schema)  # type: ignore[no-any-return]


def _opened(node: Any) -> Any:
    if not isinstance(node, Mapping):
        return node
    out = {key: _opened_part(key, value) for key, value in node.items()}
    if "properties" in out and not any(key in out for key in _OPEN_SAID):
        out["additionalProperties"] = True
    return out


def _opened_part(key: str, value: Any) -> Any:
    if key not in _STRUCTURAL:
        return value
    if key in _NAMED and isinstance(value, Mapping):
        return {name: _opened(part) for name, part in value.items()}
    if isinstance(value, list):
        return [_opened(part) for part in value] if key in ("items", "prefixItems") else value
    return _opened(value)
