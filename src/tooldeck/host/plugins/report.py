"""The plugin load report: one frozen ``PluginInfo`` per plugin, in load order.

Statuses are computed when the report is asked for, from the current catalog: a plugin
whose hook raises on a later replay shows up as ``failed`` then, with the traceback the
state recorded, and what it provides/overrides always matches the catalog.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

from tooldeck._public import public

if TYPE_CHECKING:
    from tooldeck.host.plugins.discovery import Candidate
    from tooldeck.host.registry.catalog import Catalog

PluginStatus = Literal["active", "disabled", "failed", "untrusted"]
"""Whether a plugin serves (``active``), was left out on purpose, broke, or belongs to
a project folder that is not trusted (``untrusted``: never imported or started)."""


@public
@dataclass(frozen=True, slots=True)
class PluginInfo:
    """One plugin as ``tooldeck plugins`` shows it.

    ``overrides``: (tool, plugin it replaced); ``overridden_by``: (tool, plugin that
    replaced it); ``removed``: (tool, plugin whose definition it removed).
    ``diagnostics``: registrations of this plugin the editor refused (invalid tools);
    ``warnings``: its ``update``/``remove`` calls whose target did not exist.
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
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (pairs become ``{"tool": ..., "plugin": ...}`` objects)."""
        data = asdict(self)
        for key in ("overrides", "overridden_by", "removed"):
            data[key] = [{"tool": tool, "plugin": plugin} for tool, plugin in data[key]]
        data["provides"] = list(self.provides)
        data["diagnostics"] = list(self.diagnostics)
        data["warnings"] = list(self.warnings)
        return data


class MemberRow(Protocol):
    """One member of a plugin group (an MCP server) as the group describes it."""

    @property
    def name(self) -> str: ...
    @property
    def status(self) -> PluginStatus: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def origin(self) -> str | None: ...
    @property
    def namespace(self) -> str | None: ...
    @property
    def tools(self) -> frozenset[str]:
        """The effective names the member adds through the group's registration."""
        ...

    @property
    def notes(self) -> tuple[str, ...]:
        """Problems the group found with the member's tools, shown like diagnostics."""
        ...


class PluginGroup(Protocol):
    """One registration (``source``) whose report is one row per member (MCP servers)."""

    source: str

    def members(self) -> list[MemberRow]: ...


def group_infos(
    group: PluginGroup, layer: str, catalog: Catalog, status: PluginStatus, reason: str | None
) -> list[PluginInfo]:
    """The group's rows; the group's own load outcome (status, reason) overrides its members'."""
    failure = catalog.failed.get(group.source)
    if failure is not None:
        status, reason = "failed", failure.reason
    effects = catalog.effects(group.source) if status == "active" else None
    infos = []
    for member in group.members():
        own = (member.status, member.reason) if status == "active" else (status, reason)
        info = PluginInfo(member.name, None, None, layer, own[0], own[1], origin=member.origin)
        if effects is not None:
            mine = member.tools
            refused = tuple(
                str(d)
                for d in catalog.diagnostics
                if d.source == group.source and d.namespace == member.namespace
            )
            info = replace(
                info,
                provides=tuple(n for n in effects.provides if n in mine),
                overrides=tuple(p for p in effects.overrides if p[0] in mine),
                overridden_by=tuple(p for p in effects.overridden_by if p[0] in mine),
                diagnostics=member.notes + refused,
            )
        infos.append(info)
    return infos


def plugin_info(
    candidate: Candidate,
    status: PluginStatus,
    catalog: Catalog,
    *,
    reason: str | None = None,
    traceback: str | None = None,
) -> PluginInfo:
    """Describe ``candidate``; for a registered (``active``) one, read the catalog."""
    info = PluginInfo(
        candidate.name,
        candidate.distribution,
        candidate.version,
        candidate.layer,
        status,
        reason,
        traceback,
        candidate.origin,
    )
    if status != "active":
        return info
    failure = catalog.failed.get(candidate.name)
    if failure is not None:
        return replace(info, status="failed", reason=failure.reason, traceback=failure.traceback)
    effects = catalog.effects(candidate.name)
    own = [d for d in catalog.diagnostics if d.source == candidate.name]
    return replace(
        info,
        provides=effects.provides,
        overrides=effects.overrides,
        overridden_by=effects.overridden_by,
        removed=effects.removed,
        diagnostics=tuple(str(d) for d in own if d.level == "error"),
        warnings=tuple(str(d) for d in own if d.level == "warning"),
    )
