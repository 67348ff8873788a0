"""A host's plugin records, brought in line with the candidates installed now.

``Host`` decides *when* (``Host.open``, ``refresh_plugins``) and discovers the
candidates; ``PluginSync.sync`` decides *what changes*, touching as little as possible:
an unchanged candidate keeps its record (never re-imported), a removed one is retired
(revealing what it overrode), a new or upgraded one is loaded, and registrations before
the first difference in order keep their place in the service. What the project's
``[plugins]`` asks of a user's plugin is decided once it is loaded (``guarded.py``), and
its ``order`` never moves a plugin past a user's hook plugin (``selection.moved``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck.errors import PluginError
from tooldeck.host.plugins.discovery import (
    Candidate,
    failure_details,
    forget_modules,
    member_candidate,
)
from tooldeck.host.plugins.records import PluginRecord
from tooldeck.host.plugins.selection import Selection, moved
from tooldeck.host.plugins.trust_gate import admits, skipped_servers, untrusted_reason
from tooldeck.host.plugins.wiring import PluginWiring
from tooldeck.host.service import ToolService
from tooldeck.telemetry import semconv

if TYPE_CHECKING:
    from tooldeck.host.plugins.trust_gate import Decision
    from tooldeck.telemetry.startup import Spans

LOWER = ("builtin", "mcp")
"""The layers before which a skipped project server's row is reported."""


class PluginSync:
    """The records of every candidate, in load order, and the order their registrations
    hold in the service. Not thread-safe: the host calls it under its lock.

    ``trust`` is the Location's trust decision, or ``None`` for a host built by hand,
    whose caller chose every candidate itself.
    """

    def __init__(
        self,
        service: ToolService,
        wiring: PluginWiring,
        selection: Selection,
        trust: Decision | None,
        spans: Spans,
    ) -> None:
        self._service = service
        self._wiring = wiring
        self._selection = selection
        self._trust = trust
        self._spans = spans
        self.records: list[PluginRecord] = []
        """Every candidate's record, in load order, with the skipped and missing rows."""
        self._order: list[PluginRecord] = []  # records with a registration, in service order
        self.warnings: tuple[str, ...] = ()
        """The ``disable`` entries that name nothing here (``Selection.unmatched``)."""

    def sync(self, candidates: list[Candidate], servers: tuple[str, ...] = ()) -> None:
        """Make the records and registrations those of ``candidates`` (in load order);
        ``servers``: the configured MCP servers' names, which ``disable`` may name too."""
        old = {r.candidate.name: r for r in self.records}
        # A candidate without a loader is a reserved slot (MCP) nobody has filled yet.
        records = [self._carry(c, old.pop(c.name, None)) for c in candidates if c.load]
        for gone in old.values():
            self._retire(gone)
        if self._selection.project.order:  # moves a user's guard may hold back
            from tooldeck.host.plugins.guarded import guards

            records = moved(records, self._selection.project.order, _candidate, guards)
        self._place([r for r in records if r.transform is not None])
        missing = self._selection.missing(candidates)
        self.records = self._with_skipped(records) + [
            PluginRecord(c, "failed", reason=f"not found ({c.origin})") for c in missing
        ]
        if self._selection.disables():
            self._warn([*candidates, *(member_candidate(f"mcp:{n}", "mcp") for n in servers)])

    def _warn(self, candidates: list[Candidate]) -> None:
        """Find the ``disable`` entries that name none of ``candidates`` (skipped project
        servers included); log each one not logged before."""
        skipped = skipped_servers(self._trust) if self._trust is not None else []
        warnings = tuple(self._selection.unmatched([*candidates, *skipped]))
        if warnings != self.warnings:
            import logging  # only when a disable entry names nothing

            for warning in warnings:
                if warning not in self.warnings:
                    logging.getLogger("tooldeck").warning("%s", warning)
            self.warnings = warnings

    def _with_skipped(self, records: list[PluginRecord]) -> list[PluginRecord]:
        """``records`` with an ``untrusted`` row per skipped project server, where the
        MCP layer's rows go (after the built-ins)."""
        trust = self._trust
        if trust is None:  # a host built by hand skipped nothing
            return records
        rows = [
            PluginRecord(c, "untrusted", reason=untrusted_reason(trust))
            for c in skipped_servers(trust)
        ]
        at = next(
            (i for i, r in enumerate(records) if r.candidate.layer not in LOWER), len(records)
        )
        return [*records[:at], *rows, *records[at:]]

    def _carry(self, candidate: Candidate, previous: PluginRecord | None) -> PluginRecord:
        """Keep ``previous`` when its candidate is unchanged; else replace it."""
        if previous is not None and previous.candidate.identity == candidate.identity:
            return previous
        if previous is not None:
            self._retire(previous, upgraded=True)
        return self._load(candidate)

    def _load(self, candidate: Candidate) -> PluginRecord:
        excluded = self._selection.excluded(candidate)
        if excluded is not None:
            return PluginRecord(candidate, "disabled", reason=excluded)
        trust = self._trust
        if candidate.layer == "local" and trust is not None and not admits(trust, candidate):
            return PluginRecord(candidate, "untrusted", reason=untrusted_reason(trust))
        wish = self._selection.unwanted(candidate)  # the project's [plugins]
        if wish is not None and candidate.layer == "local":  # among its own: final
            return PluginRecord(candidate, "disabled", reason=wish)
        attributes = {semconv.PLUGIN: candidate.name, semconv.PLUGIN_LAYER: candidate.layer}
        with self._spans("tooldeck.plugin.load", attributes) as span:
            record = self._loaded(candidate)
            if wish is not None:
                from tooldeck.host.plugins.guarded import unwanted

                record = unwanted(record, wish, self._wiring)
            if span is not None:
                span.set_attribute(semconv.PLUGIN_STATUS, record.status)
        return record

    def _loaded(self, candidate: Candidate) -> PluginRecord:
        assert candidate.load is not None
        try:
            plugin = candidate.load()
            transform = self._wiring.register(candidate.name, plugin)
        except PluginError as exc:
            reason, text = failure_details(exc)
            return PluginRecord(candidate, "failed", reason=reason, traceback=text)
        return PluginRecord(candidate, "active", transform=transform)

    def _retire(self, record: PluginRecord, *, upgraded: bool = False) -> None:
        record.unregister()
        if record.transform is not None:
            self._wiring.unregister(record.candidate.name)
        if upgraded:
            forget_modules(record.candidate)

    def _place(self, wanted: list[PluginRecord]) -> None:
        """Make the registration order equal ``wanted``.

        The service appends new registrations last, so everything after the first
        position where the current order and ``wanted`` differ is re-registered (the
        plugin objects are reused, nothing is re-imported).
        """
        current = [r for r in self._order if r.registered]
        kept = 0
        for have, want in zip(current, wanted, strict=False):
            if have is not want:
                break
            kept += 1
        for record in current[kept:]:
            record.unregister()
        for record in wanted[kept:]:
            record.register(self._service)
        self._order = wanted


def _candidate(record: PluginRecord) -> Candidate:
    return record.candidate
