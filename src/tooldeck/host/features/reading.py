"""Reading a resource: find it in a snapshot, assert its permission, run its ``read``.

A read is an action like a call: the resource's ``permission`` (default ``resource``)
is asserted on the URI read, through the Location's permission service, in the
reader's session (asks, ``once`` answers and the principal's rules apply as for a call).
A resource whose action the snapshot's visibility hides wholly is not listed and not
found. Templates are tried most specific first (the most fixed text).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from tooldeck._resource import READ_ACTION, Resource, ResourceTemplate
from tooldeck._tool import ToolContext
from tooldeck.errors import ToolDefectError
from tooldeck.host.features.templates import literal_length, match
from tooldeck.host.registry.features import ResourceEntry

if TYPE_CHECKING:
    from tooldeck.host.call.values import CallScope
    from tooldeck.host.execution.definitions import Visibility
    from tooldeck.host.execution.snapshot import Snapshot


class ResourceContents(NamedTuple):
    """What one read returned, ready to serve: ``text`` or ``blob`` (the other None).

    ``more``: further contents of the same read, when it gave several (a mounted MCP
    server's read may: a folder and its files, say); each is served after this one."""

    uri: str
    mime_type: str
    text: str | None = None
    blob: bytes | None = None
    more: tuple[ResourceContents, ...] = ()


class ResourceNotFound(LookupError):
    """No resource (visible in the snapshot) is registered for a URI."""

    def __init__(self, uri: str) -> None:
        super().__init__(f"no resource {uri!r} here")
        self.uri = uri


def action_of(resource: Resource | ResourceTemplate) -> str:
    """The permission action reading ``resource`` asserts."""
    return resource.permission or READ_ACTION


def visible_resources(snapshot: Snapshot, permissions: Visibility | None) -> list[ResourceEntry]:
    """``snapshot``'s resources and templates ``permissions`` shows, sorted by URI (the
    visibility the snapshot was taken under: what hides its tools hides these)."""
    entries = snapshot.catalog.resources.values()
    if permissions is None:
        return list(entries)
    return [e for e in entries if not permissions.hidden(action_of(e.resource))]


def find(
    snapshot: Snapshot, permissions: Visibility | None, uri: str
) -> tuple[ResourceEntry, dict[str, str] | None]:
    """The visible resource for ``uri`` and, for a template, the values the URI gave it."""
    entries = visible_resources(snapshot, permissions)
    for entry in entries:
        if entry.uri == uri and isinstance(entry.resource, Resource):
            return entry, None
    templates = [e for e in entries if isinstance(e.resource, ResourceTemplate)]
    for entry in sorted(templates, key=lambda e: -literal_length(e.uri)):
        params = match(entry.uri, uri)
        if params is not None:
            return entry, params
    raise ResourceNotFound(uri)


async def read(
    snapshot: Snapshot,
    permissions: Visibility | None,
    uri: str,
    scope: CallScope,
    read_id: str,
) -> ResourceContents:
    """Read ``uri`` for ``scope``'s session: permission first, then the resource's ``read``.

    Raises ``ResourceNotFound``, the permission signals (declined, blocked, corrected),
    ``ToolFailure`` from the resource, and ``ToolDefectError`` for a read that returned
    neither text nor bytes.
    """
    entry, params = find(snapshot, permissions, uri)
    resource = entry.resource
    ctx = ToolContext(
        snapshot.location,
        scope.session_id,
        scope.message_id,
        read_id,
        scope.agent,
        None,
        scope.peer,
    )
    await ctx.permission.assert_(action_of(resource), [uri], metadata={"resource": uri})
    return await run_read(resource, uri, params, ctx)


async def run_read(
    resource: Resource | ResourceTemplate,
    uri: str,
    params: Mapping[str, str] | None,
    ctx: ToolContext,
) -> ResourceContents:
    """Call ``resource``'s ``read`` (no permission asked: the caller decided) and lay out
    what it returned."""
    if isinstance(resource, ResourceTemplate):
        value: Any = resource.read(dict(params or {}), ctx)
    else:
        value = resource.read(ctx)
    if inspect.isawaitable(value):
        value = await value
    return contents(resource, uri, value)


def contents(resource: Resource | ResourceTemplate, uri: str, value: object) -> ResourceContents:
    """``value`` (what a read returned) as contents of ``uri``.

    A read may also return ``ResourceContents`` itself, when the MIME type is known only
    once read (a mounted MCP server's resource says it with each read)."""
    if isinstance(value, ResourceContents):
        return value
    if isinstance(value, str):
        return ResourceContents(uri, resource.mime_type or "text/plain", text=value)
    if isinstance(value, bytes | bytearray | memoryview):
        mime = resource.mime_type or "application/octet-stream"
        return ResourceContents(uri, mime, blob=bytes(value))
    raise ToolDefectError(
        resource.name,
        f"resource {uri!r}: read must return str or bytes, got {type(value).__name__}",
    )
