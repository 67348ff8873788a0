"""``search(query, limit=10)`` inside a program: find tools the description left out.

Scoring is deliberately simple and predictable: every query word found in a tool's
name or call path counts 3, in its namespace or the namespace's description 2, in
its description 1. Ties keep stub order (pinned first, then effective name). An empty
query lists tools in stub order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tooldeck.codemode.stubs import StubFile, ToolStub
from tooldeck.host.registry.editor import NamespaceEntry

_WORDS = re.compile(r"[a-z0-9]+")
MAX_LIMIT = 100


def search(stubs: StubFile, query: Any, limit: Any = 10) -> list[dict[str, Any]]:
    """The best ``limit`` matches for ``query`` as plain data (``ToolInfo`` in the stubs)."""
    if not isinstance(query, str):
        raise TypeError(f"search() query must be a str, not {type(query).__name__}")
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        raise TypeError(f"search() limit must be a non-negative int, got {limit!r}")
    words = _WORDS.findall(query.lower())
    spaces = stubs.namespaces
    scored = [(_score(stub, words, spaces), i, stub) for i, stub in enumerate(stubs.order)]
    if words:
        scored = [s for s in scored if s[0] > 0]
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [_info(stub) for _, _, stub in scored[: min(limit, MAX_LIMIT)]]


def _score(stub: ToolStub, words: list[str], namespaces: Mapping[str, NamespaceEntry]) -> int:
    tool = stub.entry.tool
    name = f"{stub.entry.name} {stub.signature.split('(', 1)[0]}".lower()
    namespace = tool.namespace or ""
    described = namespaces.get(namespace)
    space = f"{namespace} {described.description if described else ''}".lower()
    text = tool.description.lower()
    return sum(3 * (w in name) + 2 * (w in space) + (w in text) for w in words)


def _info(stub: ToolStub) -> dict[str, Any]:
    tool = stub.entry.tool
    return {
        "name": stub.entry.name,
        "namespace": tool.namespace,
        "call": stub.signature.split("(", 1)[0],
        "signature": stub.signature,
        "description": tool.description.strip(),
    }
