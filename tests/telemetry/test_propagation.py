"""``propagation``: the ``_meta`` a mounted call sends, and a served call's span continuing
the ``_meta`` its request carried when no span is current (the SDK's server span off)."""

from __future__ import annotations

import asyncio

import pytest
from opentelemetry import trace

from tooldeck import Host, ToolCall, hookimpl, run_tool_call, tool
from tooldeck.telemetry.propagation import ServedRequest, mounted_call, serving

pytestmark = pytest.mark.usefixtures("clean_env")

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
CLIENT_SPAN = "00f067aa0ba902b7"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class Tools:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(add.replace(codemode=False))


def test_no_span_no_meta(otel):
    assert mounted_call("srv", "2025-06-18") is None


def test_the_current_span_is_sent_and_told_what_it_calls(otel):
    tracer = otel.tracer_provider.get_tracer("test")
    with tracer.start_as_current_span("execute_tool srv_x") as span:
        meta = mounted_call("srv", "2025-06-18")
    context = span.get_span_context()
    assert meta["traceparent"].startswith(f"00-{context.trace_id:032x}-{context.span_id:016x}-")
    attributes = otel.span("execute_tool srv_x").attributes
    assert attributes["mcp.method.name"] == "tools/call"
    assert attributes["mcp.protocol.version"] == "2025-06-18"
    assert attributes["tooldeck.mcp.server"] == "srv"


def test_a_served_call_without_a_current_span_continues_the_requests_meta(tmp_path, otel):
    request = ServedRequest(
        "abc", "2025-06-18", "7", {"traceparent": f"00-{TRACE_ID}-{CLIENT_SPAN}-01"}
    )
    with Host.open(tmp_path, plugins=[Tools()], trust=True, telemetry=otel.telemetry()) as host:
        snapshot = host.snapshot()
        scope = snapshot.scope("mcp-session", "m1", via="served")

        async def served():
            assert not trace.get_current_span().get_span_context().is_valid
            with serving(request):
                return await run_tool_call(snapshot, ToolCall("c1", "add", {"a": 1}), scope=scope)

        assert asyncio.run(served()).status == "failed"  # b is missing: still one span
    span = otel.span("execute_tool add")
    assert f"{span.context.trace_id:032x}" == TRACE_ID
    assert f"{span.parent.span_id:016x}" == CLIENT_SPAN
    assert span.parent.is_remote
    attributes = span.attributes
    assert attributes["mcp.session.id"] == "abc"
    assert attributes["jsonrpc.request.id"] == "7"
    assert attributes["mcp.protocol.version"] == "2025-06-18"
    assert attributes["tooldeck.call.via"] == "served"
