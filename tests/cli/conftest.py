"""A project directory with Location plugins, and the CLI run in-process."""

from __future__ import annotations

import contextlib
import io

import pytest

from tooldeck.cli import main

GREET = """
from tooldeck import Tool, ToolResult, hookimpl

@hookimpl
def namespace_descriptions(editor):
    editor.namespace("fun", "Fun things.")

@hookimpl
def tool_transform(editor):
    editor.add(Tool(name="greet", description="Greet someone.\\nSecond line.", codemode=False,
                    input={"type": "object", "properties": {"name": {"type": "string"}},
                           "required": ["name"]},
                    execute=lambda i, c: ToolResult(content=f"Hello, {i['name']}!")))
    editor.add(Tool(name="joke", namespace="fun", description="Tell a joke.",
                    permission="fun", execute=lambda i, c: ToolResult(content="...")))
"""

LOUD = """
from tooldeck import ToolResult, hookimpl

@hookimpl
def tool_transform(editor):
    editor.update("greet", lambda t: t.replace(
        execute=lambda i, c: ToolResult(content=f"HELLO, {i['name'].upper()}!")))
"""

SECRET = """
from tooldeck import Tool, ToolFailure, ToolResult, hookimpl
from tooldeck.errors import PermissionCorrected

async def secret(input, ctx):
    try:
        await ctx.permission.assert_("secret", ["vault"])
    except PermissionCorrected as exc:
        raise ToolFailure(f"not allowed: {exc.feedback}") from exc
    return ToolResult(content="the secret")

@hookimpl
def tool_transform(editor):
    editor.add(Tool(name="secret", description="Reveal it.", execute=secret, codemode=False))
"""


@pytest.fixture
def project(clean_env, monkeypatch):
    """A project with Location plugins a_greet, b_loud and c_secret; no built-ins."""
    monkeypatch.setattr("tooldeck.builtin_plugins.BUILTIN_PLUGINS", ())
    monkeypatch.setenv("TOOLDECK_LOAD_PLUGINS", "local:a_greet,local:b_loud,local:c_secret")
    root = clean_env / "project"
    plugins = root / ".tooldeck" / "plugins"
    plugins.mkdir(parents=True)
    for stem, text in (("a_greet", GREET), ("b_loud", LOUD), ("c_secret", SECRET)):
        (plugins / f"{stem}.py").write_text(text)
    trust(root)
    return root


def trust(root):
    """Trust ``root`` the way a user does (`tooldeck trust --yes`), in this test's data dir;
    again after a test adds a plugin file, since that changes what the folder runs."""
    with contextlib.redirect_stdout(io.StringIO()) as shown:
        assert main(["trust", "--yes", str(root)]) == 0
    assert "trusted (fingerprint" in shown.getvalue()


@pytest.fixture
def tooldeck(project, capsys):
    """``tooldeck(*args)`` → (exit code, stdout, stderr), with ``--location project``."""

    def run(*args):
        code = main(["--location", str(project), *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run
