"""tooldeck-guard over a real Host: native, code-mode and MCP-mounted calls alike."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
import tooldeck
from tooldeck import ToolCall, hookimpl, run_tool_call, tool
from tooldeck.testing import ScriptedAsker

import tooldeck_guard

SECRET = "sk-test-0123456789"
GUARD = tooldeck_guard.Guard(refuse=[r"\brm\s+-rf\b", r"curl .*\| *sh"], secrets=[SECRET])


@tool
def leak(topic: str) -> str:
    """Says too much."""
    return f"{topic}: the key is {SECRET}"


class Leaky:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(leak)  # a code-mode tool
        editor.add(leak.replace(name="leak_native", codemode=False))


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    root = tmp_path / "project"
    root.mkdir()
    (root / "tooldeck.toml").write_text('[[permission]]\naction = "*"\neffect = "allow"\n')
    return root


def call(host, name, arguments):
    return asyncio.run(run_tool_call(host.snapshot(), ToolCall("c1", name, arguments)))


def test_a_refused_shell_command_never_runs(project):
    marker = project / "ran"
    with tooldeck.Host.open(project, plugins=[GUARD], asker=ScriptedAsker()) as host:
        refused = call(host, "shell", {"command": f"touch {marker} && rm -rf build"})
        allowed = call(host, "shell", {"command": "echo fine"})
    assert (refused.status, refused.error.type) == ("failed", "tool.execution")
    assert "refuses this shell command" in refused.error.message
    assert r"/\brm\s+-rf\b/" in refused.error.message
    assert not marker.exists()
    assert allowed.status == "completed" and "fine" in allowed.content[0].text


def test_secrets_are_redacted_from_native_results_and_failures(project):
    with tooldeck.Host.open(project, plugins=[Leaky(), GUARD], asker=ScriptedAsker()) as host:
        said = call(host, "leak_native", {"topic": "db"})
        echoed = call(host, "shell", {"command": f"echo {SECRET}"})
        failed = call(host, "leak_native", {"topic": ["not", SECRET]})
    assert said.content[0].text == "db: the key is [redacted]"
    assert said.output == "db: the key is [redacted]"
    assert SECRET not in echoed.content[0].text and "[redacted]" in echoed.content[0].text
    assert failed.status == "failed"
    assert SECRET not in failed.error.message and "[redacted]" in failed.error.message


def test_code_mode_calls_are_guarded_inside_the_program(project):
    with tooldeck.Host.open(project, plugins=[Leaky(), GUARD]) as host:
        assert "execute" in host.snapshot().names
        program = call(host, "execute", {"code": "x = await tools.leak(topic='db')\nx"})
        printed = call(host, "execute", {"code": "x = await tools.leak(topic='db')\nprint(x[-8:])"})
    assert program.status == "completed"
    assert SECRET not in program.content[0].text and "[redacted]" in program.content[0].text
    # The nested call's result was redacted before the program read it: no slice of the
    # secret can be printed.
    assert SECRET[-8:] not in printed.content[0].text and "edacted]" in printed.content[0].text


def test_mounted_mcp_tools_are_guarded(project):
    server = Path(__file__).parent / "leak_server.py"
    (project / "tooldeck.toml").write_text(
        "[mcp.servers.vault]\n"
        f"command = {json.dumps([sys.executable, str(server)])}\n"
        f'env = {{VAULT_SECRET = "{SECRET}"}}\n'
        "codemode = false\n"
        '[[permission]]\naction = "*"\neffect = "allow"\n'
    )
    with tooldeck.Host.open(project, plugins=[GUARD], trust=True) as host:
        outcome = call(host, "vault_leak", {})
    assert (outcome.status, outcome.content[0].text) == ("completed", "the key is [redacted]")


def test_the_entry_point_guard_reads_the_environment():
    guard = tooldeck_guard.Guard.from_environment(
        {
            "TOOLDECK_GUARD_REFUSE": "sudo\n\n",
            "TOOLDECK_GUARD_SECRETS": "TOKEN, MISSING",
            "TOKEN": "t0k",
        }
    )
    assert [p.pattern for p in guard.refuse] == ["sudo"]
    assert guard.secrets == ("t0k",)


def test_an_invalid_pattern_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"refuse pattern '\('"):
        tooldeck_guard.Guard(refuse=["("])
