"""One error tree: every exception a host or pack author meets is exported from
``tooldeck``, drawn where it really sits in ``errors.py``'s docstring, and defined in
``tooldeck.errors`` — except the two defined with ``Tool`` (``errors`` imports nothing).

The exception classes are found by importing every module of the package, not from a
list kept by hand, so a new exception class must either join the tree or be named below
as internal, with the boundary that keeps it from leaving tooldeck.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import pkgutil
import re

import pytest

import tooldeck
from tooldeck import errors

INTERNAL = {
    "tooldeck.cli._errors.CommandError": "the CLI prints it and exits 2",
    "tooldeck.host.schema.validators.SchemaIssues": "becomes the ToolFailure the model reads",
    "tooldeck.host.schema.jsonschema_fast.SchemaValidationError": "becomes SchemaIssues",
    "tooldeck.host.schema.jsonschema_fast._base.Unsupported": "falls back to jsonschema",
    "tooldeck.host.schema.jsonschema_fast._base.Bail": "falls back to jsonschema",
    "tooldeck.host.registry.state._TransformRaised": "becomes a Diagnostic of the source",
    "tooldeck.builtin_plugins._run.ignore.GlobError": "glob turns it into a ToolFailure",
    "tooldeck.builtin_plugins._run.grep_re2.PatternError": "grep: a ToolFailure",
    "tooldeck.builtin_plugins._run.patch_parse.PatchSyntaxError": "patch: a ToolFailure",
    "tooldeck.builtin_plugins._run.patch_parse.HunkMismatch": "patch: a ToolFailure",
    "tooldeck.builtin_plugins._run.webfetch_convert.Abandoned": "ends a thread nobody awaits",
    "tooldeck.codemode.conversation.SandboxFailure": "the runner turns it into a ToolFailure",
    "tooldeck.codemode.sandbox.SandboxUnavailable": "execute: a ToolFailure; code mode goes off",
    "tooldeck.codemode.runner.LimitExceeded": "the runner turns it into a ToolFailure",
    "tooldeck.host.schema.strict._NotStrict": "becomes the reason a tool stays non-strict",
    "tooldeck.host.schema.patterns.PatternError": "an issue of the value it was to match",
    "tooldeck.host.schema.patterns.PatternTimeout": "an issue of the value it was to match",
    "tooldeck.host.features.reading.ResourceNotFound": "mcp serve: the error -32002",
    "tooldeck.host.features.prompts.PromptNotFound": "mcp serve: the error -32602",
    "tooldeck.host.features.prompts.PromptArgumentsError": "mcp serve: the error -32602",
    "tooldeck.mcp.client.stdio.NotJsonRpc": "a line a server sent; its row or a log says so",
    "tooldeck.mcp.client.oauth.signin.SignInNeeded": "the server's row: run tooldeck mcp login",
    "tooldeck.mcp.client.oauth.server_auth.MissingSecret": "the server's row names the variable",
}

WITH_TOOL = ("AwaitingInput", "FrozenToolError", "ToolFailure")
"""Drawn in the tree and exported from ``tooldeck``, but defined in ``tooldeck._tool``."""

_DRAWN = re.compile(r"^(?P<lead>[ │├└─]*)(?P<name>[A-Z]\w+)", re.M)


def exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class defined in a tooldeck module, by qualified name."""
    found = {}
    for module in pkgutil.walk_packages(tooldeck.__path__, "tooldeck."):
        if module.name == "tooldeck.__main__":
            continue
        imported = importlib.import_module(module.name)
        for _, cls in inspect.getmembers(imported, inspect.isclass):
            home = cls.__module__
            if home == "tooldeck":  # a public name reports its public home
                home = tooldeck._LOCATIONS.get(cls.__name__, home)
            if issubclass(cls, BaseException) and home == module.name:
                found[f"{home}.{cls.__qualname__}"] = cls
    return found


def drawn_tree(doc: str) -> list[tuple[str, str | None]]:
    """``(class, parent)`` for each line of the tree drawn after ``::``."""
    tree = doc.split("::", 1)[1]
    stack: list[tuple[int, str]] = []
    edges = []
    for match in _DRAWN.finditer(tree):
        column = len(match["lead"])
        while stack and stack[-1][0] >= column:
            stack.pop()
        edges.append((match["name"], stack[-1][1] if stack else None))
        stack.append((column, match["name"]))
    return edges


def resolve(name: str) -> type[BaseException]:
    return getattr(errors, name, None) or getattr(tooldeck, name, None) or getattr(builtins, name)


def test_every_exception_is_in_the_tree_or_named_internal():
    public = {id(getattr(errors, name)) for name in errors.__all__}
    public |= {id(getattr(tooldeck, name)) for name in WITH_TOOL}
    leaking = [
        name
        for name, cls in exception_classes().items()
        if id(cls) not in public and name not in INTERNAL
    ]
    assert leaking == [], "add them to tooldeck.errors (and the tree) or to INTERNAL"
    assert set(INTERNAL) <= set(exception_classes()), "INTERNAL names a class that is gone"


@pytest.mark.parametrize("name", [*errors.__all__, *WITH_TOOL])
def test_every_error_is_an_exception_exported_from_tooldeck(name):
    cls = resolve(name)
    assert issubclass(cls, BaseException)
    assert getattr(tooldeck, name) is cls and name in tooldeck.__all__


def test_the_docstring_draws_every_error_under_its_real_parent():
    edges = drawn_tree(errors.__doc__ or "")
    assert edges[0] == ("BaseException", None)
    drawn = [name for name, _ in edges]
    assert sorted(set(drawn) - set(dir(builtins))) == sorted([*errors.__all__, *WITH_TOOL])
    assert len(drawn) == len(set(drawn)), "a class drawn twice"
    for name, parent in edges[1:]:
        assert parent in [base.__name__ for base in resolve(name).__bases__], (name, parent)


def test_the_tree_reader_follows_indentation():
    doc = "x::\n\n    Root\n     ├── Left   A text\n     │    └── Leaf\n     └── Right\n"
    assert drawn_tree(doc) == [
        ("Root", None),
        ("Left", "Root"),
        ("Leaf", "Left"),
        ("Right", "Root"),
    ]


def test_invalid_tool_error_is_gone_because_add_reports_a_diagnostic_instead():
    assert not hasattr(errors, "InvalidToolError")
