"""MCP: mount MCP servers' tools into a catalog, and serve a catalog as an MCP server.

Everything here needs the optional ``mcp`` SDK (``pip install 'tooldeck[mcp]'``), which
costs over a second to import; so does nothing at import, and each module that talks to
the SDK imports it only when a server is configured or ``tooldeck mcp serve`` runs.

``client/`` mounts servers (specs, the background loop, connections, kept listings,
the one transform); ``serve/`` serves a catalog (handlers, sessions, principals, asks,
transports). ``sdk.py`` is the only module importing the SDK; ``results.py`` turns MCP
results into tooldeck's, for both sides.
"""
