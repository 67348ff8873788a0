"""Attribute, span and metric names: the OpenTelemetry GenAI and MCP semantic conventions,
and tooldeck's own under ``tooldeck.*`` (the list docs/telemetry.md shows)."""

from __future__ import annotations

INSTRUMENTATION = "tooldeck"
"""The tracer's and meter's instrumentation scope name."""

# GenAI semantic conventions (execute_tool spans)
OPERATION = "gen_ai.operation.name"
EXECUTE_TOOL = "execute_tool"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_DESCRIPTION = "gen_ai.tool.description"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
ERROR_TYPE = "error.type"
DURATION = "gen_ai.execute_tool.duration"

# MCP semantic conventions
MCP_METHOD = "mcp.method.name"
MCP_SESSION = "mcp.session.id"
MCP_PROTOCOL = "mcp.protocol.version"
JSONRPC_ID = "jsonrpc.request.id"
TOOLS_CALL = "tools/call"

# tooldeck's own
SOURCE = "tooldeck.tool.source"
OVERRIDES = "tooldeck.tool.overrides"
VIA = "tooldeck.call.via"
PARENT_ID = "tooldeck.call.parent_id"
SESSION = "tooldeck.session.id"
STATUS = "tooldeck.outcome.status"
MCP_SERVER = "tooldeck.mcp.server"
ASK_EVENT = "tooldeck.permission.ask"
REPLY_EVENT = "tooldeck.permission.reply"
ASK_ACTION = "tooldeck.permission.action"
ASK_RESOURCES = "tooldeck.permission.resources"
REPLY = "tooldeck.permission.reply"
REPLIED_BY = "tooldeck.permission.replied_by"
PLUGIN = "tooldeck.plugin.name"
PLUGIN_LAYER = "tooldeck.plugin.layer"
PLUGIN_STATUS = "tooldeck.plugin.status"
LOCATION = "tooldeck.location"

DESCRIPTION_LIMIT = 1024
"""Characters of a tool's description kept on its span (``execute``'s lists the catalog)."""
