"""What a tool call meets when its tool was left out because the folder is not trusted.

A call of a tool that is not in the catalog fails with the tools that are; when the
tool would have come from a plugin file or a project MCP server that trust skipped, it
says so instead, and names the command that trusts the folder. Which tools a skipped
plugin file would add is read from its source (``@tool`` functions and ``Tool(...)``
calls with a literal name), never by running it; a skipped server's tools are known by
their prefix (``<server>_``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from tooldeck.host.registry.names import effective_name, normalize

if TYPE_CHECKING:
    from tooldeck.host.trust.project import TrustStatus

Withheld = Callable[[str], "str | None"]
"""Why the tool of a name was left out, or ``None`` when nothing is known of it."""


def nothing_withheld(name: str) -> str | None:
    return None


def withheld_by_trust(status: TrustStatus) -> Withheld:
    """What ``status`` skipped, as ``Location.withheld`` answers it."""
    if status.trusted:
        return nothing_withheld
    sources: dict[str, str] = {}
    for item in status.skipped("plugin"):
        path = status.root / item.name
        for tool in tool_names(path):
            sources.setdefault(tool, f"local:{path.stem}")
    prefixes = [(f"{normalize(i.name)}_", f"mcp:{i.name}") for i in status.skipped("server")]
    why = f"skipped: this folder is not trusted — `{status.command}`"

    def withheld(name: str) -> str | None:
        source = sources.get(name) or next((s for p, s in prefixes if name.startswith(p)), None)
        return f"comes from `{source}`, {why}" if source is not None else None

    return withheld


def tool_names(path: Path) -> list[str]:
    """The effective names of the tools a plugin file defines with a literal name,
    read from its source without running it (nothing when it cannot be parsed)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return []
    return list(dict.fromkeys(_names(tree)))


def _names(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                if _called(decorator) == "tool":
                    yield _effective(decorator, node.name)
        elif isinstance(node, ast.Call) and _called(node.func) == "Tool":
            name = _keyword(node, "name")
            if name is not None:
                yield _effective(node, name)


def _called(node: ast.expr) -> str | None:
    """``tool`` for ``tool``, ``tooldeck.tool`` and ``tool(...)``; else the bare name."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _effective(node: ast.expr, default: str) -> str:
    name = _keyword(node, "name") or default
    return effective_name(name, _keyword(node, "namespace"))


def _keyword(node: ast.expr, key: str) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    for keyword in node.keywords:
        value = keyword.value
        if keyword.arg == key and isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value
    return None
