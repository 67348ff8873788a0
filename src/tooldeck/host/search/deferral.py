"""Deferred tools: advertised behind a tool search instead of in full.

A native tool is **deferred** when config says so (``[tools."PATTERN"] defer_loading``,
the last matching pattern wins, over what packs declare), else when the tool or its
namespace does (``Tool(defer_loading=True)``, ``editor.namespace(..., defer_loading=True)``;
an MCP server's ``defer_loading`` sets it on each mounted tool). Pinned tools, the
code-mode ``execute`` tool and tools loaded into a session by ``search_tools`` are never
deferred. A snapshot computes its deferred set once (``Deferral``).

How each format advertises them (``advertise``):

- ``openai``, ``gemini``, ``mcp``: deferred tools are left out, and one native
  ``search_tools(query, limit)`` tool (a fixed definition, so adding or removing a
  deferred tool changes no byte) sits before ``execute`` while anything is deferred.
  It ranks the deferred tools (``ranking.py``), returns each match's name,
  description and input schema, and loads them into the caller's open session: a
  session-scoped registration (source ``LOADED_SOURCE``) after which that session's
  snapshots advertise them natively until it closes. Without a session it lists only.
  On a weak result (nothing, or nothing that answers most of the query) it adds a
  hint (``hint.py``): the deferred tools' namespaces with their descriptions, the
  words no tool answered and a suggested query.
- ``anthropic`` and ``openai-responses``: the provider's own tool search; see
  ``provider_search``.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Collection, Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from tooldeck._tool import Tool, ToolContext, ToolResult
from tooldeck.host.permissions.wildcard import match
from tooldeck.host.registry.editor import CatalogEntry, ToolEditor
from tooldeck.host.registry.names import RESERVED_CODEMODE_NAME
from tooldeck.host.registry.record import ToolRecord, record_of

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location
    from tooldeck.host.registry.catalog import Catalog
    from tooldeck.host.search.hint import Hint
    from tooldeck.host.search.ranking import ToolIndex

SEARCH_TOOLS = "search_tools"
LOADED_SOURCE = "tooldeck:search_tools"
MAX_RESULTS = 20
MAX_NAMED = 20
"""The most tool names a "not available" message lists (``not_available``)."""

SEARCH_DESCRIPTION = (
    "Search the tools that are not listed here. More tools are available than are "
    "advertised: describe what you need in a few words and the best matches come back "
    "with their name, description and input schema; they can be called by name right "
    "away."
)
SEARCH_INPUT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What the tool should do, in a few words."},
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_RESULTS,
            "default": 5,
            "description": "The most tools to return.",
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}
SEARCH_OUTPUT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "tools": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "description": {"type": "string"},
                    "input_schema": {"type": "object"},
                },
                "required": ["name", "description", "input_schema"],
            },
        },
        "loaded": {"type": "boolean"},
        "hint": {
            "type": "object",
            "description": "Only when the match is weak: where the tools are.",
            "properties": {
                "namespaces": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "description": {"type": "string"},
                            "tools": {"type": "integer"},
                        },
                        "required": ["name", "description", "tools"],
                    },
                },
                "suggested_query": {"type": "string"},
                "unmatched": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["namespaces", "suggested_query", "unmatched"],
        },
    },
    "required": ["tools", "loaded"],
}

Loader = Callable[[str, Sequence[str]], bool]
"""``(session_id, names) -> loaded``: registers ``names`` in that open session."""

# Weak both ways: the Location as key, the loader's object (its ToolService) by a weak
# reference, so this table never keeps a service or its Location alive.
_loaders: weakref.WeakKeyDictionary[Location, tuple[weakref.ref[Any], Any]] = (
    weakref.WeakKeyDictionary()
)
_loaders_lock = threading.Lock()


def set_loader(location: Location, loader: Loader) -> None:
    """Where ``search_tools`` loads into the sessions of ``location``: a bound method of
    its ToolService (held weakly)."""
    with _loaders_lock:
        owner: Any = getattr(loader, "__self__", None)
        if owner is None:
            raise TypeError("set_loader() takes a bound method of the Location's ToolService")
        _loaders[location] = (weakref.ref(owner), getattr(loader, "__func__", None))


def undefer(names: Sequence[str]) -> Callable[[ToolEditor], None]:
    """The session transform that loads ``names``: each becomes an entry of
    ``LOADED_SOURCE``, never deferred."""

    def transform(editor: ToolEditor) -> None:
        for name in names:
            editor.update(name, _loaded)

    return transform


def _loaded(tool: Any) -> Any:
    return tool.replace(defer_loading=False)


class Deferral:
    """One snapshot's deferred tools, their search index and its ``search_tools``."""

    __slots__ = ("_index", "_lock", "_tool", "entries", "names", "namespaces")

    def __init__(self, entries: tuple[CatalogEntry, ...], namespaces: Mapping[str, Any]) -> None:
        self.entries = entries
        self.names = frozenset(e.name for e in entries)
        self.namespaces = namespaces
        self._index: ToolIndex | None = None
        self._tool: Tool[Any, Any] | None = None
        self._lock = threading.Lock()

    @classmethod
    def of(cls, catalog: Catalog, records: Collection[ToolRecord], location: Location) -> Deferral:
        """The deferred tools among ``records`` (``NOTHING`` when there are none)."""
        patterns = tuple(
            (pattern, option.defer_loading)
            for pattern, option in location.config.tools.items()
            if option.defer_loading is not None
        )
        spaces = catalog.namespaces
        deferred_spaces = {name for name, space in spaces.items() if space.defer_loading}
        if not (patterns or deferred_spaces or any(map(_DEFERS_LOADING, records))):
            # The usual catalog defers nothing: asked of each tool by ``map`` (C), not by
            # a loop here, since every rebuild asks it (``bench/RESULTS.md``, W9 changed).
            return NOTHING
        entries = []
        for record in records:
            # Most tools are deferred by nothing: one attribute and one set test each.
            tool = record.tool
            if patterns or tool.defer_loading or tool.namespace in deferred_spaces:
                entry = catalog.tools.get(record.effective)
                if entry is not None and _deferred(entry, spaces, patterns):
                    entries.append(entry)
        # Shared when empty: a session snapshot then holds nothing for deferral.
        return cls(tuple(entries), spaces) if entries else NOTHING

    def search(self, query: str, limit: int) -> list[CatalogEntry]:
        """The best ``limit`` deferred tools for ``query`` (the one ranking)."""
        return self.find(query, limit)[0]

    def find(self, query: str, limit: int) -> tuple[list[CatalogEntry], Hint | None]:
        """``search``, and a hint when the result is weak (``hint.py``)."""
        index = self._ready()
        ranked = index.rank(query, limit)
        found = [self.entries[i] for i in ranked.positions]
        if not ranked.weak:
            return found, None
        from tooldeck.host.search.hint import hint  # loaded with the ranking, on a search

        return found, hint(index, ranked, query)

    def _ready(self) -> ToolIndex:
        """The index of the deferred tools, built on the first search."""
        with self._lock:
            if self._index is None:
                from tooldeck.host.search.ranking import ToolIndex  # not loaded until a search

                self._index = ToolIndex.of(self.entries, self.namespaces)
            return self._index

    def search_record(self) -> ToolRecord:
        """``search_tools`` of this snapshot (the same definition in every snapshot)."""
        with self._lock:
            if self._tool is None:
                self._tool = Tool(
                    name=SEARCH_TOOLS,
                    description=SEARCH_DESCRIPTION,
                    input=SEARCH_INPUT,
                    output=SEARCH_OUTPUT,
                    execute=self._execute,
                    codemode=False,
                )
        return record_of(self._tool)

    def _execute(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        import json  # not loaded until a search

        found, advice = self.find(arguments["query"], arguments.get("limit", 5))
        tools = [
            {
                "name": e.name,
                "description": e.tool.description,
                "input_schema": json.loads(json.dumps(record_of(e.tool).input_schema)),
            }
            for e in found
        ]
        loaded = bool(tools) and _load(ctx, [t["name"] for t in tools])
        output: dict[str, Any] = {"tools": tools, "loaded": loaded}
        if advice is not None:
            output["hint"] = advice.data()
        text = _text(arguments["query"], tools, loaded, advice)
        return ToolResult(content=text, output=output)


NOTHING = Deferral((), {})
"""The deferral of a snapshot with nothing deferred."""

_DEFERS_LOADING = attrgetter("tool.defer_loading")


def _deferred(
    entry: CatalogEntry,
    spaces: Mapping[str, Any],
    patterns: tuple[tuple[str, bool], ...],
) -> bool:
    tool = entry.tool
    if tool.pinned or entry.name == RESERVED_CODEMODE_NAME or entry.source == LOADED_SOURCE:
        return False
    for pattern, value in reversed(patterns):
        if match(pattern, entry.name):
            return value
    if tool.defer_loading:
        return True
    space = spaces.get(tool.namespace or "")
    return space is not None and bool(space.defer_loading)


def _load(ctx: ToolContext, names: list[str]) -> bool:
    if not ctx.session_id:
        return False
    with _loaders_lock:
        held = _loaders.get(ctx.location)
    owner = held[0]() if held is not None else None
    return owner is not None and bool(held[1](owner, ctx.session_id, names))  # type: ignore[index]


def _text(query: str, tools: list[dict[str, Any]], loaded: bool, advice: Hint | None) -> str:
    """What the model reads: the tools found, then the hint of a weak result."""
    import json

    lines = []
    if not tools:
        lines.append(f"No tool matches {json.dumps(query)}.")
    else:
        lines.append(
            "These tools are now available; call them by name."
            if loaded
            else "These tools match; call them by name."
        )
    for t in tools:
        schema = json.dumps(t["input_schema"], separators=(",", ":"))
        lines.append(f"- {t['name']}: {' '.join(t['description'].split())}\n  input: {schema}")
    if advice is not None:
        if tools:
            lines.append("The match is weak.")
        lines.append(advice.text(found=bool(tools)))
    elif not tools:
        lines.append("Try other words.")
    return "\n".join(lines)


def not_available(name: str, names: Sequence[str], deferred: frozenset[str]) -> str:
    """What the model reads when it calls ``name``, which is not a tool here.

    ``names`` are the callable tools in definition order, ``deferred`` those of them
    advertised behind ``search_tools``. A catalog of thousands would make the message as
    long as the catalog, so it names at most ``MAX_NAMED``: the names closest to ``name``
    (a misspelt call finds its tool), then the advertised ones, and says how many remain
    and how to find them.
    """
    if len(names) <= MAX_NAMED and not deferred:
        listed = ", ".join(names) or "none"
        return f"Tool '{name}' is not available. Call one of the available tools instead: {listed}."
    import difflib  # only on this path: a wrong name in a large catalog

    close = difflib.get_close_matches(name, names, n=5, cutoff=0.6)
    named = list(dict.fromkeys([*close, *(n for n in names if n not in deferred)]))[:MAX_NAMED]
    rest = len(names) - len(named)
    text = f"Tool '{name}' is not available. "
    if not named:  # every tool is deferred and no name is close
        search = f"Call {SEARCH_TOOLS} with a few words on what you need to find one"
        return f"{text}{search} of the {rest:,} available tools."
    text += "Call one of the available tools instead: " + ", ".join(named)
    if rest:
        text += f", or one of {rest:,} more"
    if deferred:
        return text + f". Call {SEARCH_TOOLS} with a few words on what you need to find the others."
    return text + " (all in your tool list)."
