"""A catalog served as an MCP server (``tooldeck mcp serve``): the handlers over a live
snapshot, client sessions, principals and their tokens, asks as elicitation, deadlines,
refusals and the stdio and HTTP transports."""
