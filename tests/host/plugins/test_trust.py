"""Hostile repositories: opening a folder never runs its code until the folder is trusted.

Each project below runs code by one path (a plugin file, a project MCP server in
``tooldeck.toml`` or ``pyproject.toml``, a file added or a command changed after trust,
``plugins.order``/``only`` naming a project plugin, a plugin folder linked from outside).
Every one must leave no marker when opened, and run once the folder is trusted.
"""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from tooldeck import (
    Host,
    ToolCall,
    grant_trust,
    revoke_trust,
    run_tool_call,
    trust_status,
    trusted_folders,
)
from tooldeck.builtin_plugins import BUILTIN_PLUGINS

pytestmark = pytest.mark.usefixtures("clean_env", "no_builtins")


def plugin_code(marker):
    return (
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
        "from tooldeck import hookimpl, tool\n\n"
        "@tool\ndef hello() -> str:\n    'Say hello.'\n    return 'hello'\n\n"
        "@hookimpl\ndef tool_transform(editor):\n    editor.add(hello.replace(codemode=False))\n"
    )


def server_table(marker, prefix="mcp.servers"):
    """A server whose command writes ``marker`` and exits (it never speaks MCP)."""
    code = f"import pathlib; pathlib.Path({str(marker)!r}).write_text('ran')"
    command = [sys.executable, "-c", code]
    return f"[{prefix}.evil]\ncommand = {json.dumps(command)}\ntimeout_s = 5\n"


def write_plugin(root, marker, stem="x"):
    folder = root / ".tooldeck" / "plugins"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stem}.py").write_text(plugin_code(marker))


def opened_then_trusted(root, marker):
    """Open untrusted (no marker), trust what is shown, open again (marker)."""
    with Host.open(root) as host:
        assert not host.trust.trusted
        rows = {p.name: p for p in host.plugins}
    assert not marker.exists(), "the project ran code before it was trusted"
    grant_trust(trust_status(root))
    with Host.open(root) as host:
        assert host.trust.trusted and host.trust.source == "store"
    assert marker.read_text() == "ran"
    return rows


def test_a_local_plugin_runs_only_after_trust(tmp_path):
    root, marker = tmp_path / "repo", tmp_path / "marker"
    write_plugin(root, marker)
    rows = opened_then_trusted(root, marker)
    assert rows["local:x"].status == "untrusted"
    assert rows["local:x"].reason == (
        f"this folder is not trusted; review and trust it with: tooldeck trust {root}"
    )


def test_a_project_server_in_tooldeck_toml_starts_only_after_trust(tmp_path):
    root, marker = tmp_path / "repo", tmp_path / "marker"
    root.mkdir()
    (root / "tooldeck.toml").write_text(server_table(marker))
    rows = opened_then_trusted(root, marker)
    assert (rows["mcp:evil"].status, rows["mcp:evil"].layer) == ("untrusted", "mcp")
    assert "[mcp.servers.evil]" in rows["mcp:evil"].origin


def test_a_project_server_in_pyproject_toml_starts_only_after_trust(tmp_path):
    root, marker = tmp_path / "repo", tmp_path / "marker"
    root.mkdir()
    (root / "pyproject.toml").write_text(server_table(marker, "tool.tooldeck.mcp.servers"))
    rows = opened_then_trusted(root, marker)
    assert rows["mcp:evil"].status == "untrusted"


def test_plugins_order_and_only_naming_a_project_plugin_do_not_load_it(tmp_path):
    root, marker = tmp_path / "repo", tmp_path / "marker"
    write_plugin(root, marker)
    (root / "tooldeck.toml").write_text('[plugins]\norder = ["local:x"]\nonly = ["local:x"]\n')
    opened_then_trusted(root, marker)
    with Host.open(root, plugins=["local:x"], trust=False):
        pass  # the embedding host naming it is not trust either


def test_a_plugin_folder_linked_from_outside_runs_only_after_trust(tmp_path):
    outside, marker = tmp_path / "elsewhere", tmp_path / "marker"
    (outside).mkdir()
    (outside / "x.py").write_text(plugin_code(marker))
    root = tmp_path / "repo"
    (root / ".tooldeck").mkdir(parents=True)
    (root / ".tooldeck" / "plugins").symlink_to(outside, target_is_directory=True)
    status = trust_status(root)
    assert f"-> {outside / 'x.py'}" in status.describe()
    opened_then_trusted(root, marker)


def test_a_plugin_file_added_after_trust_untrusts_the_folder(tmp_path):
    root, first, second = tmp_path / "repo", tmp_path / "first", tmp_path / "second"
    write_plugin(root, first, "a")
    grant_trust(trust_status(root))
    write_plugin(root, second, "b")
    first.unlink(missing_ok=True)
    with Host.open(root) as host:
        assert not host.trust.trusted
        assert host.trust.changes == ("added plugin file .tooldeck/plugins/b.py",)
        assert {p.name: p.status for p in host.plugins} == {
            "local:a": "untrusted",
            "local:b": "untrusted",
        }
    assert not first.exists() and not second.exists()
    opened_then_trusted(root, second)


def test_a_changed_server_command_after_trust_untrusts_the_folder(tmp_path):
    root, marker = tmp_path / "repo", tmp_path / "marker"
    root.mkdir()
    harmless = [sys.executable, "-c", "pass"]
    (root / "tooldeck.toml").write_text(
        f"[mcp.servers.evil]\ncommand = {json.dumps(harmless)}\ntimeout_s = 5\n"
    )
    grant_trust(trust_status(root))
    (root / "tooldeck.toml").write_text(server_table(marker))
    status = trust_status(root)
    assert not status.trusted
    [change] = status.changes
    assert change.startswith("changed MCP server evil: was ")
    assert change.count("pathlib.Path(") == 1 and "marker" in change.partition(", now ")[2]
    opened_then_trusted(root, marker)


def test_a_plugin_file_added_while_open_waits_for_trust(tmp_path):
    root, first, second = tmp_path / "repo", tmp_path / "first", tmp_path / "second"
    write_plugin(root, first, "a")
    grant_trust(trust_status(root))
    with Host.open(root) as host:
        assert first.exists()
        write_plugin(root, second, "b")
        host.refresh_plugins()
        assert {p.name: p.status for p in host.plugins} == {
            "local:a": "active",
            "local:b": "untrusted",
        }
    assert not second.exists()


def test_project_allow_rules_apply_only_when_trusted_and_deny_always(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "tooldeck.toml").write_text(
        '[[permission]]\naction = "shell"\neffect = "allow"\n\n'
        '[[permission]]\naction = "webfetch"\neffect = "deny"\n'
    )
    with Host.open(root) as host:
        assert host.trust.skipped("allow")[0].detail == "allow shell on *"
        assert host.location.policy.evaluate("shell", "ls") == "ask"
        assert host.location.policy.evaluate("webfetch", "x") == "deny"
    with Host.open(root, trust=True) as host:
        assert host.location.policy.evaluate("shell", "ls") == "allow"


def test_a_folder_with_nothing_to_run_opens_as_before(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "tooldeck.toml").write_text('[output]\nmax_lines = 5\n[plugins]\norder = ["x"]\n')
    with Host.open(root) as host:
        assert (host.trust.trusted, host.trust.source, host.trust.notice()) == (
            True,
            "nothing to trust",
            None,
        )
        assert host.location.config.output.max_lines == 5
    assert trusted_folders() == {}


def test_a_folder_without_project_config_or_plugins_is_decided_as_the_store_would(tmp_path):
    # Such a folder opens without loading trust (``trust_gate.Untouched``): its decision,
    # asked for later, is the one the plain path gives.
    from tooldeck.host.trust.store import inspect_folder

    root = tmp_path / "repo"
    root.mkdir()
    with Host.open(root) as host:
        assert host.trust == inspect_folder(root.resolve(), None)[2]
        assert host.trust.source == "nothing to trust"


def test_a_plugin_file_added_while_a_folder_with_nothing_to_trust_is_open_waits(tmp_path):
    root, marker = tmp_path / "repo", tmp_path / "marker"
    root.mkdir()
    with Host.open(root) as host:
        write_plugin(root, marker)
        host.refresh_plugins()
        assert {p.name: p.status for p in host.plugins} == {"local:x": "untrusted"}
        row = next(p for p in host.plugins if p.name == "local:x")
        assert "tooldeck trust" in (row.reason or "")
    assert not marker.exists()


def test_untrusted_projects_keep_every_other_setting(tmp_path):
    root, marker = tmp_path / "repo", tmp_path / "marker"
    root.mkdir()
    (root / "tooldeck.toml").write_text(
        server_table(marker) + "[output]\nmax_lines = 7\n[codemode]\nenabled = false\n"
    )
    with Host.open(root) as host:
        assert host.location.config.output.max_lines == 7
        assert not host.location.config.codemode.enabled
        assert host.location.config.mcp.servers == {}


def test_argument_and_environment_trust_for_one_process(tmp_path, monkeypatch):
    root, marker = tmp_path / "repo", tmp_path / "marker"
    write_plugin(root, marker)
    grant_trust(trust_status(root))
    with Host.open(root, trust=False) as host:
        assert (host.trust.trusted, host.trust.source) == (False, "argument")
    assert not marker.exists()
    monkeypatch.setenv("TOOLDECK_TRUST", "0")
    with Host.open(root) as host:
        assert (host.trust.trusted, host.trust.source) == (False, "environment")
    assert revoke_trust(root)
    monkeypatch.setenv("TOOLDECK_TRUST", "1")
    with Host.open(root) as host:
        assert (host.trust.trusted, host.trust.source) == (True, "environment")
    assert marker.exists()


def test_a_wrong_trust_variable_is_a_config_error(tmp_path, monkeypatch):
    from tooldeck import ConfigError

    write_plugin(tmp_path, tmp_path / "marker")
    monkeypatch.setenv("TOOLDECK_TRUST", "yes")
    with pytest.raises(ConfigError, match=r"TOOLDECK_TRUST: .*expected 1 .* or 0 .*got 'yes'"):
        Host.open(tmp_path)


def test_the_plugin_that_runs_is_the_file_that_was_digested(tmp_path):
    from tooldeck.host.plugins.discovery import local_candidates

    first, second = tmp_path / "first", tmp_path / "second"
    write_plugin(tmp_path, first)
    [candidate] = local_candidates(tmp_path)
    write_plugin(tmp_path, second)  # swapped after the digest was taken
    assert candidate.load is not None
    candidate.load()
    assert first.exists() and not second.exists()


def test_what_the_user_configured_loads_in_an_untrusted_folder(tmp_path):
    from tooldeck.host.config.config_files import user_config_path

    root, marker = tmp_path / "repo", tmp_path / "marker"
    write_plugin(root, tmp_path / "project-marker")
    user = user_config_path()
    user.parent.mkdir(parents=True)
    user.write_text(server_table(marker) + '\n[[permission]]\naction = "shell"\neffect = "allow"\n')
    with Host.open(root) as host:
        assert not host.trust.trusted
        assert host.location.policy.evaluate("shell", "ls") == "allow"
        assert {p.name: p.status for p in host.plugins} == {
            "mcp:evil": "failed",  # the user's server started (it never speaks MCP)
            "local:x": "untrusted",
        }
    assert marker.read_text() == "ran"
    assert not (tmp_path / "project-marker").exists()


def test_a_plugin_file_linked_from_outside_runs_only_after_trust(tmp_path):
    outside, marker = tmp_path / "elsewhere.py", tmp_path / "marker"
    outside.write_text(plugin_code(marker))
    root = tmp_path / "repo"
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / "x.py").symlink_to(outside)
    assert f"-> {outside}" in trust_status(root).describe()
    rows = opened_then_trusted(root, marker)
    assert rows["local:x"].status == "untrusted"


async def test_a_project_formatter_runs_only_after_trust(tmp_path, monkeypatch):
    monkeypatch.setattr("tooldeck.builtin_plugins.BUILTIN_PLUGINS", BUILTIN_PLUGINS)
    root, marker = tmp_path / "repo", tmp_path / "marker"
    root.mkdir()
    code = f"import pathlib; pathlib.Path({str(marker)!r}).write_text('ran')"
    command = json.dumps([sys.executable, "-c", code])
    (root / "tooldeck.toml").write_text(f'[format]\n"*.txt" = {command}\n')

    async def write_a_file(name):
        with Host.open(root, asker=lambda request: "once") as host:
            call = ToolCall(id="c", name="write", input={"path": name, "content": "x\n"})
            outcome = await run_tool_call(host.snapshot(), call)
            assert outcome.status == "completed", outcome
            return host.trust, outcome.metadata.get("formatted")

    trust, formatted = await write_a_file("a.txt")
    assert [(i.kind, i.name) for i in trust.items] == [("formatter", "*.txt")]
    assert not trust.trusted and formatted is None
    assert not marker.exists(), "the project's formatter ran before the folder was trusted"
    grant_trust(trust_status(root))
    trust, formatted = await write_a_file("b.txt")
    assert trust.trusted and formatted[0]["status"] == "unchanged"
    assert marker.read_text() == "ran"


# -- what users see ------------------------------------------------------------------------
def test_opening_a_folder_with_something_to_trust_logs_one_warning(tmp_path, caplog):
    root = tmp_path / "repo"
    write_plugin(root, tmp_path / "marker")
    with caplog.at_level("WARNING", logger="tooldeck"), Host.open(root) as host:
        notice = host.trust.notice()
    warnings = [r for r in caplog.records if r.name == "tooldeck"]
    assert [r.getMessage() for r in warnings] == [notice]
    assert notice is not None and f"tooldeck trust {root}" in notice
    caplog.clear()
    grant_trust(trust_status(root))
    with caplog.at_level("WARNING", logger="tooldeck"), Host.open(root):
        pass
    assert [r for r in caplog.records if r.name == "tooldeck"] == []


def test_a_call_to_a_tool_trust_skipped_names_its_source_and_the_trust_command(tmp_path):
    root, marker = tmp_path / "repo", tmp_path / "marker"
    write_plugin(root, marker)
    (root / "tooldeck.toml").write_text(server_table(marker))
    with Host.open(root) as host:
        snapshot = host.snapshot()
        hello = asyncio.run(run_tool_call(snapshot, ToolCall("c1", "hello", {})))
        mounted = asyncio.run(run_tool_call(snapshot, ToolCall("c2", "evil_run", {})))
        other = asyncio.run(run_tool_call(snapshot, ToolCall("c3", "nothing_like_it", {})))
    assert hello.content[0].text == (
        f"Tool 'hello' comes from `local:x`, skipped: this folder is not trusted — "
        f"`tooldeck trust {root}`"
    )
    assert "comes from `mcp:evil`, skipped" in mounted.content[0].text
    assert other.content[0].text.startswith("Tool 'nothing_like_it' is not available.")
    assert not marker.exists()


def test_a_plugin_files_tools_are_read_without_running_it(tmp_path):
    from tooldeck.host.plugins.withheld import tool_names

    path = tmp_path / "x.py"
    path.write_text(
        "raise SystemExit('never run')\n"
        "from tooldeck import Tool, tool\nimport tooldeck\n"
        "@tool\ndef plain() -> str: ...\n"
        "@tooldeck.tool(name='renamed', namespace='fun')\nasync def whatever() -> str: ...\n"
        "T = Tool(name='built', description='d', execute=print)\n"
        "U = Tool(name=computed(), description='d', execute=print)\n"
    )
    assert tool_names(path) == ["plain", "fun_renamed", "built"]
    path.write_text("def broken(:\n")
    assert tool_names(path) == []
