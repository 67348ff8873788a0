"""``tooldeck tools``."""

from __future__ import annotations

import json

import pytest

from .conftest import trust


def test_table(tooldeck):
    code, out, _ = tooldeck("tools")
    assert code == 0
    assert out.splitlines() == [
        "NAME      MODE    PLUGIN          OVERRIDES      PERMISSION  DESCRIPTION",
        "fun_joke  code    local:a_greet   -              fun         Tell a joke.",
        "greet     native  local:b_loud    local:a_greet  greet       Greet someone.",
        "secret    native  local:c_secret  -              secret      Reveal it.",
    ]


def test_json(tooldeck):
    code, out, _ = tooldeck("tools", "--json")
    rows = {row["name"]: row for row in json.loads(out)}
    assert code == 0
    assert rows["fun_joke"]["mode"] == "code"
    assert rows["greet"] == {
        "name": "greet",
        "mode": "native",
        "plugin": "local:b_loud",
        "overrides": ["local:a_greet"],
        "permission": "greet",
        "namespace": None,
        "description": "Greet someone.\nSecond line.",
        "deferred": False,
    }
    assert rows["fun_joke"]["namespace"] == "fun"


@pytest.mark.parametrize(
    ("fmt", "key"),
    [
        ("openai", "function"),
        ("anthropic", "input_schema"),
        ("gemini", "parameters"),
        ("mcp", "inputSchema"),
    ],
)
def test_provider_formats(tooldeck, fmt, key):
    code, out, _ = tooldeck("tools", "--format", fmt)
    definitions = json.loads(out)
    assert code == 0
    assert len(definitions) == 3 and all(key in d for d in definitions)


def test_formats_match_the_renderer():
    from tooldeck.cli.tools import FORMATS
    from tooldeck.providers.formats import FORMATS as RENDERED

    assert FORMATS == RENDERED


def test_an_empty_catalog(tooldeck, monkeypatch):
    monkeypatch.setenv("TOOLDECK_LOAD_PLUGINS", "")
    assert tooldeck("tools") == (0, "no tools\n", "")


def test_codemode_prints_the_execute_description(tooldeck):
    code, out, _ = tooldeck("tools", "--codemode")
    assert code == 0
    assert out.startswith("Run a Python program that calls tools as async functions.")
    assert 'class tools_fun:\n    """tools.fun: Fun things."""' in out
    assert "async def joke(self) -> str:" in out


def test_execute_is_listed_last_in_provider_formats(tooldeck):
    _, out, _ = tooldeck("tools", "--format", "openai")
    assert [d["function"]["name"] for d in json.loads(out)] == ["greet", "secret", "execute"]


def test_code_mode_off_says_why(tooldeck, project):
    (project / "tooldeck.toml").write_text("[codemode]\nenabled = false\n")
    code, out, err = tooldeck("tools")
    assert code == 0 and "fun_joke  native" in out
    assert err == (
        "note: code mode is off ([codemode] enabled = false); code-mode tools are "
        "listed as native\n"
    )
    code, _, err = tooldeck("tools", "--codemode")
    assert code == 2 and "code mode is off ([codemode] enabled = false)" in err


def test_a_deferred_tool_says_so(tooldeck, project):
    """A tool behind search_tools is still native, but the model does not see it up
    front: the table says ``deferred`` and the JSON keeps ``mode`` with ``deferred``."""
    (project / "tooldeck.toml").write_text('[tools."greet"]\ndefer_loading = true\n')
    code, out, _ = tooldeck("tools")
    modes = {line.split()[0]: line.split()[1] for line in out.splitlines()[1:]}
    assert code == 0 and modes == {"fun_joke": "code", "greet": "deferred", "secret": "native"}
    _, out, _ = tooldeck("tools", "--json")
    rows = {row["name"]: row for row in json.loads(out)}
    assert (rows["greet"]["mode"], rows["greet"]["deferred"]) == ("native", True)
    assert rows["secret"]["deferred"] is False


def test_help_says_what_the_permission_column_means(tooldeck, monkeypatch):
    monkeypatch.setenv("COLUMNS", "2000")  # one line per paragraph
    code, out, _ = tooldeck("tools", "--help")
    assert code == 0
    assert "PERMISSION is the action a [[permission]] rule names to deny" in out
    assert "A tool whose code never asks, like most of your own, runs without asking." in out


PLUGIN_OBJECT = """
from tooldeck import Tool, ToolResult, hookimpl

class Plugin:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(Tool(name="hi", description="Hi.", execute=lambda i, c: ToolResult("hi")))

plugin = Plugin()  # an object, where a plugin file needs module-level hook functions
"""


def test_plugins_that_failed_to_load_are_named_in_one_line(tooldeck, project, monkeypatch):
    plugins = project / ".tooldeck" / "plugins"
    (plugins / "d_object.py").write_text(PLUGIN_OBJECT)
    (plugins / "e_broken.py").write_text("raise RuntimeError('boom\\nmore')\n")
    trust(project)
    monkeypatch.setenv("TOOLDECK_LOAD_PLUGINS", "local:a_greet,local:d_object,local:e_broken")
    code, out, err = tooldeck("tools")
    assert code == 0 and "greet" in out and "hi" not in out.split()
    [line] = err.splitlines()
    assert line.startswith("tooldeck: 2 plugins failed to load: local:d_object (no @hookimpl")
    assert "local:e_broken (executing e_broken.py raised RuntimeError: boom)" in line
    assert line.endswith(" — tooldeck plugins")


def test_run_code_names_failed_plugins_too(tooldeck, project, monkeypatch):
    (project / ".tooldeck" / "plugins" / "d_object.py").write_text(PLUGIN_OBJECT)
    trust(project)
    monkeypatch.setenv("TOOLDECK_LOAD_PLUGINS", "local:a_greet,local:d_object")
    code, out, err = tooldeck("run-code", "await tools.fun.joke()")
    assert (code, out.strip()) == (0, "...")
    assert err.startswith("tooldeck: 1 plugin failed to load: local:d_object (no @hookimpl")
