"""The plugin load report: one frozen ``PluginInfo`` per plugin, in load order.

Statuses are computed when the report is asked for, from the current catalog: a plugin
whose hook raises on a later replay shows up as ``failed`` then, with the traceback the
state recorded, and what it provides/overrides always matches the catalog.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from tooldeck.host.plugins.discovery import Candidate
    from tooldeck.host.registry.state import Catalog

PluginStatus = Literal["active", "disabled", "failed"]
"""Whether a plugin serves (``active``), was left out on purpose, or broke."""


@dataclass(frozen=True, slots=True)
class PluginInfo:
    """One plugin as ``tooldeck plugins`` shows it.

    ``overrides``: (tool, plugin it replaced); ``overridden_by``: (tool, plugin that
    replaced it); ``removed``: (tool, plugin whose definition it removed).
    ``diagnostics``: registrations of this plugin the editor refused (invalid tools).
    """

    name: str
    distribution: str | None
    version: str | None
    layer: str
    status: PluginStatus
    reason: str | None = None
    traceback: str | None = None
    origin: str | None = None
    provides: tuple[str, ...] = ()
    overrides: tuple[tuple[str, str], ...] = ()
    overridden_by: tuple[tuple[str, str], ...] = ()
    removed: tuple[tuple[str, str], ...] = ()
    diagnostics: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (pairs become ``{"tool": ..., "plugin": ...}`` objects)."""
        data = asdict(self)
        for key in ("overrides", "overridden_by", "removed"):
            data[key] = [{"tool": tool, "plugin": plugin} for tool, plugin in data[key]]
        data["provides"] = list(self.provides)
        data["diagnostics"] = list(self.diagnostics)
        return data


class PluginGroup(Protocol):
    """One registration reported as several rows (the MCP layer: one row per server)."""

    def rows(self, catalog: Catalog, status: PluginStatus,
             reason: str | None) -> list[PluginInfo]:
        """The rows, given how the group's own registration loaded (status and reason)."""
        ...


def plugin_info(
    candidate: Candidate,
    status: PluginStatus,
    catalog: Catalog,
    *,
    reason: str | None = None,
    traceback: str | None = None,
) -> PluginInfo:
    """Describe ``candidate``; for a registered (``active``) one, read the catalog."""
    info = PluginInfo(candidate.name, candidate.distribution, candidate.version,
                      candidate.layer, status, reason, traceback, candidate.origin)
    if status != "active":
        return info
    failure = catalog.failed.get(candidate.name)
    if failure is not None:
        return replace(info, status="failed", reason=failure.reason,
                       traceback=failure.traceback)
    effects = catalog.effects(candidate.name)
    diagnostics = tuple(str(d) for d in catalog.diagnostics if d.source == candidate.name)
    return replace(info, provides=effects.provides, overrides=effects.overrides,
                   overridden_by=effects.overridden_by, removed=effects.removed,
                   diagnostics=diagnostics)
