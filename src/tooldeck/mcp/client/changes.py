"""Which of a server's lists changed: the signals of both protocol eras, debounced.

A handshake-era server sends ``notifications/{tools,resources,prompts}/list_changed``
(they reach the connection's message handler); a 2026-07-28 server sends the same as
events on a ``subscriptions/listen`` stream, asked only for the kinds it offers. Either
marks that kind stale. ``settled()`` waits for a signal, then for ``DEBOUNCE_S`` without
another (at most ``MAX_DELAY_S``), so a burst costs one listing of the kinds it named.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import anyio

from tooldeck.mcp.client.features import KINDS, PROMPTS, RESOURCES, TOOLS, offered

if TYPE_CHECKING:
    from tooldeck.mcp.sdk import Client

log = logging.getLogger("tooldeck.mcp")

DEBOUNCE_S = 0.1
"""The quiet time after a list-changed signal before the server is listed again."""
MAX_DELAY_S = 1.0
"""The longest a listing waits for a burst of signals to end."""


class Stale:
    """The kinds a server said changed since they were last listed."""

    def __init__(self) -> None:
        self._signal = anyio.Event()
        self._kinds: set[str] = set()

    def mark(self, kind: str) -> None:
        self._kinds.add(kind)
        self._signal.set()

    def noticed(self, message: Any) -> bool:
        """Mark the kind a handshake-era notification names; False for other messages."""
        from tooldeck.mcp.sdk import types

        if isinstance(message, types.ToolListChangedNotification):
            self.mark(TOOLS)
        elif isinstance(message, types.ResourceListChangedNotification):
            self.mark(RESOURCES)
        elif isinstance(message, types.PromptListChangedNotification):
            self.mark(PROMPTS)
        else:
            return False
        return True

    async def settled(self) -> frozenset[str]:
        """Wait for a burst of signals to end; the kinds it named (all when unsaid)."""
        await self._signal.wait()
        # Wait for a quiet moment (a burst costs one listing), but not forever.
        deadline = anyio.current_time() + MAX_DELAY_S
        while self._signal.is_set() and anyio.current_time() < deadline:
            self._signal = anyio.Event()
            await anyio.sleep(DEBOUNCE_S)
        kinds, self._kinds = frozenset(self._kinds) or KINDS, set()
        return kinds


async def listen(client: Client, stale: Stale, server: str) -> None:
    """Follow a 2026-07-28 server's ``subscriptions/listen`` stream until it ends."""
    from tooldeck.mcp.sdk import PromptsListChanged, ResourcesListChanged

    offers = offered(client.server_capabilities)
    try:
        async with client.listen(
            tools_list_changed=True,
            resources_list_changed=RESOURCES in offers,
            prompts_list_changed=PROMPTS in offers,
        ) as subscription:
            async for event in subscription:
                if isinstance(event, ResourcesListChanged):
                    stale.mark(RESOURCES)
                elif isinstance(event, PromptsListChanged):
                    stale.mark(PROMPTS)
                else:
                    stale.mark(TOOLS)
    except Exception as exc:  # the stream is an extra: calls and the report go on
        log.debug("MCP server %r: subscriptions/listen ended: %s", server, exc)
