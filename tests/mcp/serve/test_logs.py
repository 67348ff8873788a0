"""Log levels: each client's own, ``info`` until set; Python levels mapped to MCP's."""

from __future__ import annotations

import logging

from tooldeck.mcp.serve.logs import LogLevels, _mcp_level


def test_each_client_has_its_level():
    levels = LogLevels()
    levels.set("mcp-a", "error")
    assert (levels.of("mcp-a"), levels.of("mcp-b")) == ("error", "info")
    levels.forget("mcp-a")
    assert levels.of("mcp-a") == "info"


def test_python_levels_map_to_mcp_levels():
    assert [_mcp_level(n) for n in (5, logging.DEBUG, logging.INFO, 25, logging.WARNING)] == [
        "debug",
        "debug",
        "info",
        "notice",
        "warning",
    ]
    assert [_mcp_level(n) for n in (logging.ERROR, logging.CRITICAL)] == ["error", "critical"]
