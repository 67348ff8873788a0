"""``LayeredSnapshot``: a session's snapshot, built from the Location's snapshot.

A session's catalog is the Location's catalog plus a few changes (see
``registry.session``). Building its snapshot the plain way would sort, filter and index
every Location tool again for every session, and keep a copy of that index per
session. Instead the session's snapshot keeps the Location's snapshot (taken with the
same permissions and code-mode provider) as its base and decides visibility and
code-mode routing only for the changed names: lookups try the session's own records,
then the base's unless the session changed that name. Unchanged tools' records, derived
schemas, rendered definitions and ``ToolDefinition`` objects are the base's.

The result equals ``Snapshot(session_catalog, ...)`` built the plain way (a test pins the
two together); only its cost differs.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from operator import attrgetter

from tooldeck._tool import AnyTool
from tooldeck.host.execution.snapshot import (
    CodeModeProvider,
    Snapshot,
    ToolDefinition,
    Visibility,
    codemode_in_use,
    visible,
)
from tooldeck.host.registry.editor import CatalogEntry
from tooldeck.host.registry.names import RESERVED_CODEMODE_NAME
from tooldeck.host.registry.record import ToolRecord, record_of
from tooldeck.host.registry.state import Catalog
from tooldeck.host.schema.frozen import FrozenDict

_effective = attrgetter("effective")
_name = attrgetter("name")
_NOTHING: frozenset[str] = frozenset()


class LayeredSnapshot(Snapshot):
    """A session's snapshot: ``base`` (the Location's) with the session's changes on top."""

    __slots__ = ("_base", "_base_execute", "_execute", "_hidden", "_order")

    def __init__(
        self,
        catalog: Catalog,
        base: Snapshot,
        *,
        permissions: Visibility | None = None,
        codemode: CodeModeProvider | None = None,
        session_id: str,
    ) -> None:
        # ``catalog`` is the session's, replayed on ``base.catalog``; or that catalog itself
        # (a session that is not open sees the Location's view).
        assert catalog.base is base.catalog or catalog is base.catalog
        location = base.location
        self.catalog = catalog
        self.location = location
        self.session_id = session_id
        self._rendered = {}
        self._definitions = None
        self._base = base
        self._order: tuple[ToolRecord, ...] | None = None
        use_codemode = codemode_in_use(codemode, location, permissions)
        base_execute = base._callable.get(RESERVED_CODEMODE_NAME) if use_codemode else None
        self._base_execute = base_execute
        self._execute = base_execute
        if not catalog.changes:
            # Nothing changed: the base's index serves as it is (the hot path stays one
            # dictionary lookup).
            self._callable = base._callable
            self._hidden = _NOTHING
            self.codemode_tools = base.codemode_tools
            return
        own: dict[str, ToolRecord] = {}
        code: list[CatalogEntry] = []
        code_changed = False
        base_tools = catalog.base.tools if catalog.base is not None else {}
        for name, entry in catalog.changes.items():
            before = base_tools.get(name)
            if use_codemode and before is not None and _in_code(before, permissions):
                code_changed = True
            if entry is None or not visible(entry, permissions):
                continue
            if use_codemode and entry.tool.codemode:
                code.append(entry)
                code_changed = True
            else:
                own[name] = record_of(entry.tool)
        hidden = set(catalog.changes)
        if use_codemode:
            # Under code mode, ``execute`` in the base's index is the code-mode tool, not a
            # changed tool of that name: it is replaced only if the code-mode tools change.
            hidden.discard(RESERVED_CODEMODE_NAME)
        self.codemode_tools = base.codemode_tools
        if code_changed:
            self.codemode_tools = _merged(
                [e for e in base.codemode_tools if e.name not in catalog.changes], code
            )
            assert codemode is not None
            self._execute = record_of(codemode.build(self, self.codemode_tools))
            own[self._execute.effective] = self._execute
            hidden.add(RESERVED_CODEMODE_NAME)
        self._callable = own
        self._hidden = frozenset(hidden)

    # -- catalog ---------------------------------------------------------------------------
    @property
    def _unchanged(self) -> bool:
        return self._callable is self._base._callable

    def _records(self) -> Iterable[ToolRecord]:
        if self._unchanged:
            return self._base._records()
        if self._order is None:
            hidden, base_execute, execute = self._hidden, self._base_execute, self._execute
            kept = [
                r for name, r in self._base._callable.items()
                if name not in hidden and r is not base_execute
            ]
            own = sorted((r for r in self._callable.values() if r is not execute),
                         key=_effective)
            merged = list(heapq.merge(kept, own, key=_effective))
            if execute is not None:
                merged.append(execute)
            self._order = tuple(merged)
        return self._order

    @property
    def definitions(self) -> tuple[ToolDefinition, ...]:
        """The advertised tools; unchanged tools share the base's definition objects."""
        base = self._base
        if self._unchanged:
            return base.definitions
        if self._definitions is None:
            shared = {id(r): d for r, d in zip(base._records(), base.definitions, strict=True)}
            self._definitions = tuple(
                shared.get(id(r))
                or ToolDefinition(
                    r.effective, r.tool.description, r.input_schema, r.output_schema, r.tool
                )
                for r in self._records()
            )
        return self._definitions

    @property
    def names(self) -> tuple[str, ...]:
        """Advertised native names, in definition order."""
        if self._unchanged:
            return self._base.names
        return tuple(r.effective for r in self._records())

    def definitions_for(self, fmt: str) -> tuple[FrozenDict, ...]:
        """The advertised tools in a provider format (the base's own tuple if unchanged)."""
        if self._unchanged:
            return self._base.definitions_for(fmt)
        return super().definitions_for(fmt)

    def get(self, name: str) -> AnyTool | None:
        """The advertised tool called ``name``, or ``None``."""
        record = self._callable.get(name) or self._inherited(name)
        return record.tool if record is not None else None

    # -- execution -------------------------------------------------------------------------
    def _inherited(self, name: str) -> ToolRecord | None:
        if name in self._hidden:
            return None
        return self._base._callable.get(name)

    def _unavailable(self, name: str) -> ToolRecord:
        # Reached from the hot path when the session's own records lack ``name``.
        return self._inherited(name) or super()._unavailable(name)

    def __repr__(self) -> str:
        return f"<Snapshot of session {self.session_id!r}: {len(self.names)} tools>"


def _in_code(entry: CatalogEntry, permissions: Visibility | None) -> bool:
    """Whether the base routed ``entry`` into code mode (given code mode is in use)."""
    return bool(entry.tool.codemode) and visible(entry, permissions)


def _merged(
    kept: Sequence[CatalogEntry], added: Sequence[CatalogEntry]
) -> tuple[CatalogEntry, ...]:
    return tuple(heapq.merge(kept, sorted(added, key=_name), key=_name))

