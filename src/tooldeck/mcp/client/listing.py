"""A server's ``tools/list``, every page, each tool judged on its own.

The SDK validates a listing whole, so one tool it cannot accept (an input schema that is
``true``, or not an object) would fail the server's whole listing. Here the page is
fetched raw, each tool is validated alone, and a tool that fails is skipped with a note
for the server's report row; the rest mount. A listing is bounded: ``MAX_PAGES`` pages
(a cursor that never ends cannot hang it), ``MAX_TOOLS`` tools (the rest are cut, with
a note).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from tooldeck.mcp.sdk import Client, types

MAX_TOOLS = 2000
"""Tools mounted from one server; a longer listing is cut with a note in its row."""
MAX_PAGES = 200
"""Pages of one listing: a server whose cursor never ends cannot hang a listing."""


class Listing(NamedTuple):
    """A server's tools, the notes for its report row, and the time-to-live it declared."""

    tools: tuple[types.Tool, ...]
    notes: tuple[str, ...]
    ttl_ms: int | None


async def list_all(client: Client) -> Listing:
    """Every page of ``client``'s server's tools, bounded (the caller bounds the time)."""
    tools: list[types.Tool] = []
    cursor: str | None = None
    notes: list[str] = []
    ttl_ms: int | None = None
    for _ in range(MAX_PAGES):
        page, skipped = await list_page(client, cursor)
        if "ttl_ms" in page.model_fields_set:  # the SDK's own default is not sent
            ttl_ms = page.ttl_ms if ttl_ms is None else min(ttl_ms, page.ttl_ms)
        tools += page.tools
        notes += skipped
        cursor = page.next_cursor
        if cursor is None or len(tools) > MAX_TOOLS:
            break
    if len(tools) > MAX_TOOLS or cursor is not None:
        more = "more" if cursor is not None else str(len(tools))
        notes.append(f"the server lists {more} tools; only the first {MAX_TOOLS} are mounted")
        tools = tools[:MAX_TOOLS]
    return Listing(tuple(tools), tuple(notes), ttl_ms)


async def list_page(client: Client, cursor: str | None) -> tuple[types.ListToolsResult, list[str]]:
    """One page of ``tools/list``, each tool validated on its own: a tool the SDK would
    refuse (an input schema that is not an object, say) is skipped with a note, and the
    rest of the page is mounted. The SDK validates a whole result at once, so the page is
    fetched raw (its dispatcher), then the session learns it as its own listing would."""
    from pydantic import ValidationError

    from tooldeck.mcp.sdk import types

    session = client.session
    request = types.ListToolsRequest(params=types.PaginatedRequestParams(cursor=cursor))
    data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
    options: dict[str, Any] = {}
    try:  # the SDK's private request path: the era's envelope, then the raw result
        stamp, send = session._stamp, session._dispatcher.send_raw_request
    except AttributeError:  # another SDK version: its own (all-or-nothing) listing
        return await client.list_tools(cursor=cursor, cache_mode="bypass"), []
    stamp(data, options)  # type: ignore[arg-type]
    raw = _RawPage.model_validate(await send("tools/list", data.get("params"), options))  # type: ignore[arg-type]
    tools: list[types.Tool] = []
    notes: list[str] = []
    for item in raw.tools:
        try:
            tools.append(types.Tool.model_validate(item, by_name=False))
        except ValidationError as exc:
            name = item.get("name") if isinstance(item, dict) else None
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"]) or "the tool"
            notes.append(
                f"tool {name!r} was skipped: {where}: {error['msg']} (the rest are mounted)"
            )
    # The session learns the page without output schemas: tooldeck checks a mounted tool's
    # output itself, with its patterns matched in bounded time; the SDK would run them
    # through Python's backtracking ``re`` on the loop (``host/schema/patterns.py``).
    learned = types.ListToolsResult(
        tools=[tool.model_copy(update={"output_schema": None}) for tool in tools],
        next_cursor=raw.next_cursor,
    )
    complete = cursor is None and raw.next_cursor is None
    session._absorb_tool_listing(learned, complete=complete)  # as session.list_tools does
    kept = {tool.name for tool in learned.tools}  # it may drop some (x-mcp-header rules)
    page = [tool for tool in tools if tool.name in kept]
    result = types.ListToolsResult(tools=page, next_cursor=raw.next_cursor)
    if raw.ttl_ms is not None:  # set only when sent, so ``model_fields_set`` tells
        result.ttl_ms = raw.ttl_ms
    return result, notes


class _RawPage(BaseModel):
    """A ``tools/list`` result with its tools not yet validated."""

    model_config = ConfigDict(extra="ignore")
    tools: list[Any] = Field(default_factory=list)
    next_cursor: str | None = Field(default=None, alias="nextCursor")
    ttl_ms: int | None = Field(default=None, alias="ttlMs", ge=0)
    """How long the listing stays fresh, when the server says (2026-07-28 caching hints)."""
