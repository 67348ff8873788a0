"""Failure messages for ``TestHost``'s assertions: what was expected, and what was found.

A catalog assertion that only says "not found" sends the author hunting; these say
what is offered instead, the nearest names, which plugins failed and why, and which
registrations the editor refused.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tooldeck.host.plugins.report import PluginInfo
    from tooldeck.host.registry.catalog import Catalog
    from tooldeck.host.registry.editor import Diagnostic

_MAX_DIAGNOSTICS = 5


def overridden(catalog: Catalog, name: str) -> list[str]:
    """The other plugins whose earlier definitions ``name`` replaced, newest first."""
    chain = catalog.lineage(name)
    found: list[str] = []
    for source in chain[1:]:
        if source != chain[0] and source not in found:
            found.append(source)
    return found


def describe(catalog: Catalog, name: str, mode: str) -> str:
    """``greet (native, from my-pack, overrides builtin:greet)``."""
    over = overridden(catalog, name)
    tail = f", overrides {', '.join(over)}" if over else ""
    return f"{name} ({mode}, from {catalog.tools[name].source}{tail})"


def offered(catalog: Catalog, modes: Mapping[str, str]) -> str:
    return ", ".join(describe(catalog, n, m) for n, m in modes.items()) or "nothing"


def missing_tool(
    name: str,
    catalog: Catalog,
    modes: Mapping[str, str],
    plugins: Sequence[PluginInfo],
    diagnostics: Iterable[Diagnostic],
) -> str:
    """Why ``name`` is not offered: hidden, misspelt, a failed plugin, a refused tool."""
    lines = [f"no tool {name!r} is offered to the model"]
    entry = catalog.tools.get(name)
    if entry is not None:
        action = entry.tool.permission or name
        lines[0] += (
            f": it is in the catalog (from {entry.source}) but hidden, because the "
            f"permission rules deny every resource of its action {action!r}"
        )
    lines.append(f"offered: {offered(catalog, modes)}")
    close = difflib.get_close_matches(name, [*catalog.tools], n=3, cutoff=0.6)
    if close and entry is None:
        lines.append("did you mean: " + ", ".join(repr(c) for c in close))
    lines += plugin_problems(plugins)
    refused = [f"{'warning' if d.level == 'warning' else 'refused'}: {d}" for d in diagnostics]
    lines += refused[:_MAX_DIAGNOSTICS]
    if len(refused) > _MAX_DIAGNOSTICS:
        lines.append(f"... and {len(refused) - _MAX_DIAGNOSTICS} more refused registrations")
    return "\n  ".join(lines)


def plugin_problems(plugins: Sequence[PluginInfo]) -> list[str]:
    return [f"plugin {p.name!r} failed: {p.reason}" for p in plugins if p.status == "failed"]


def mismatches(
    catalog: Catalog,
    name: str,
    mode: str,
    *,
    want_mode: str | None,
    provided_by: str | None,
    overrides: str | Sequence[str] | None,
) -> list[str]:
    """Each way the tool differs from the expectation, as ``"x is A, expected B"``."""
    problems = []
    if want_mode is not None and mode != want_mode:
        problems.append(f"mode is {mode!r}, expected {want_mode!r}")
    source = catalog.tools[name].source
    if provided_by is not None and source != provided_by:
        problems.append(f"provided by {source!r}, expected {provided_by!r}")
    if overrides is not None:
        found = overridden(catalog, name)
        if isinstance(overrides, str) and found[:1] != [overrides]:
            problems.append(f"overrides {_plugins(found[:1])}, expected {overrides!r}")
        elif not isinstance(overrides, str) and found != list(overrides):
            problems.append(f"overrides {_plugins(found)}, expected {_plugins(overrides)}")
    return problems


def _plugins(names: Sequence[str]) -> str:
    return ", ".join(repr(n) for n in names) if names else "nothing"


def missing_plugin(name: str, plugins: Sequence[PluginInfo]) -> str:
    listed = ", ".join(f"{p.name} ({p.status})" for p in plugins) or "none"
    close = difflib.get_close_matches(name, [p.name for p in plugins], n=3, cutoff=0.6)
    hint = "\n  did you mean: " + ", ".join(repr(c) for c in close) if close else ""
    return f"no plugin {name!r} in the load report\n  plugins: {listed}{hint}"


def wrong_status(info: PluginInfo, status: str) -> str:
    lines = [f"plugin {info.name!r} is {info.status!r}, expected {status!r}"]
    if info.reason:
        lines.append(f"reason: {info.reason}")
    if info.traceback:
        lines.append("traceback:\n" + info.traceback.rstrip())
    return "\n  ".join(lines)
