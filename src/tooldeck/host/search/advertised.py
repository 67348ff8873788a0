"""What ``definitions_for`` advertises when tools are deferred (``deferral.py``).

The plain rendering (every native tool, then ``execute``) is adjusted per format:

- ``openai``, ``gemini``, ``mcp``: deferred tools left out; ``search_tools`` before
  ``execute`` (unless a tool of that name is registered: the registered one wins).
- ``anthropic``: the tools not deferred; the tool search tool
  (``tool_search_tool_bm25_20251119``, or ``..._regex_20251119`` with
  ``search="regex"``); the deferred tools with ``"defer_loading": true``; ``execute``.
- ``openai-responses``: the functions not deferred; ``{"type": "tool_search"}``; the
  deferred functions with ``"defer_loading": true``, those with a namespace grouped in
  one ``{"type": "namespace", ...}`` per namespace (inner names stay the effective
  names); ``execute``.

The tools that are not deferred keep their place and bytes, and the search tool's
definition is fixed, so adding or removing a deferred tool changes no byte before it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

from tooldeck.host.registry.names import RESERVED_CODEMODE_NAME
from tooldeck.host.registry.record import ToolRecord
from tooldeck.host.schema.frozen import FrozenDict, freeze
from tooldeck.host.search.deferral import SEARCH_TOOLS, Deferral

SearchVariant: TypeAlias = Literal["bm25", "regex"]
"""Anthropic's tool search tool: BM25 (natural-language queries) or regex patterns."""

ANTHROPIC_SEARCH: Mapping[str, FrozenDict] = {
    "bm25": freeze({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}),
    "regex": freeze({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}),
}
RESPONSES_SEARCH: FrozenDict = freeze({"type": "tool_search"})
SEARCH_VARIANTS = tuple(ANTHROPIC_SEARCH)


def advertise(
    fmt: str,
    records: Sequence[ToolRecord],
    plain: Sequence[Any],
    deferral: Deferral,
    render: Callable[..., FrozenDict],
    *,
    strict: bool,
    search: str,
) -> tuple[Any, ...]:
    """``plain`` (one rendering per record) as advertised with ``deferral``; ``render``
    (``providers.formats.render``) renders the ``search_tools`` tool in ``fmt``."""
    names = deferral.names
    if not names:
        return tuple(plain)
    coded = bool(records) and records[-1].effective == RESERVED_CODEMODE_NAME
    cut = len(records) - 1 if coded else len(records)
    shown = [d for r, d in zip(records[:cut], plain[:cut], strict=True) if r.effective not in names]
    hidden = [
        (r, d) for r, d in zip(records[:cut], plain[:cut], strict=True) if r.effective in names
    ]
    tail = list(plain[cut:])
    if fmt == "anthropic":
        marked = [_marked(r, d, fmt) for r, d in hidden]
        return (*shown, ANTHROPIC_SEARCH[search], *marked, *tail)
    if fmt == "openai-responses":
        return (*shown, RESPONSES_SEARCH, *_grouped(hidden, deferral, strict), *tail)
    if any(r.effective == SEARCH_TOOLS for r in records):
        return (*shown, *tail)
    return (*shown, render(deferral.search_record(), fmt, strict=strict), *tail)


def _marked(record: ToolRecord, definition: Mapping[str, Any], key: str) -> FrozenDict:
    """``definition`` with ``"defer_loading": true`` (cached on the record)."""
    cache_key = f"{key}+deferred"
    cached = record.definitions.get(cache_key)
    if cached is None:
        cached = record.definitions[cache_key] = freeze({**definition, "defer_loading": True})
    return cached


def _grouped(
    hidden: list[tuple[ToolRecord, Any]], deferral: Deferral, strict: bool
) -> list[FrozenDict]:
    """Deferred Responses functions: one namespace tool per namespace, then the rest."""
    key = "openai-responses+strict" if strict else "openai-responses"
    groups: dict[str, list[FrozenDict]] = {}
    loose: list[FrozenDict] = []
    for record, definition in hidden:
        marked = _marked(record, definition, key)
        namespace = record.tool.namespace
        if namespace:
            groups.setdefault(namespace, []).append(marked)
        else:
            loose.append(marked)
    out = []
    for namespace in sorted(groups):
        described = deferral.namespaces.get(namespace)
        text = described.description if described is not None else f"Tools of {namespace}."
        name = namespace.replace(".", "_")
        out.append(
            freeze(
                {"type": "namespace", "name": name, "description": text, "tools": groups[namespace]}
            )
        )
    return out + loose
