"""Every exchange with a mounted server is bounded: a call that is never answered, a
reply that cannot be read or is too large, and helpers a server leaves behind."""

from __future__ import annotations

import asyncio
import sys

import pytest

from tooldeck import Host, ToolCall, run_tool_call

from ..conftest import make_project, process_gone, stdio_server, toml_list, wait_for

GARBLED = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message and "method" in message:
        deep = "[" * 300 + "]" * 300
        sys.stdout.write('{"jsonrpc": "2.0", "id": %s, "result": %s}\\n'
                         % (json.dumps(message["id"]), deep))
        sys.stdout.flush()
"""


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    return tmp_path_factory.mktemp("bounded")


@pytest.fixture(scope="module")
def host(paths, module_env):
    config = (
        stdio_server("stuck", "odd_server.py", "--bool-schema", extra="timeout_s = 5")
        + stdio_server("deep", "odd_server.py", "--deep", "300", extra="timeout_s = 10")
        + f"[mcp.servers.garbled]\ncommand = {toml_list([sys.executable, '-c', GARBLED])}\n"
        + "timeout_s = 10\n"
        + '[[permission]]\naction = "*_*"\neffect = "allow"\n'
    )
    with Host.open(make_project(paths / "project", config), plugins=[]) as opened:
        yield opened


def row(host, name):
    return next(p for p in host.plugins if p.name == name)


async def call(host, name):
    return await run_tool_call(host.snapshot(), ToolCall("c", name, {}))


async def test_a_call_never_answered_fails_at_timeout_s_naming_server_and_limit(host):
    outcome = await asyncio.wait_for(call(host, "stuck_hang"), 60)
    assert outcome.status == "failed"
    assert "MCP server 'stuck' did not answer the call to 'hang' within 5s" in outcome.error.message
    assert (await call(host, "stuck_ok")).content[0].text == "ok"  # the session goes on


async def test_an_oversized_reply_fails_its_own_call_despite_nested_ids(host):
    outcome = await asyncio.wait_for(call(host, "stuck_huge"), 60)
    assert outcome.status == "failed"
    assert "larger than 32 MiB; it was dropped" in outcome.error.message
    assert (await call(host, "stuck_ok")).content[0].text == "ok"


async def test_an_output_schema_pattern_is_matched_in_bounded_time(host):
    outcome = await asyncio.wait_for(call(host, "stuck_evil_output"), 60)
    assert outcome.status == "failed"
    assert "does not match '^(a+)+$'" in outcome.error.message


def test_a_listing_that_cannot_be_read_is_reported_as_such_not_as_a_timeout(host):
    deep = row(host, "mcp:deep")
    assert deep.status == "failed"
    assert "reply could not be read" in deep.reason
    assert "timed out" not in deep.reason


def test_garbage_in_the_handshake_reply_is_reported_as_such(host):
    garbled = row(host, "mcp:garbled")
    assert garbled.status == "failed"
    assert "reply could not be read" in garbled.reason, garbled.reason
    assert "timed out" not in garbled.reason


def test_a_tool_the_sdk_refuses_is_skipped_and_the_rest_mounted(host):
    stuck = row(host, "mcp:stuck")
    assert stuck.status == "active" and "stuck_ok" in stuck.provides
    assert any("'bool_schema' was skipped" in note for note in stuck.diagnostics)


def test_closing_ends_the_servers_whole_process_group(paths, module_env):
    pidfile = paths / "helper.pid"
    config = stdio_server("helper", "odd_server.py", "--helper", str(pidfile), plain=True)
    with Host.open(make_project(paths / "helper-project", config), plugins=[]) as opened:
        assert row(opened, "mcp:helper").status == "active"
        helper = int(wait_for(lambda: pidfile.exists() and pidfile.read_text()))
        assert not process_gone(helper)
    wait_for(lambda: process_gone(helper), timeout=10)
