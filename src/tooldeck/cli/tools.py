"""``tooldeck tools``: the effective catalog, as a table, JSON or provider definitions."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooldeck.cli._common import first_line, open_host, print_json, table, warn_failures
from tooldeck.cli._errors import CommandError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from tooldeck.host.execution.snapshot import Snapshot
    from tooldeck.host.registry.catalog import Catalog
    from tooldeck.host.registry.editor import CatalogEntry
    from tooldeck.host.trust.project import TrustStatus

FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "mcp")
"""Mirrors ``tooldeck.providers.formats.FORMATS`` (kept here so ``--help`` stays light)."""

HEADERS = ("NAME", "MODE", "PLUGIN", "OVERRIDES", "PERMISSION", "DESCRIPTION")
PERMISSION_HELP = (
    "PERMISSION is the action a [[permission]] rule names to deny (and hide) the whole tool. "
    "It does not make a tool ask: a tool asks only where its own code calls "
    "ctx.permission.assert_ (edit, write and patch ask 'edit' before changing a file, shell "
    "asks 'shell', webfetch 'webfetch'; read, glob, grep and question are allowed by "
    "default). A tool whose code never asks, like most of your own, runs without asking."
)


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "tools",
        help="list the effective tool catalog",
        description="List the effective tools: name, mode (native / deferred / code), the "
        "plugin providing it, the plugins it overrides, its permission action. A deferred "
        "tool is native but found through search_tools instead of being advertised.",
        epilog=PERMISSION_HELP,
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="machine-readable output")
    output.add_argument(
        "--format", choices=FORMATS, help="print the provider tool definitions as JSON"
    )
    output.add_argument(
        "--codemode",
        action="store_true",
        help="print the code-mode execute tool's description as the model gets it",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with open_host(args) as host:  # closing ends mounted MCP servers
        warn_failures(host)  # whose tools are missing, and why
        snapshot = host.snapshot()
        rows = tool_rows(snapshot, host.mcp_sources)
        return _show(args, snapshot, rows, untrusted_rows(host.trust))


def untrusted_rows(status: TrustStatus) -> list[list[str]]:
    """A row ``untrusted`` per project plugin file and server the folder's trust left out."""
    if not status.needed:
        return []
    from tooldeck.host.plugins.trust_gate import untrusted_reason

    reason = untrusted_reason(status)
    names = [f"local:{Path(i.name).stem}" for i in status.skipped("plugin")]
    names += [f"mcp:{i.name}" for i in status.skipped("server")]
    return [[name, "untrusted", name, "-", "-", reason] for name in names]


def _show(
    args: argparse.Namespace,
    snapshot: Snapshot,
    rows: list[dict[str, Any]],
    untrusted: list[list[str]],
) -> int:
    if args.codemode:
        return _print_codemode(snapshot)
    if args.format:
        print_json(list(snapshot.definitions_for(args.format)))
        return 0
    if args.json:
        print_json(rows)
        return 0
    cells = [_cells(row) for row in rows] + untrusted
    print(table(HEADERS, cells) if cells else "no tools")
    note = codemode_note(snapshot)
    if note:
        print(note, file=sys.stderr)
    return 0


def _print_codemode(snapshot: Snapshot) -> int:
    execute = snapshot.get("execute") if snapshot.codemode_catalog else None
    if execute is None:
        reason = codemode_note(snapshot) or "no tool of this catalog is a code-mode tool"
        raise CommandError(f"no execute tool: {reason}")  # a config matter, as run-code says
    print(execute.description)
    return 0


def codemode_note(snapshot: Snapshot) -> str | None:
    """One line saying why code-mode tools are listed as native, when they are."""
    if snapshot.codemode_catalog:
        return None
    tools = snapshot.catalog.tools
    if not any(tools[name].tool.codemode for name in snapshot.names if name in tools):
        return None
    from tooldeck.codemode.availability import off_reason, sandbox_missing

    missing = sandbox_missing()
    reason = off_reason(snapshot.location) or (
        f"code mode is unavailable: {missing}" if missing else None
    )
    return f"note: {reason}; code-mode tools are listed as native" if reason else None


def tool_rows(snapshot: Snapshot, servers: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """One dict per visible tool, sorted by effective name. ``servers``: the MCP server
    (``mcp:NAME``) each mounted tool comes from (``Host.mcp_sources``), named as its
    plugin instead of the one MCP registration, as ``tooldeck plugins`` names it."""
    code = {entry.name for entry in snapshot.codemode_catalog}
    catalog = snapshot.catalog
    visible = sorted(code | {name for name in snapshot.names if name in catalog.tools})
    servers = servers or {}
    deferred = _deferred(snapshot)
    rows = []
    for name in visible:
        row = _row(catalog, catalog.tools[name], "code" if name in code else "native", servers)
        rows.append({**row, "deferred": name in deferred})
    return rows


def _deferred(snapshot: Snapshot) -> set[str]:
    """``snapshot.deferred``, asked only when something could defer a tool: deciding it
    plans code mode, which listing the usual catalog must not load (``test_startup``)."""
    catalog = snapshot.catalog
    if not (
        any(option.defer_loading for option in snapshot.location.config.tools.values())
        or any(space.defer_loading for space in catalog.namespaces.values())
        or any(entry.tool.defer_loading for entry in catalog.tools.values())
    ):
        return set()
    return set(snapshot.deferred)


def _row(
    catalog: Catalog, entry: CatalogEntry, mode: str, servers: Mapping[str, str]
) -> dict[str, Any]:
    tool = entry.tool
    return {
        "name": entry.name,
        "mode": mode,
        "plugin": _plugin(entry.source, entry.name, servers),
        "overrides": [_plugin(s, entry.name, servers) for s in overridden_sources(catalog, entry)],
        "permission": tool.permission or entry.name,
        "namespace": tool.namespace,
        "description": tool.description,
    }


def overridden_sources(catalog: Catalog, entry: CatalogEntry) -> list[str]:
    """The other plugins whose earlier definitions of this tool it replaced, newest first."""
    found: list[str] = []
    for source in catalog.lineage(entry.name):
        if source != entry.source and source not in found:
            found.append(source)
    return found


def _plugin(source: str, tool: str, servers: Mapping[str, str]) -> str:
    """The plugin name of a registration source: ``mcp:NAME`` for the MCP layer's."""
    return servers.get(tool, source) if source == "mcp" else source  # mcp.client.layer.SOURCE


def _cells(row: dict[str, Any]) -> list[str]:
    return [
        row["name"],
        "deferred" if row["deferred"] else row["mode"],
        row["plugin"],
        ", ".join(row["overrides"]) or "-",
        row["permission"],
        first_line(row["description"]),
    ]
