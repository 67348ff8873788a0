"""The MCP SDK seam: ``tooldeck/mcp/sdk.py`` is the only module that imports the SDK."""

from __future__ import annotations

import ast
from pathlib import Path

import tooldeck
from tooldeck.mcp import sdk

SRC = Path(tooldeck.__file__).parent
SDK_PACKAGES = ("mcp", "mcp_types")
ADAPTER = SRC / "mcp" / "sdk.py"


def sdk_imports(path: Path) -> list[str]:
    """Every import of the SDK in ``path``, at any depth (``TYPE_CHECKING`` too: a type
    named from the SDK elsewhere would also have to change with it)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        found += [
            f"{path.relative_to(SRC.parent)}:{node.lineno}: {name}"
            for name in names
            if name.split(".")[0] in SDK_PACKAGES
        ]
    return found


def test_no_module_but_the_adapter_imports_the_sdk():
    modules = sorted(SRC.rglob("*.py"))
    assert ADAPTER in modules
    assert sdk_imports(ADAPTER)  # the test would find one
    leaks = [hit for path in modules if path != ADAPTER for hit in sdk_imports(path)]
    assert leaks == []


def test_the_adapter_names_what_the_modules_use():
    for name in sdk.__all__:
        assert getattr(sdk, name) is not None, name
