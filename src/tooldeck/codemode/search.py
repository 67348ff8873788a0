"""``search(query, limit=10)`` inside a program: find tools the description left out.

Ranked by the one tool ranking (``tooldeck.host.search.ranking``: BM25 over names,
descriptions, parameters and namespaces, with stems, synonyms and the query's action),
the same the native ``search_tools`` tool uses. Ties keep stub order (pinned first,
then effective name). A query without search terms lists tools in stub order. A weak
result is returned as it is: ``ToolInfo`` is part of the stubs the program is checked
against, and the ``execute`` description already names the namespaces.
"""

from __future__ import annotations

from typing import Any

from tooldeck.codemode.stubs import StubFile, ToolStub

MAX_LIMIT = 100


def search(stubs: StubFile, query: Any, limit: Any = 10) -> list[dict[str, Any]]:
    """The best ``limit`` matches for ``query`` as plain data (``ToolInfo`` in the stubs)."""
    if not isinstance(query, str):
        raise TypeError(f"search() query must be a str, not {type(query).__name__}")
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        raise TypeError(f"search() limit must be a non-negative int, got {limit!r}")
    found = stubs.index.search(query, min(limit, MAX_LIMIT))
    return [_info(stubs.order[position]) for position in found]


def _info(stub: ToolStub) -> dict[str, Any]:
    tool = stub.entry.tool
    return {
        "name": stub.entry.name,
        "namespace": tool.namespace,
        "call": stub.signature.split("(", 1)[0],
        "signature": stub.signature,
        "description": tool.description.strip(),
    }
