"""Tests for tooldeck-hello, through tooldeck's public API only.

Copy these with the pack: open a Host on a temp dir with your plugin, take a snapshot
and run calls through ``run_tool_call``, the boundary a real agent loop uses.
"""

from __future__ import annotations

import pytest
import tooldeck

import tooldeck_hello


@pytest.fixture
def project(tmp_path):
    """A project dir with code mode off, so every tool is callable by its own name."""
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


def test_the_definition_comes_from_the_signature_and_docstring(project):
    host = tooldeck.Host.open(project, plugins=[tooldeck_hello])
    [greet] = [
        d for d in host.snapshot().definitions_for("openai") if d["function"]["name"] == "greet"
    ]
    function = greet["function"]
    assert function["description"] == "Greet someone by name."
    assert function["parameters"]["required"] == ["name"]
    assert function["parameters"]["properties"]["name"]["description"] == "Who to greet."
    assert tooldeck_hello.greet.codemode is True  # the default: a code-mode tool


def test_the_installed_entry_point_loads_the_pack(project):
    """Needs the pack installed (``pip install .``): found by its distribution name."""
    host = tooldeck.Host.open(project, plugins=["tooldeck-hello"])
    [info] = [p for p in host.plugins if p.name == "tooldeck-hello"]
    assert info.status == "active", info.reason
    assert info.provides == ("greet",)
    assert host.service.catalog.tools["greet"].source == "tooldeck-hello"
