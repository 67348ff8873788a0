"""Pagination of ``tools/list``, ``resources/list``, ``resources/templates/list`` and
``prompts/list``.

Every list is sorted by its key (name or URI), so a cursor names the last key a page
held: the next page starts after it, even if the catalog changed in between (a key
that left is skipped past, one that arrived later in the order is listed). A cursor
tooldeck did not issue is a protocol error (``INVALID_PARAMS``), as the spec asks,
rather than silently the first page again.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
from collections.abc import Callable, Sequence
from typing import TypeVar

from tooldeck.mcp.sdk import INVALID_PARAMS, MCPError

T = TypeVar("T")

PAGE_SIZE = 1000
"""Items per page: large enough that most catalogs are one page."""


def page(
    items: Sequence[T], key: Callable[[T], str], cursor: str | None, size: int = PAGE_SIZE
) -> tuple[list[T], str | None]:
    """The page of ``items`` (sorted by ``key``) after ``cursor``, and the next cursor."""
    start = 0
    if cursor is not None:
        after = _after(cursor)
        start = bisect.bisect_right([key(item) for item in items], after)
    chosen = list(items[start : start + size])
    more = start + size < len(items)
    return chosen, (_cursor(key(chosen[-1])) if more and chosen else None)


def _cursor(last: str) -> str:
    text = json.dumps({"after": last}, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode("utf-8")).decode("ascii")


def _after(cursor: str) -> str:
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor.encode("ascii")))
    except (ValueError, binascii.Error, UnicodeError):
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("after"), str):
        raise MCPError(
            INVALID_PARAMS, f"Invalid cursor: {cursor!r} is not a cursor this server gave"
        )
    after: str = data["after"]
    return after
