"""``tooldeck plugins``: every plugin in load order, its status and what it did."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from tooldeck.cli._common import open_host, print_json, table

if TYPE_CHECKING:
    from tooldeck.host.plugins.report import PluginInfo

HEADERS = ("#", "PLUGIN", "DISTRIBUTION", "VERSION", "LAYER", "STATUS", "TOOLS")


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "plugins",
        help="list plugins in load order",
        description="List every plugin in load order (lowest precedence first): "
        "distribution, version, layer, status (active / disabled / failed "
        "and why), tools added, overridden and removed.",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with open_host(args) as host:  # closing ends mounted MCP servers
        infos = host.plugins
        # Read the Location's saved approvals: a corrupt file is reported (a warning on
        # stderr) and set aside here, where a user checks the setup, not at the next call.
        host.location.permission.evaluate("edit", "*")
    if args.json:
        print_json([info.to_json() for info in infos])
        return 0
    if not infos:
        print("no plugins")
        return 0
    print(render(infos))
    return 0


def render(infos: list[PluginInfo]) -> str:
    """The table, with each failure or disable reason on an indented line below."""
    lines = table(HEADERS, [_cells(i, info) for i, info in enumerate(infos, 1)]).splitlines()
    out = lines[:1]
    for line, info in zip(lines[1:], infos, strict=True):
        out.append(line)
        if info.reason:
            out.append(f"    {info.status}: {info.reason}")
        out += [f"    refused: {d}" for d in info.diagnostics]
        out += [f"    warning: {w}" for w in info.warnings]
    return "\n".join(out)


def _cells(index: int, info: PluginInfo) -> list[str]:
    return [
        str(index),
        info.name,
        info.distribution or "-",
        info.version or "-",
        info.layer,
        info.status,
        effects(info) or "-",
    ]


def effects(info: PluginInfo) -> str:
    """``+added; overrides a (from p); removes b (from q); lost c (to r)``."""
    overridden = {tool for tool, _ in info.overrides}
    parts = []
    added = [t for t in info.provides if t not in overridden]
    if added:
        parts.append("+" + ", +".join(added))
    parts += [f"overrides {tool} ({plugin})" for tool, plugin in info.overrides]
    parts += [f"removes {tool} ({plugin})" for tool, plugin in info.removed]
    parts += [f"lost {tool} to {plugin}" for tool, plugin in info.overridden_by]
    return "; ".join(parts)
