"""Serving a catalog over MCP (``tooldeck mcp serve``): who a request is (its bearer
token's principal), what each client is listed and may call (its session's view under
its principal's rules, kept until the catalog or the rules change), how its asks reach
it (elicitation, in its protocol era), and which limits bound the server. It needs
nothing of ``client/``."""
