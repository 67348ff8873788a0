"""Servers that misbehave: each ends in a clear diagnostic or failure, bounded in time
and memory, and the rest of the catalog is unaffected."""

from __future__ import annotations

import asyncio
import sys

import pytest

from tooldeck import Host, ToolCall, run_tool_call

from ..conftest import make_project, stdio_server, toml_list

SILENT = [sys.executable, "-c", "import sys; sys.stdin.read()"]
EXITS = [
    sys.executable,
    "-c",
    "import sys; sys.stderr.write('exits: missing API key\\n'); sys.exit(2)",
]
CONFIG = (
    stdio_server("odd", "odd_server.py", "--garbage")
    + stdio_server("many", "odd_server.py", "--many", "10000")
    + f"[mcp.servers.silent]\ncommand = {toml_list(SILENT)}\ntimeout_s = 1\n"
    + f"[mcp.servers.exits]\ncommand = {toml_list(EXITS)}\n"
    + '[mcp.servers.missing]\ncommand = ["no-such-mcp-server-command"]\n'
    + '[[permission]]\naction = "*_*"\neffect = "allow"\n'
)


@pytest.fixture(scope="module")
def host(module_env):
    root = make_project(module_env / "project", CONFIG)
    with Host.open(root, plugins=[]) as opened:
        yield opened


def row(host, name):
    return next(p for p in host.plugins if p.name == name)


def tool(host, name):
    return host.service.catalog.tools[name].tool


def call(host, name, arguments=None):
    return asyncio.run(run_tool_call(host.snapshot(), ToolCall("c", name, arguments or {})))


def test_a_server_that_never_answers_times_out(host):
    silent = row(host, "mcp:silent")
    assert silent.status == "failed"
    assert silent.reason.startswith("timed out after 1s connecting and listing tools")


def test_a_server_that_exits_is_reported_with_its_status_and_stderr(host):
    exits = row(host, "mcp:exits")
    assert exits.status == "failed"
    assert "exited with status 2" in exits.reason
    assert "exits: missing API key" in exits.reason


def test_a_command_that_does_not_exist_is_named(host):
    missing = row(host, "mcp:missing")
    assert (missing.status, missing.reason.split(" (")[0]) == (
        "failed",
        "command 'no-such-mcp-server-command' not found on PATH or next to the running interpreter",
    )


def test_invalid_tools_are_refused_with_a_diagnostic_naming_server_and_tool(host):
    odd = row(host, "mcp:odd")
    assert odd.status == "active"
    assert set(odd.provides) == {
        "odd_ok",
        "odd_dup",
        "odd_bad_output",
        "odd_garbage",
        "odd_undescribed",
        "odd_hang",
        "odd_huge",
        "odd_evil_output",
    }
    notes = "\n".join(odd.diagnostics)
    assert "tool 'bad_schema', namespace 'odd': input schema is not a valid JSON Schema" in notes
    assert f"tool '{'n' * 200}', namespace 'odd': name must be 1-64 characters" in notes
    assert "tool 'dup' is listed more than once (as 'odd_dup'); the first one is mounted" in notes
    assert tool(host, "odd_dup").description == "First of two."


def test_a_tool_without_a_description_gets_one(host):
    assert tool(host, "odd_undescribed").description == ("Tool undescribed of MCP server odd.")


def test_10000_tools_are_cut_to_the_limit_with_a_note(host):
    many = row(host, "mcp:many")
    assert many.status == "active"
    assert "the server lists 10011 tools; only the first 2000 are mounted" in many.diagnostics
    assert len([n for n in host.service.catalog.tools if n.startswith("many_")]) == 1997


def test_output_that_breaks_its_schema_is_a_failure(host):
    outcome = call(host, "odd_bad_output")
    assert outcome.status == "failed"
    assert "Tool 'odd_bad_output' returned output that does not match" in outcome.error.message
    assert "'not a number' is not of type 'integer'" in outcome.error.message


def test_malformed_json_rpc_is_skipped_and_the_server_keeps_serving(host):
    assert call(host, "odd_garbage").content[0].text == "ok"
    assert call(host, "odd_ok").content[0].text == "ok"


def test_the_rest_of_the_catalog_is_unaffected(host):
    names = host.snapshot().names
    assert {"read", "write", "shell"} <= set(names)
    assert [p.status for p in host.plugins if p.layer == "builtin"] == ["active"] * len(
        [p for p in host.plugins if p.layer == "builtin"]
    )
