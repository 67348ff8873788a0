"""A real MCP server for the guard's tests: ``leak`` returns the server's secret."""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("vault", log_level="WARNING")


@server.tool()
def leak() -> str:
    """The server's secret, as a careless tool would return it."""
    return "the key is " + os.environ.get("VAULT_SECRET", "")


if __name__ == "__main__":
    server.run()
