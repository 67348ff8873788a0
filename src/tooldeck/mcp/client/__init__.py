"""MCP servers mounted into a catalog: config to specs, the background loop, one
connection per server, kept listings, code-running servers and the one transform."""
