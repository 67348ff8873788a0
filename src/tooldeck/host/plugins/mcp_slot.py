"""The MCP layer's place in a host: ``Host.open``'s MCP options, and the layer itself
when the config names servers.

The layer mounts every configured server as one plugin (``mcp``, between the built-ins
and the entry points); its members, one per server, are selected by name like plugins.
Without servers nothing here loads ``tooldeck.mcp`` or the SDK.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from tooldeck.host.plugins.discovery import member_candidate

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location
    from tooldeck.host.plugins.selection import Selection
    from tooldeck.host.service import ToolService
    from tooldeck.mcp.client.oauth.signin import Authorizer


class McpOptions(NamedTuple):
    """``Host.open``'s MCP arguments: listings, who hears of starts, who signs people in."""

    listings: Literal["cached", "fresh"]
    on_start: Callable[[str], Callable[[], None]] | None
    authorizer: Authorizer | None = None


def mcp_layer(
    location: Location, service: ToolService, selection: Selection, options: McpOptions
) -> Any:
    """The MCP layer when the config names servers (only then is ``tooldeck.mcp`` loaded)."""
    if not location.config.mcp.servers:
        return None
    from tooldeck.mcp.client.layer import McpLayer

    def excluded(name: str) -> str | None:
        server = member_candidate(name, "mcp")  # a server has no hooks: the project may
        return selection.excluded(server) or selection.unwanted(server)

    return McpLayer(
        location,
        service,
        excluded,
        options.listings,
        options.on_start,
        options.authorizer,
    )
