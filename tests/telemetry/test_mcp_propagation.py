"""W3C trace context through ``params._meta``, both ways, with real processes: a mounted
server receives the calling span's ``traceparent``; ``tooldeck mcp serve`` (in its own
process, the SDK configured globally, telemetry on by config) continues the trace the
real SDK client sent, with the MCP semconv attributes on the served call's span."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from mcp import Client, StdioServerParameters
from tooldeck import Host, ToolCall, run_tool_call

from ..ports import free_port
from ..warm import warm
from .conftest import traced_serve

SERVERS = Path(__file__).parent / "servers"
TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
CLIENT_SPAN = "b7ad6b7169203331"

pytestmark = pytest.mark.usefixtures("clean_env")


def test_a_mounted_call_sends_its_span_as_traceparent(tmp_path, otel):
    command = json.dumps(warm([sys.executable, str(SERVERS / "meta_server.py")]))
    (tmp_path / "tooldeck.toml").write_text(
        f'[mcp.servers.probe]\ncommand = {command}\n\n[[permission]]\naction = "*"\n'
        'resource = "*"\neffect = "allow"\n'
    )
    with Host.open(tmp_path, plugins=[], trust=True, telemetry=otel.telemetry()) as host:
        snapshot = host.snapshot()
        assert "probe_meta" in snapshot.names or "execute" in snapshot.names
        outcome = anyio.run(run_tool_call, snapshot, ToolCall("m1", "probe_meta", {}))
    assert outcome.status == "completed", outcome
    received = json.loads(outcome.content[0].text)
    span = otel.span("execute_tool probe_meta")
    context = span.context
    version, trace_id, parent_id, _flags = received["traceparent"].split("-")
    assert version == "00"
    assert (trace_id, parent_id) == (f"{context.trace_id:032x}", f"{context.span_id:016x}")
    assert span.attributes["gen_ai.tool.type"] == "extension"
    assert span.attributes["mcp.method.name"] == "tools/call"
    assert span.attributes["tooldeck.mcp.server"] == "probe"
    assert span.attributes["mcp.protocol.version"]


ADDER = '''
from tooldeck import hookimpl, tool

@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b

@hookimpl
def tool_transform(editor):
    editor.add(add.replace(codemode=False))
'''


def test_a_served_call_continues_the_clients_trace(tmp_path, tooldeck_env):
    serve = traced_serve(tmp_path, "adder", ADDER)
    params = StdioServerParameters(command=serve.command[0], args=serve.command[1:], env=serve.env)
    traceparent = f"00-{TRACE_ID}-{CLIENT_SPAN}-01"

    async def scenario():
        async with Client(params) as client:
            meta = {"traceparent": traceparent}
            return await client.call_tool("add", {"a": 2, "b": 3}, meta=meta)

    result = anyio.run(scenario)
    assert result.content[0].text == "5"
    spans = serve.spans()
    by_id = {s["span_id"]: s for s in spans}
    (served,) = [s for s in spans if s["name"] == "execute_tool add"]
    assert served["trace_id"] == TRACE_ID
    chain, parent = [], served["parent_id"]
    while parent in by_id:  # up through the SDK's own server span, if it made one
        chain.append(by_id[parent]["name"])
        parent = by_id[parent]["parent_id"]
    assert parent == CLIENT_SPAN, chain
    attributes = served["attributes"]
    assert attributes["tooldeck.call.via"] == "served"
    assert attributes["mcp.method.name"] == "tools/call"
    assert attributes["mcp.protocol.version"]
    assert attributes["jsonrpc.request.id"]
    assert attributes["tooldeck.tool.source"] == "local:adder"
    startup = {s["name"] for s in spans if s["scope"] == "tooldeck"}
    assert {"tooldeck.host.open", "tooldeck.plugin.load", "tooldeck.catalog.replay"} <= startup


def test_a_mounted_call_nested_in_a_program_sends_the_nested_span(tmp_path, otel):
    command = json.dumps(warm([sys.executable, str(SERVERS / "meta_server.py")]))
    (tmp_path / "tooldeck.toml").write_text(
        f'[mcp.servers.probe]\ncommand = {command}\n\n[[permission]]\naction = "*"\n'
        'resource = "*"\neffect = "allow"\n'
    )
    code = "r = await tools.probe.meta()\nr"
    with Host.open(tmp_path, plugins=[], trust=True, telemetry=otel.telemetry()) as host:
        call = ToolCall("p1", "execute", {"code": code})
        outcome = anyio.run(run_tool_call, host.snapshot(), call)
    assert outcome.status == "completed", outcome
    received = json.loads(outcome.output["result"])
    nested = otel.span("execute_tool probe_meta")
    assert nested.parent.span_id == otel.span("execute_tool execute").context.span_id
    _, trace_id, parent_id, _ = received["traceparent"].split("-")
    assert (trace_id, parent_id) == (
        f"{nested.context.trace_id:032x}",
        f"{nested.context.span_id:016x}",
    )


@pytest.fixture
def http_meta() -> Iterator[str]:
    """``meta_server.py`` over streamable HTTP on 127.0.0.1; yields its URL."""
    port = free_port()
    script = str(SERVERS / "meta_server.py")
    process = subprocess.Popen([sys.executable, script, "--http", str(port)])
    try:
        for _ in range(300):  # until it listens, or 30 s
            assert process.poll() is None, "the HTTP server exited"
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_mounted_call_over_http_records_the_session_the_server_gave(tmp_path, otel, http_meta):
    (tmp_path / "tooldeck.toml").write_text(
        f'[mcp.servers.probe]\nurl = "{http_meta}"\n\n[[permission]]\naction = "*"\n'
        'resource = "*"\neffect = "allow"\n'
    )
    with Host.open(tmp_path, plugins=[], trust=True, telemetry=otel.telemetry()) as host:
        outcome = anyio.run(run_tool_call, host.snapshot(), ToolCall("m1", "probe_meta", {}))
    assert outcome.status == "completed", outcome
    received = json.loads(outcome.content[0].text)
    attributes = otel.span("execute_tool probe_meta").attributes
    assert received["session"]  # the server named a session, and the call came in it
    assert attributes["mcp.session.id"] == received["session"]
    assert attributes["mcp.method.name"] == "tools/call"
    assert received["traceparent"].split("-")[1] == (
        f"{otel.span('execute_tool probe_meta').context.trace_id:032x}"
    )


def test_a_mounted_call_over_stdio_has_no_session(tmp_path, otel):
    command = json.dumps(warm([sys.executable, str(SERVERS / "meta_server.py")]))
    (tmp_path / "tooldeck.toml").write_text(
        f'[mcp.servers.probe]\ncommand = {command}\n\n[[permission]]\naction = "*"\n'
        'resource = "*"\neffect = "allow"\n'
    )
    with Host.open(tmp_path, plugins=[], trust=True, telemetry=otel.telemetry()) as host:
        outcome = anyio.run(run_tool_call, host.snapshot(), ToolCall("m1", "probe_meta", {}))
    assert outcome.status == "completed", outcome
    assert "session" not in json.loads(outcome.content[0].text)
    span = otel.span("execute_tool probe_meta")
    assert span.attributes["mcp.method.name"] == "tools/call"
    assert "mcp.session.id" not in span.attributes
