"""Mounting MCP servers: which tools of the servers in ``[mcp.servers]`` a catalog holds,
under which names, mounted natively or for code mode, from a fresh or a kept listing,
and how a call of one reaches its server and comes back as a ``ToolResult`` (or a
failure naming the server). The whole folder is one registration, the ``mcp`` layer."""
