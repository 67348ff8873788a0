"""MCP: mount MCP servers' tools into a catalog, and serve a catalog as an MCP server.

Everything here needs the optional ``mcp`` SDK (``pip install 'tooldeck[mcp]'``), which
costs over a second to import; so does nothing at import, and each module that talks to
the SDK imports it only when a server is configured or ``tooldeck mcp serve`` runs.

Client side, one module per job: ``specs`` (config → connection specs), ``loop`` (the
Location's background event-loop thread), ``connection`` (one client session per
server), ``failures`` (how a server failed, in one line), ``results`` (MCP results →
tooldeck results), ``cache`` (each server's last good listing, kept on disk),
``executors`` (servers that run code, native by default), ``layer`` (the one stable
transform and the report rows). Server side: ``server`` (the MCP handlers over a live
snapshot), ``asking`` (permission asks as elicitation), ``watch`` (catalog changes),
``serve`` (stdio and HTTP transports).
"""
