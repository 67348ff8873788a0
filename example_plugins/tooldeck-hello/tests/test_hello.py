"""Tests for tooldeck-hello, through tooldeck's public API only.

Copy these with the pack: open a Host on a temp dir with your plugin, take a snapshot
and run calls through ``run_tool_call``, the boundary a real agent loop uses. Every test
runs twice: with code mode on (the default: ``greet`` is reached through ``execute``)
and off (every tool native). Calls by the tool's own name work in both.
"""

from __future__ import annotations

import pytest
import tooldeck

import tooldeck_hello


@pytest.fixture(params=["code", "native"])
def mode(request):
    return request.param


@pytest.fixture
def project(tmp_path, monkeypatch, mode):
    """A project dir, no user config leaking in; ``native``: code mode turned off."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    if mode == "native":
        (tmp_path / "tooldeck.toml").write_text("[codemode]\nenabled = false\n")
    return tmp_path


async def call(host, tool_name, /, **arguments):
    snapshot = host.snapshot()
    return await tooldeck.run_tool_call(snapshot, tooldeck.ToolCall("call_1", tool_name, arguments))


async def test_greet_greets(project):
    host = tooldeck.Host.open(project, plugins=[tooldeck_hello])
    outcome = await call(host, "greet", name="Ada")
    assert outcome.status == "completed"
    assert outcome.content[0].text == "Hello, Ada."
    assert outcome.output == "Hello, Ada."


async def test_greet_can_be_excited(project):
    host = tooldeck.Host.open(project, plugins=[tooldeck_hello])
    outcome = await call(host, "greet", name="Ada", excited=True)
    assert outcome.content[0].text == "Hello, Ada!"


async def test_a_missing_name_is_reported_to_the_model(project):
    host = tooldeck.Host.open(project, plugins=[tooldeck_hello])
    outcome = await call(host, "greet")
    assert outcome.status == "failed"
    assert outcome.error.type == "tool.execution"
    assert "- name: " in outcome.error.message


def test_the_definition_comes_from_the_signature_and_docstring(project, mode):
    host = tooldeck.Host.open(project, plugins=[tooldeck_hello])
    assert tooldeck_hello.greet.codemode is True  # the default: a code-mode tool
    definitions = {
        d["function"]["name"]: d["function"] for d in host.snapshot().definitions_for("openai")
    }
    if mode == "code":  # greet is a Python function in the execute tool's description
        assert "greet" not in definitions
        assert (
            "    async def greet(self, *, name: str, excited: bool = False) -> str:\n"
            '        """Greet someone by name.\n\n'
            "        Args:\n"
            "            name: Who to greet.\n"
        ) in definitions["execute"]["description"]
        return
    function = definitions["greet"]
    assert function["description"] == "Greet someone by name."
    assert function["parameters"]["required"] == ["name"]
    assert function["parameters"]["properties"]["name"]["description"] == "Who to greet."
    assert "execute" not in definitions


async def test_a_program_greets_through_execute(project, mode):
    host = tooldeck.Host.open(project, plugins=[tooldeck_hello])
    program = "names = ['Ada', 'Grace']\n[await tools.greet(name=n) for n in names]"
    outcome = await call(host, "execute", code=program)
    if mode == "native":  # no code-mode tool is hidden, so there is no execute tool
        assert outcome.status == "failed" and "not available" in outcome.error.message
        return
    assert outcome.status == "completed", outcome.content
    assert outcome.output["result"] == ["Hello, Ada.", "Hello, Grace."]
    assert [c["name"] for c in outcome.output["tool_calls"]] == ["greet", "greet"]


def test_the_installed_entry_point_loads_the_pack(project):
    """Needs the pack installed (``pip install .``): found by its distribution name."""
    host = tooldeck.Host.open(project, plugins=["tooldeck-hello"])
    [info] = [p for p in host.plugins if p.name == "tooldeck-hello"]
    assert info.status == "active", info.reason
    assert info.provides == ("greet",)
    assert host.service.catalog.tools["greet"].source == "tooldeck-hello"
