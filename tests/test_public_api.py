"""The public surface: a curated, sorted, complete ``__all__`` that imports lazily."""

from __future__ import annotations

import ast
import inspect
import json
import pickle
import subprocess
import sys
import typing
from collections.abc import Mapping
from typing import Any

import tooldeck

CONTRACT = [
    "Tool",
    "tool",
    "ToolResult",
    "TextPart",
    "ImagePart",
    "FilePart",
    "ToolContext",
    "ToolFailure",
    "ToolEditor",
    "ToolService",
    "Registration",
    "Snapshot",
    "ToolCall",
    "ExecutedTool",
    "Location",
    "Host",
    "run_tool_call",
    "ToolCallContext",
    "ToolCallOutcome",
    "PermissionDeclined",
    "PermissionCorrected",
    "PermissionBlocked",
    "QuestionDismissed",
    "Reject",
    "TooldeckError",
    "hookimpl",
    "hookspec",
]


def test_all_is_sorted_and_covers_the_contract():
    assert tooldeck.__all__ == sorted(tooldeck.__all__)
    assert set(CONTRACT) <= set(tooldeck.__all__)
    assert dir(tooldeck) == sorted(tooldeck.__all__)


def test_every_public_name_resolves():
    for name in tooldeck.__all__:
        assert getattr(tooldeck, name) is not None, name


def test_tool_is_the_decorator_after_the_tool_module_is_imported():
    import tooldeck._tool
    from tooldeck._tool import Tool

    assert callable(tooldeck.tool) and not isinstance(tooldeck.tool, type(sys))
    assert isinstance(tooldeck.tool(lambda x: x, name="ident", description="Identity."), Tool)


def test_importing_tooldeck_loads_nothing_heavy():
    code = (
        "import sys, tooldeck\n"
        "heavy = {'typing', 'pydantic', 'jsonschema', 'pluggy', 'asyncio', 'dataclasses',\n"
        "         'opentelemetry'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    assert out.strip() == "[]"


def test_no_agent_framework_is_imported_until_an_integration_is():
    code = (
        "import sys, tooldeck, tooldeck.integrations, tooldeck.providers\n"
        "tooldeck.Host, tooldeck.run_tool_call\n"
        "print(sorted({'pydantic_ai', 'agents'} & set(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    assert out.strip() == "[]"


def test_public_names_are_listed_once_and_mirrored_for_type_checkers():
    tree = ast.parse(inspect.getsource(tooldeck))
    mirrored = {
        alias.asname or alias.name: node.module
        for block in tree.body
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module.startswith("tooldeck")
        for alias in node.names
    }
    assert mirrored == tooldeck._LOCATIONS
    assert tooldeck.__all__ == sorted([*tooldeck._LOCATIONS, "__version__"])


def test_public_names_report_their_public_home():
    private = {
        name: module
        for name, module in tooldeck._LOCATIONS.items()
        if module.startswith(("tooldeck._", "tooldeck.host", "tooldeck.codemode"))
    }
    for name, module in private.items():
        value = getattr(tooldeck, name)
        defined_here = isinstance(value, type) or inspect.isfunction(value)
        if defined_here and value.__module__ in (module, "tooldeck"):  # not an alias
            assert value.__module__ == "tooldeck", name
    assert repr(tooldeck.Snapshot) == "<class 'tooldeck.Snapshot'>"
    assert tooldeck.ToolFailure("x").__class__.__module__ == "tooldeck"
    call = tooldeck.ToolCall("c1", "add", "{}")
    assert pickle.loads(pickle.dumps(call)) == call  # pickles resolve the public home
    # Names of a public module keep it: it is their public home already.
    assert tooldeck.ConfigError.__module__ == "tooldeck.errors"


# Run in a fresh interpreter: each defining module is imported by its own path and its
# names are read from it, never as ``tooldeck.X``, so only what the module did at import
# can have set their home.
HOME_AT_IMPORT = """
import ast, importlib, inspect, json, sys
import tooldeck

public_modules = ("tooldeck.errors", "tooldeck.hookspecs", "tooldeck.providers")
found, defined = {}, {}
for name, module in sorted(tooldeck._LOCATIONS.items()):
    imported = importlib.import_module(module)
    tree = ast.parse(inspect.getsource(imported))
    kinds = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    if module not in public_modules and any(
        isinstance(node, kinds) and node.name == name for node in tree.body
    ):
        found[name] = vars(imported)[name].__module__
        defined[name] = module
resolved = sorted(set(tooldeck._LOCATIONS) & set(vars(tooldeck)))
print(json.dumps({"found": found, "defined": defined, "resolved": resolved}))
"""


def test_public_names_carry_their_home_from_the_import_of_their_module():
    out = subprocess.run(
        [sys.executable, "-c", HOME_AT_IMPORT],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    report = json.loads(out)
    assert report["resolved"] == []  # nothing was reached through ``tooldeck.X``
    assert len(report["found"]) > 60  # every class and function the list names
    wrong = {
        name: f"{home} (decorate it @public in {report['defined'][name]})"
        for name, home in report["found"].items()
        if home != "tooldeck"
    }
    assert wrong == {}


def test_annotations_resolve_where_they_were_written():
    from pydantic import TypeAdapter

    hints = typing.get_type_hints(tooldeck.ToolCall)  # a NamedTuple
    assert hints["input"] == str | Mapping[str, Any]
    assert typing.get_type_hints(tooldeck.CallScope)["via"] == tooldeck.CallVia  # a dataclass
    assert typing.get_type_hints(tooldeck.Config)["tools"]  # a pydantic model
    call = TypeAdapter(tooldeck.ToolCall).validate_python(("c1", "add", {"a": 1}))
    assert call == tooldeck.ToolCall("c1", "add", {"a": 1})
    assert TypeAdapter(tooldeck.CallScope).validate_python({"session_id": "s"}).session_id == "s"
