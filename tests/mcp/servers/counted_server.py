"""A real MCP server (the SDK's ``MCPServer``) that records each of its starts.

    python counted_server.py STARTS [--tools a,b] [--ttl-ms N]

Appends one line (its pid) to the file STARTS as it starts, so a test can tell whether
a command started it. Lists one tool per name in ``--tools`` (default ``echo``;
``@FILE``: the names in FILE, read at each start), each answering ``<name>:<text>``;
``--ttl-ms N`` declares that its tool listing stays fresh for N milliseconds (the
2026-07-28 caching hint).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import MCPServer


def answering(name: str) -> Callable[[str], str]:
    def tool(text: str) -> str:
        return f"{name}:{text}"

    return tool


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("starts")
    parser.add_argument("--tools", default="echo")
    parser.add_argument("--ttl-ms", type=int)
    args = parser.parse_args()
    with open(args.starts, "a") as starts:
        starts.write(f"{os.getpid()}\n")
    hints = {"tools/list": CacheHint(ttl_ms=args.ttl_ms)} if args.ttl_ms is not None else None
    server = MCPServer("counted", log_level="WARNING", cache_hints=hints)
    names = args.tools
    if names.startswith("@"):  # the names are read from a file at each start
        with open(names[1:]) as file:
            names = file.read().strip()
    for name in names.split(","):
        server.add_tool(answering(name), name=name, description=f"Answer {name}:TEXT.")
    server.run()


if __name__ == "__main__":
    main()
