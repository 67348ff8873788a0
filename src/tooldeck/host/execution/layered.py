"""``LayeredSnapshot``: a session's snapshot, built from the Location's snapshot.

A session's catalog is the Location's catalog plus a few changes (see
``registry.session``). Building its snapshot the plain way would sort, filter and index
every Location tool again for every session, and keep a copy of that index per
session. Instead the session's snapshot keeps the Location's snapshot (taken with the
same permissions and code-mode provider) as its base and decides visibility and
code-mode routing only for the changed names: lookups try the session's own records,
then the base's unless the session changed that name.

What it advertises is the base's sequences (names, definitions, each provider format,
all cached on the base) spliced with the session's own items: a short plan of
positions says which base items to skip and where to insert, so each reading is a few
slice copies and a session holds nothing proportional to the Location. Unchanged tools'
records, derived schemas, rendered definitions and ``ToolDefinition`` objects are the
base's.

The result equals ``Snapshot(session_catalog, ...)`` built the plain way (a test pins the
two together); only its cost differs.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Callable, Collection, Sequence
from functools import partial
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeVar

from tooldeck._tool import AnyTool, ToolFailure
from tooldeck.host.execution.definitions import (
    CodeModeProvider,
    Index,
    ToolDefinition,
    Visibility,
    codemode_in_use,
    visible,
)
from tooldeck.host.execution.lazy import wire_formats
from tooldeck.host.execution.listings import Listings
from tooldeck.host.execution.snapshot import LayerBinder, Snapshot
from tooldeck.host.registry.catalog import Catalog
from tooldeck.host.registry.editor import CatalogEntry
from tooldeck.host.registry.names import RESERVED_CODEMODE_NAME
from tooldeck.host.registry.record import ToolRecord, record_of
from tooldeck.host.search.deferral import SEARCH_TOOLS, Deferral

if TYPE_CHECKING:
    from tooldeck.host.boundary.hooks import HookChain
    from tooldeck.host.boundary.limits import CallLimits

T = TypeVar("T")
_effective = attrgetter("effective")
_name = attrgetter("name")
_NOTHING: frozenset[str] = frozenset()


class LayeredSnapshot(Snapshot):
    """A session's snapshot: ``base`` (the Location's) with the session's changes on top."""

    __slots__ = ("_base", "_code", "_masked", "_plan")

    def __init__(
        self,
        catalog: Catalog,
        base: Snapshot,
        *,
        permissions: Visibility | None = None,
        codemode: CodeModeProvider | None = None,
        session_id: str,
        call_hooks: HookChain | None = None,
        call_limits: CallLimits | None = None,
        bind_layers: LayerBinder | None = None,
    ) -> None:
        """``catalog`` is the session's, replayed on ``base.catalog`` (or that catalog
        itself: a session that is not open sees the Location's view). ``call_hooks`` and
        ``call_limits`` are the session's: the base's, with its own added when it has some
        (the service composes them)."""
        assert catalog.base is base.catalog or catalog is base.catalog
        self._base = base
        self._plan: tuple[_Step, ...] | None = None
        super().__init__(
            catalog,
            base.location,
            permissions=permissions,
            codemode=codemode,
            session_id=session_id,
            call_hooks=call_hooks,
            call_limits=call_limits,
            bind_layers=bind_layers,
        )

    def _index(self, permissions: Visibility | None, codemode: CodeModeProvider | None) -> Index:
        """Decide only for the names the session changed; the base decided the rest."""
        base, catalog = self._base, self.catalog
        # A session's own hooks wrap its programs' nested calls too: those run against the
        # snapshot their ``execute`` was built for, so such a session builds its own.
        hooked = self.call_hooks is not base.call_hooks
        if not catalog.changes and not (hooked and base.codemode_catalog):
            # Nothing changed: the base's index serves as it is (the hot path stays one
            # dictionary lookup).
            self._masked = _NOTHING
            self._code = False
            return base.codemode_catalog, base._records_by_name, None
        use_codemode = self._code = codemode_in_use(codemode, self.location, permissions)
        own: dict[str, ToolRecord] = {}
        code: list[CatalogEntry] = []
        code_changed = hooked and use_codemode
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
        self._masked = frozenset(hidden | ({RESERVED_CODEMODE_NAME} if code_changed else set()))
        if not code_changed:
            return base.codemode_catalog, own, None
        # The session's own ``execute``, built on first need like the base's.
        coded = _merged([e for e in base.codemode_catalog if e.name not in catalog.changes], code)
        return coded, own, codemode if coded else None

    # -- catalog ---------------------------------------------------------------------------
    @property
    def _unchanged(self) -> bool:
        return self._records_by_name is self._base._records_by_name

    def _spliced(self, base_items: Sequence[T], own: Callable[[ToolRecord], T]) -> tuple[T, ...]:
        """``base_items`` (in the base's definition order) with the session's changes."""
        out: list[T] = []
        start = 0
        for position, record in self._steps():
            out.extend(base_items[start:position])
            if record is None:  # skip the base's item at ``position``
                start = position + 1
            else:  # insert before it
                out.append(own(record))
                start = position
        out.extend(base_items[start:])
        return tuple(out)

    def _steps(self) -> tuple[_Step, ...]:
        if self._plan is None:
            self._with_codemode()  # the session's own ``execute`` has its place in the plan
            self._plan = _plan(
                list(self._base.names), self._records_by_name, self._masked, code=self._code
            )
        return self._plan

    @property
    def definitions(self) -> tuple[ToolDefinition, ...]:
        """The advertised tools; unchanged tools share the base's definition objects."""
        if self._unchanged:
            return self._base.definitions
        return self._spliced(self._base.definitions, _definition)

    @property
    def names(self) -> tuple[str, ...]:
        """Advertised native names, in definition order."""
        if self._unchanged:
            return self._base.names
        return self._spliced(self._base.names, _effective)

    def definitions_for(
        self, fmt: str, *, strict: bool = False, search: str = "bm25"
    ) -> tuple[Any, ...]:
        """The advertised tools in a provider format: the base's (cached there) when the
        session changed nothing, else spliced from them on each call (a session holds
        nothing proportional to the Location)."""
        if self._unchanged:
            base = self._base.definitions_for(fmt, strict=strict, search=search)  # type: ignore[call-overload]
            return base  # type: ignore[no-any-return]
        return self._lister().advertised(fmt, strict, search)

    def _new_listings(self) -> Listings:
        return LayeredListings(self)

    def get(self, name: str) -> AnyTool | None:
        """The advertised tool called ``name``, or ``None``."""
        if name == RESERVED_CODEMODE_NAME:
            self._with_codemode()
        record = self._records_by_name.get(name)
        if record is not None:
            return record.tool
        return None if name in self._masked else self._base.get(name)

    # -- execution -------------------------------------------------------------------------
    def _unavailable(self, name: str) -> ToolRecord:
        """The base resolves what the session did not change (its tools, its ``execute``,
        its code-mode tools by name); the rest resolves as in any snapshot."""
        # Reached from the hot path when the session's own records lack ``name``.
        if name == SEARCH_TOOLS and self._lister().deferral().names:
            return self._lister().deferral().search_record()  # this session's deferred set
        if name.removeprefix("tools.") not in self._masked:
            base = self._base
            try:
                return base._records_by_name.get(name) or base._unavailable(name)
            except ToolFailure:
                pass
        return super()._unavailable(name)

    def __repr__(self) -> str:
        return f"<Snapshot of session {self.session_id!r}: {len(self.names)} tools>"


class LayeredListings(Listings):
    """A session's listings: its base's (kept there) when the session changed nothing,
    else spliced from them on each reading."""

    __slots__ = ("_layered",)

    def __init__(self, snapshot: LayeredSnapshot) -> None:
        super().__init__(snapshot)
        self._layered = snapshot

    def records(self) -> Collection[ToolRecord]:
        layered = self._layered
        base = layered._base
        base._with_codemode()  # its records line up with its names
        if layered._unchanged:
            return base._lister().records()
        return layered._spliced(tuple(base._lister().records()), _same)

    def plain(self, fmt: str, strict: bool) -> tuple[Any, ...]:
        """Every advertised tool in a provider format, spliced from the base's (kept)."""
        layered = self._layered
        base = layered._base._lister().plain(fmt, strict)
        if layered._unchanged:
            return base
        return layered._spliced(base, partial(wire_formats().render, fmt=fmt, strict=strict))

    def deferral(self) -> Deferral:
        layered = self._layered
        if layered._unchanged:
            return layered._base._lister().deferral()
        return super().deferral()


_Step = tuple[int, "ToolRecord | None"]
"""(position in the base's order, a record to insert there or ``None``: skip it)."""


def _plan(
    names: list[str], own: dict[str, ToolRecord], masked: frozenset[str], *, code: bool
) -> tuple[_Step, ...]:
    """Where the session's own records go in the base's order (``names``), and which of
    the base's items go.

    Both orders are the native tools by name, then, under code mode (``code``), the
    code-mode ``execute`` tool: own natives are inserted by name before the base's
    ``execute``, and the session's own ``execute`` (rebuilt when its code-mode tools
    differ from the base's) goes last, in place of the base's.
    """
    coded = code and names[-1:] == [RESERVED_CODEMODE_NAME]
    tail = len(names) - 1 if coded else len(names)  # natives sort before ``execute``
    steps: list[tuple[int, int, str, ToolRecord | None]] = []
    for name in masked:
        if code and name == RESERVED_CODEMODE_NAME:
            if coded:
                steps.append((tail, 1, name, None))
            continue
        position = bisect_left(names, name, 0, tail)
        if position < tail and names[position] == name:
            steps.append((position, 1, name, None))
    for name, record in own.items():
        last = code and name == RESERVED_CODEMODE_NAME
        position = len(names) if last else bisect_left(names, name, 0, tail)
        steps.append((position, 0, name, record))
    steps.sort(key=lambda step: step[:3])
    return tuple((position, record) for position, _, _, record in steps)


def _same(record: ToolRecord) -> ToolRecord:
    return record


def _definition(r: ToolRecord) -> ToolDefinition:
    return ToolDefinition(r.effective, r.tool.description, r.input_schema, r.output_schema, r.tool)


def _in_code(entry: CatalogEntry, permissions: Visibility | None) -> bool:
    """Whether the base routed ``entry`` into code mode (given code mode is in use)."""
    return bool(entry.tool.codemode) and visible(entry, permissions)


def _merged(
    kept: Sequence[CatalogEntry], added: Sequence[CatalogEntry]
) -> tuple[CatalogEntry, ...]:
    return tuple(heapq.merge(kept, sorted(added, key=_name), key=_name))
