"""The top-level ``id`` of a JSON-RPC message that could not be read whole.

A reply too large to keep, or one that does not parse, still answers a request: its
``id`` says which. Only the ``id`` member of the top-level object counts (a result can
hold objects with ``id`` keys of their own, and they often come first), so the head of
the message is tokenized with the nesting tracked, never searched for the first match;
an ``id`` written after a huge result is read from the message's end instead.
"""

from __future__ import annotations

import json
import re
from typing import NamedTuple

HEAD_BYTES = 64 * 1024
"""How much of a message's start is read for its ``id``."""
TAIL_BYTES = 4096
"""How much of a skipped message's end is kept, for an ``id`` written last."""
_LAST_ID = re.compile(rb',\s*"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*\}\s*$')

_TOKEN = re.compile(rb'\s*(?:("(?:[^"\\]|\\.)*")|([{}\[\]:,])|([^\s"{}\[\]:,]+))', re.DOTALL)


class Head(NamedTuple):
    """What the start of a message says: its top-level ``id`` (``None``: not seen) and
    whether it has a top-level ``method`` (then it is a request, not a reply)."""

    id: str | int | None
    is_request: bool


def read_head(data: bytes) -> Head:
    """The top-level ``id`` and ``method`` presence within ``data[:HEAD_BYTES]``."""
    depth, key, expecting_key, found, request = 0, None, False, None, False
    position, end = 0, min(len(data), HEAD_BYTES)
    while position < end:
        match = _TOKEN.match(data, position, end)
        if match is None or match.end() == position:
            break
        position = match.end()
        text, mark, scalar = match.groups()
        if mark in (b"{", b"["):
            depth += 1
            expecting_key = mark == b"{" and depth == 1
        elif mark in (b"}", b"]"):
            depth -= 1
        elif mark == b",":
            expecting_key = depth == 1
        elif depth == 1 and text is not None and expecting_key:
            key, expecting_key = _string(text), False
            request = request or key == "method"
        elif depth == 1 and key == "id" and mark is None:
            found = _scalar(text or scalar or b"")
            key = None
        elif mark != b":":
            key = None
        if depth <= 0 and position > 1:
            break
    return Head(found, request)


def last_member_id(tail: bytes) -> str | int | None:
    """The ``id`` when it is the last member of the message (``..., "id": 7}``): the
    member just before the final ``}`` belongs to the top-level object."""
    found = _LAST_ID.search(tail)
    return None if found is None else _scalar(found.group(1))


def _string(token: bytes) -> str | None:
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _scalar(token: bytes) -> str | int | None:
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, str | int) and not isinstance(value, bool) else None
