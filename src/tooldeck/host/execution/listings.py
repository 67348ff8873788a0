"""What a snapshot lists, computed when first asked for: its definitions, provider-neutral
and in each provider format, and which of its tools wait behind a tool search.

The snapshot keeps each answer (``Snapshot.definitions``, ``definitions_for``) and asks
here only on a miss, so a snapshot that only runs calls never loads this module, and a
listing already rendered costs one dictionary lookup. A format's *plain* listing renders
every advertised record (``providers/formats.py``), kept in the snapshot's ``_rendered``
beside the advertised ones (``reuse.py`` seeds a rebuilt snapshot's from them); what is
advertised is that listing with deferral applied (``host/search``). A session's
snapshot lists through ``layered.py``'s ``LayeredListings``, spliced from its base's.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from tooldeck.host.execution.definitions import ToolDefinition
from tooldeck.host.execution.lazy import wire_formats
from tooldeck.host.registry.record import ToolRecord
from tooldeck.host.search.deferral import Deferral

if TYPE_CHECKING:
    from tooldeck.host.execution.snapshot import Snapshot


class Listings:
    """The listings of ``snapshot``, computed on first need."""

    __slots__ = ("_deferral", "_snapshot")

    def __init__(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot
        self._deferral: Deferral | None = None

    def records(self) -> Collection[ToolRecord]:
        """The advertised tools' records in definition order (a session's merges layers)."""
        return self._snapshot._records_by_name.values()

    def definitions(self) -> tuple[ToolDefinition, ...]:
        """The advertised tools, provider-neutral (schemas are derived on first use)."""
        snapshot = self._snapshot
        snapshot._with_codemode()
        return tuple(
            ToolDefinition(r.effective, r.tool.description, r.input_schema, r.output_schema, r.tool)
            for r in self.records()
        )

    def advertised(self, fmt: str, strict: bool, search: str) -> tuple[Any, ...]:
        """``definitions_for`` computed: the plain rendering, deferral applied."""
        from tooldeck.host.search.advertised import SEARCH_VARIANTS, advertise

        if search not in SEARCH_VARIANTS or (search != "bm25" and fmt != "anthropic"):
            raise ValueError(
                f"search={search!r}: expected 'bm25' or 'regex' (Anthropic's tool "
                "search tools; other formats take the default)"
            )
        plain = self.plain(fmt, strict)
        deferral = self.deferral()
        if not deferral.names:
            return plain  # the common case: no second pass over the records
        records = tuple(self.records())
        render = wire_formats().render
        return advertise(fmt, records, plain, deferral, render, strict=strict, search=search)

    def plain(self, fmt: str, strict: bool) -> tuple[Any, ...]:
        """Every advertised record rendered in ``fmt``, nothing deferred (kept)."""
        snapshot = self._snapshot
        key = f"{fmt}+strict+plain" if strict else f"{fmt}+plain"
        rendered = snapshot._rendered.get(key)
        if rendered is None:
            snapshot._with_codemode()
            rendered = wire_formats().render_all(self.records(), fmt, strict=strict)
            snapshot._rendered[key] = rendered
        return rendered

    def deferral(self) -> Deferral:
        """Which native tools are advertised behind a tool search (decided once)."""
        if self._deferral is None:
            snapshot = self._snapshot
            snapshot._with_codemode()
            records = self.records()
            self._deferral = Deferral.of(snapshot.catalog, records, snapshot.location)
        return self._deferral

    def non_strict(self) -> dict[str, str]:
        """Advertised tools with no OpenAI strict form: name → why (definition order)."""
        snapshot = self._snapshot
        snapshot._with_codemode()
        problems = ((r.effective, wire_formats().strict_problem(r)) for r in self.records())
        return {name: reason for name, reason in problems if reason is not None}
