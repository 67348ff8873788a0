"""MCP, both ways: ``client/`` mounts MCP servers' tools into a catalog, ``serve/`` serves
a catalog as an MCP server (``tooldeck mcp serve``).

Everything here needs the optional ``mcp`` SDK (``pip install 'tooldeck[mcp]'``), which
costs over a second to import; so nothing happens at import, and only a configured
server or ``tooldeck mcp serve`` imports it, through ``sdk.py``, the one module that
imports the SDK. The two sides share nothing else: ``client/`` never imports ``serve/``,
and ``serve/`` needs nothing of ``client/``.
"""
