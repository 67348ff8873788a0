"""``ToolEditor``: what a transform sees while the state is being replayed.

The editor works on a draft catalog and never performs I/O. Invalid operations are
skipped with a ``Diagnostic`` and the rest of the transform still applies; only an
exception raised *by the transform itself* disables its source (see ``state``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from tooldeck.host import names
from tooldeck.host.compiled import compiled
from tooldeck.tool import AnyTool, Tool

log = logging.getLogger("tooldeck")


class CatalogEntry(NamedTuple):
    """One effective definition: the tool, who provided it, and what it replaced.

    ``previous`` is the definition this one overrode or updated (a chain back to the
    first ``add``), which is what a disposal reveals and what reports show.
    """

    name: str
    tool: AnyTool
    source: str
    previous: CatalogEntry | None


class NamespaceEntry(NamedTuple):
    """A namespace description and the source that registered it."""

    description: str
    source: str


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A registration the state refused, or a transform that raised.

    ``traceback`` is set only for a raising transform (the whole source is disabled).
    """

    source: str
    reason: str
    tool: str | None = None
    namespace: str | None = None
    traceback: str | None = None

    def __str__(self) -> str:
        where = [f"source {self.source!r}"]
        if self.tool is not None:
            where.append(f"tool {self.tool!r}")
        if self.namespace is not None:
            where.append(f"namespace {self.namespace!r}")
        return f"{', '.join(where)}: {self.reason}"


class Removal(NamedTuple):
    """A ``remove`` that took effect: who removed which definition."""

    source: str
    entry: CatalogEntry


UpdateFn = Callable[[AnyTool], AnyTool]


class ToolEditor:
    """The narrow object a transform (``tool_transform(editor)``) edits the catalog with.

    ``add`` creates or overrides (the latest valid add wins), ``update`` replaces an
    existing definition through a callback, ``remove`` deletes one; ``update`` and
    ``remove`` target effective names and do nothing for missing tools.
    """

    __slots__ = ("_diagnostics", "_namespaces", "_removals", "_source", "_tools")

    def __init__(
        self,
        tools: dict[str, CatalogEntry] | None = None,
        namespaces: dict[str, NamespaceEntry] | None = None,
    ) -> None:
        self._tools: dict[str, CatalogEntry] = tools if tools is not None else {}
        self._namespaces: dict[str, NamespaceEntry] = namespaces if namespaces is not None else {}
        self._source = "<editor>"
        self._diagnostics: list[Diagnostic] = []
        self._removals: list[Removal] = []

    # -- reading ---------------------------------------------------------------------------
    def list(self) -> list[AnyTool]:
        """The current tools, sorted by effective name."""
        return [self._tools[name].tool for name in sorted(self._tools)]

    def get(self, name: str) -> AnyTool | None:
        """The current tool with effective name ``name``, or ``None``."""
        entry = self._tools.get(name)
        return entry.tool if entry is not None else None

    # -- writing ---------------------------------------------------------------------------
    def add(self, tool: AnyTool) -> None:
        """Add ``tool``; it replaces any current tool with the same effective name."""
        record = compiled(tool) if isinstance(tool, Tool) else None
        if record is None or record.problem is not None:
            reason = record.problem if record else f"expected a Tool, got {type(tool).__name__}"
            self._refuse(reason, tool)
            return
        name = record.effective
        self._tools[name] = CatalogEntry(name, tool, self._source, self._tools.get(name))

    def update(self, name: str, fn: UpdateFn) -> None:
        """Replace tool ``name`` by ``fn(current)``; a no-op (fn not called) if missing.

        Name and namespace are forced back to the current ones; a replacement that is
        not a valid tool is skipped and the current definition stays.
        """
        current = self._tools.get(name)
        if current is None:
            return
        replacement = fn(current.tool)
        if not isinstance(replacement, Tool):
            self._refuse(f"update must return a Tool, got {type(replacement).__name__}",
                         current.tool)
            return
        old = current.tool
        if replacement.name != old.name or replacement.namespace != old.namespace:
            replacement = replacement.replace(name=old.name, namespace=old.namespace)
        record = compiled(replacement)
        if record.problem is not None:
            self._refuse(f"update skipped: {record.problem}", replacement)
            return
        self._tools[name] = CatalogEntry(name, replacement, self._source, current)

    def remove(self, name: str) -> None:
        """Remove tool ``name``; a no-op if missing."""
        entry = self._tools.pop(name, None)
        if entry is not None:
            self._removals.append(Removal(self._source, entry))

    def namespace(self, name: str, description: str) -> None:
        """Describe namespace ``name`` (tools reference namespaces by name; optional)."""
        problem = names.namespace_problem(name)
        if problem is None and not (isinstance(description, str) and description.strip()):
            problem = "namespace description must be a non-empty string"
        if problem is not None:
            self._diagnose(Diagnostic(self._source, problem, namespace=str(name)))
            return
        self._namespaces[name] = NamespaceEntry(description, self._source)

    # -- internals used by the state -------------------------------------------------------
    def _refuse(self, reason: str, tool: object) -> None:
        name = getattr(tool, "name", None)
        namespace = getattr(tool, "namespace", None)
        self._diagnose(Diagnostic(
            self._source, reason,
            tool=name if isinstance(name, str) else repr(name),
            namespace=namespace if isinstance(namespace, str) else None,
        ))

    def _diagnose(self, diagnostic: Diagnostic) -> None:
        self._diagnostics.append(diagnostic)
