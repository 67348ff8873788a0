"""A real MCP server (the SDK's ``MCPServer``) whose tools report how they overlapped.

    python overlap_server.py

``work``, ``other``, ``solo`` and ``free`` sleep; each returns how many other calls (of
any of them) ran at some moment while it did. ``cancelled`` says how many were
cancelled by their client.
"""

from __future__ import annotations

import itertools

import anyio
from mcp.server.mcpserver import MCPServer

server = MCPServer("overlap", log_level="WARNING")
_ids = itertools.count()
_active: set[int] = set()
_overlaps: dict[int, set[int]] = {}
_cancelled: list[int] = []


async def _sleep_noting_overlaps(seconds: float) -> int:
    me = next(_ids)
    _overlaps[me] = set(_active)
    for other in _active:
        _overlaps[other].add(me)
    _active.add(me)
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        _cancelled.append(me)
        raise
    finally:
        _active.discard(me)
    return len(_overlaps.pop(me))


@server.tool()
async def work(seconds: float) -> int:
    """Sleep; the number of other calls that overlapped this one."""
    return await _sleep_noting_overlaps(seconds)


@server.tool()
async def other(seconds: float) -> int:
    """Sleep; the number of other calls that overlapped this one."""
    return await _sleep_noting_overlaps(seconds)


@server.tool()
async def solo(seconds: float) -> int:
    """Sleep; the number of other calls that overlapped this one."""
    return await _sleep_noting_overlaps(seconds)


@server.tool()
async def free(seconds: float) -> int:
    """Sleep; the number of other calls that overlapped this one."""
    return await _sleep_noting_overlaps(seconds)


@server.tool()
def cancelled() -> int:
    """How many calls were cancelled by their client."""
    return len(_cancelled)


if __name__ == "__main__":
    server.run()
