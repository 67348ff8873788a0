"""Resources: data a pack offers for reading, registered beside its tools.

A ``Resource`` is one URI; a ``ResourceTemplate`` a family of them (``notes://{name}``),
read with the values its URI gave. Both are frozen and never validate themselves when
built: ``editor.add_resource`` does, like ``add`` does for tools, and refuses an
invalid one with a diagnostic.

Reading is an action (permission ``resource`` by default, on the URI read): a host or
``tooldeck mcp serve`` asks before a read the rules do not allow.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tooldeck._public import public

if TYPE_CHECKING:
    from tooldeck._tool import ToolContext

READ_ACTION = "resource"
"""The permission action a read asserts unless the resource names its own."""


@public
@dataclass(frozen=True, slots=True, eq=False)
class Resource:
    """One readable URI: ``read(ctx)`` returns its text (``str``, served as ``text``) or
    bytes (served as a base64 ``blob``).

    ``mime_type`` defaults to ``text/plain`` for text and ``application/octet-stream``
    for bytes. ``permission`` is the action a read asserts on the URI (default
    ``resource``). Frozen: ``replace`` returns a modified copy.
    """

    uri: str
    name: str
    description: str | None = None
    mime_type: str | None = None
    read: Callable[[ToolContext], str | bytes | Awaitable[str | bytes]] = field(kw_only=True)
    permission: str | None = field(default=None, kw_only=True)

    def replace(self, **changes: Any) -> Resource:
        """Return a copy with ``changes`` applied."""
        return dataclasses.replace(self, **changes)


@public
@dataclass(frozen=True, slots=True, eq=False)
class ResourceTemplate:
    """A family of URIs (RFC 6570: ``{name}`` matches one path segment, ``{+name}`` any
    text): ``read(params, ctx)`` gets the values the requested URI gave.

    ``complete`` offers values for the template's variables (``{"name": ["a", "b"]}``
    or ``{"name": fn(typed)}``), which an MCP client shows while its user types.
    """

    uri_template: str
    name: str
    description: str | None = None
    mime_type: str | None = None
    read: Callable[[Mapping[str, str], ToolContext], str | bytes | Awaitable[str | bytes]] = field(
        kw_only=True
    )
    complete: Mapping[str, Callable[[str], Iterable[str]] | Iterable[str]] | None = field(
        default=None, kw_only=True
    )
    permission: str | None = field(default=None, kw_only=True)

    def replace(self, **changes: Any) -> ResourceTemplate:
        """Return a copy with ``changes`` applied."""
        return dataclasses.replace(self, **changes)
