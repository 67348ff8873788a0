"""The two MCP doors cross the boundary's layers like every other (in-process doors:
``tests/host/boundary/test_doors.py``): a plugin's ``tool_call`` hook, a ``timeout_s``
and (telemetry on) an ``execute_tool`` span apply to a mounted server's tool called
from a host, and to a call a client makes of ``tooldeck mcp serve``. Real processes:
a stdio fixture server, and the CLI's server with the OpenTelemetry SDK configured."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import anyio
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mcp import Client, StdioServerParameters
from tooldeck import Host, Telemetry, ToolCall, grant_trust, run_tool_call, trust_status

from .conftest import make_project, stdio_server

TRACED_SERVE = Path(__file__).parents[1] / "telemetry" / "servers" / "traced_serve.py"

HOOK = """
from tooldeck import ToolResult, hookimpl

@hookimpl(wrapper=True)
def tool_call(call, context):
    result = yield
    return ToolResult(f"hooked {result.content[0].text}", output=result.output)
"""

SERVED_TOOLS = '''
import asyncio

from tooldeck import hookimpl, tool

@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b

async def _stall() -> str:
    """Wait far longer than its limit allows."""
    await asyncio.sleep(30)
    return "woke"

@hookimpl
def tool_transform(editor):
    editor.add(add.replace(codemode=False))
    editor.add(tool(_stall).replace(name="stall", codemode=False, timeout_s=0.3))
'''


def test_a_mounted_tools_call_crosses_the_hook_the_timeout_and_the_span(tooldeck_env):
    root = make_project(
        tooldeck_env / "project",
        stdio_server("ov", "overlap_server.py", extra="codemode = false")
        + '[tools."ov_work"]\ntimeout_s = 0.3\n'
        + '[[permission]]\naction = "ov_*"\neffect = "allow"\n',
        {"hook": HOOK},
    )
    provider, exporter = TracerProvider(), InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry = Telemetry(tracer_provider=provider)
    with Host.open(root, plugins=["local:hook"], trust=True, telemetry=telemetry) as host:

        async def calls():
            snapshot = host.snapshot()
            quick = await run_tool_call(snapshot, ToolCall("c1", "ov_free", {"seconds": 0}))
            slow = await run_tool_call(snapshot, ToolCall("c2", "ov_work", {"seconds": 20}))
            return quick, slow

        quick, slow = asyncio.run(calls())
    provider.shutdown()
    assert (quick.status, quick.content[0].text) == ("completed", "hooked 0")
    assert slow.status == "failed"
    assert "did not finish within its 0.3 s limit (timeout_s)" in slow.content[0].text
    names = [span.name for span in exporter.get_finished_spans()]
    assert {"execute_tool ov_free", "execute_tool ov_work"} <= set(names)


def test_a_served_call_crosses_the_hook_the_timeout_and_the_span(tmp_path, tooldeck_env):
    root = make_project(
        tooldeck_env / "project",
        '[plugins]\nonly = ["local:tools", "local:hook"]\n\n[telemetry]\nenabled = true\n',
        {"tools": SERVED_TOOLS, "hook": HOOK},
    )
    grant_trust(trust_status(root))  # as `tooldeck trust --yes` does; the server reads it
    spans_file = tmp_path / "spans.jsonl"
    env = {
        **{k: v for k, v in os.environ.items() if k.startswith(("XDG_", "TOOLDECK_TRUST"))},
        "PYTHONPATH": os.pathsep.join(sys.path),
        "TRACED_SPANS": str(spans_file),
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(TRACED_SERVE), "--location", str(root), "--no-codemode"],
        env=env,
    )

    async def scenario():
        async with Client(params) as client:
            added = await client.call_tool("add", {"a": 2, "b": 3})
            stalled = await client.call_tool("stall", {})
            return added, stalled

    added, stalled = anyio.run(scenario)
    assert (added.is_error, added.content[0].text) == (False, "hooked 5")
    assert stalled.is_error
    assert "did not finish within its 0.3 s limit (timeout_s)" in stalled.content[0].text
    spans = [json.loads(line) for line in spans_file.read_text().splitlines()]
    served = {s["name"] for s in spans if s["attributes"].get("tooldeck.call.via") == "served"}
    assert {"execute_tool add", "execute_tool stall"} <= served
