"""A server that crashes, a server over HTTP, selection, closing, and no SDK installed."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from tooldeck import Host, ToolCall, run_tool_call

from ..conftest import make_project, process_gone, stdio_server, wait_for

ALLOW = '[[permission]]\naction = "*_*"\neffect = "allow"\n'


def call(host, name, arguments=None):
    return asyncio.run(run_tool_call(host.snapshot(), ToolCall("c", name, arguments or {})))


def row(host, name):
    return next(p for p in host.plugins if p.name == name)


def test_a_crash_is_reported_the_host_keeps_serving_and_the_next_call_reconnects(
    module_env, tmp_path
):
    config = stdio_server("calc", "calc_server.py", plain=True) + ALLOW  # its pid is asked
    root = make_project(tmp_path / "p", config)
    with Host.open(root, plugins=[]) as host:
        first = call(host, "calc_pid").output["result"]
        crashed = call(host, "calc_crash")
        assert crashed.status == "failed"
        assert "MCP server 'calc' closed the connection during the call to 'crash'" in (
            crashed.error.message
        )
        assert "calc: crashing on purpose" in crashed.error.message
        calc = wait_for(lambda: row(host, "mcp:calc").status == "failed" and row(host, "mcp:calc"))
        assert "exited with status 3" in calc.reason
        assert call(host, "read", {"path": "tooldeck.toml"}).status == "completed"
        second = call(host, "calc_pid").output["result"]  # reconnected once
        assert second != first
        assert row(host, "mcp:calc").status == "active"
    assert process_gone(first)
    assert process_gone(second)


def test_close_ends_every_stdio_child(module_env, tmp_path):
    config = (
        stdio_server("a", "calc_server.py", plain=True)
        + stdio_server("b", "calc_server.py", "--handshake-only", plain=True)
        + ALLOW
    )
    host = Host.open(make_project(tmp_path / "p", config), plugins=[])
    pids = [call(host, f"{name}_pid").output["result"] for name in ("a", "b")]
    assert not any(process_gone(pid) for pid in pids)
    host.close()
    assert all(process_gone(pid) for pid in pids)
    host.close()  # idempotent


def test_sync_hosts_call_from_many_threads(module_env, tmp_path):
    root = make_project(tmp_path / "p", stdio_server("calc", "calc_server.py") + ALLOW)
    with Host.open(root, plugins=[]) as host:
        snapshot = host.snapshot()

        def add(i):
            return snapshot.execute_sync(ToolCall(f"c{i}", "calc_add", {"a": i, "b": 1})).output

        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(add, range(40)))
    assert results == [{"result": i + 1} for i in range(40)]


def test_a_server_over_streamable_http(module_env, tmp_path, http_calc):
    config = f'[mcp.servers.web]\nurl = "{http_calc}"\nheaders = {{X-Test = "1"}}\n' + ALLOW
    with Host.open(make_project(tmp_path / "p", config), plugins=[]) as host:
        assert row(host, "mcp:web").status == "active"
        assert call(host, "web_add", {"a": 20, "b": 22}).content[0].text == "42"
        call(host, "web_grow", {"name": "over_http"})
        wait_for(lambda: "web_over_http" in host.service.catalog.tools)


@pytest.mark.parametrize(
    ("setting", "reason"),
    [
        ({"disable": ["mcp:calc"]}, "disabled by Host.open(disable=...)"),
        (
            {"config": '[plugins]\ndisable = ["mcp:calc"]\n'},
            "disabled by project config plugins.disable",
        ),
        ({"env": "mcp:calc"}, "disabled by TOOLDECK_DISABLE_PLUGINS"),
        ({"config": "enabled = false\n"}, "disabled by config mcp.servers.calc.enabled = false"),
        ({"disable": ["mcp"]}, "disabled by Host.open(disable=...)"),
    ],
)
def test_a_server_can_be_turned_off(module_env, tmp_path, monkeypatch, setting, reason):
    extra = setting.get("config", "")
    table = '[mcp.servers.calc]\ncommand = ["no-such-command"]\n'
    config = (table + extra) if extra.startswith("enabled") else (extra + table)
    if "env" in setting:
        monkeypatch.setenv("TOOLDECK_DISABLE_PLUGINS", setting["env"])
    with Host.open(
        make_project(tmp_path / "p", config), plugins=[], disable=setting.get("disable", ())
    ) as host:
        calc = row(host, "mcp:calc")
    assert (calc.status, calc.reason, calc.layer) == ("disabled", reason, "mcp")


def test_two_servers_with_one_namespace_fail_the_second(module_env, tmp_path):
    config = (
        '[mcp.servers."my.calc"]\ncommand = ["nope-1"]\nenabled = true\n'
        '[mcp.servers.my_calc]\ncommand = ["nope-2"]\n'
    )
    with Host.open(make_project(tmp_path / "p", config), plugins=[]) as host:
        second = row(host, "mcp:my_calc")
    assert second.status == "failed"
    assert second.reason == (
        "its tool namespace 'my_calc' is already used by server 'my.calc'; rename one of them"
    )


NO_SDK = """
import json, sys
sys.modules["mcp"] = None  # as if the extra were not installed
from tooldeck import Host
host = Host.open(sys.argv[1], plugins=[])
print(json.dumps([(p.name, p.status, p.reason) for p in host.plugins if p.layer == "mcp"]))
"""


def test_without_the_extra_each_server_row_says_what_to_install(module_env, tmp_path):
    root = make_project(tmp_path / "p", stdio_server("calc", "calc_server.py"))
    done = subprocess.run(
        [sys.executable, "-c", NO_SDK, str(root)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert json.loads(done.stdout) == [
        ["mcp:calc", "failed", "the MCP extra is not installed: pip install 'tooldeck[mcp]'"]
    ]


def test_the_cli_lists_and_calls_mounted_tools(module_env, tmp_path, capsys):
    from tooldeck.cli import main

    root = make_project(tmp_path / "p", stdio_server("calc", "calc_server.py") + ALLOW)
    assert main(["--location", str(root), "plugins"]) == 0
    listed = capsys.readouterr().out
    assert "mcp:calc" in listed and "+calc_add" in listed
    assert main(["--location", str(root), "call", "calc_add", '{"a": 4, "b": 5}']) == 0
    assert capsys.readouterr().out.strip() == "9"
