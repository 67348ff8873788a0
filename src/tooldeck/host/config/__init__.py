"""Config: what a Location's settings are (``config.py``, the model; ``mcp_keys.py``: which
keys of an MCP server's section go together), how they are found, read, merged and
checked (``config_files.py``), and where a project keeps its paths
(``paths.py``: its local plugins, and a path argument judged against its root).

Nothing here asks, saves or opens a store: every other host folder may read a config,
and this one reads only errors and schemas.
"""
