"""``execute_tool`` spans through the real OpenTelemetry SDK: names, GenAI attributes,
outcomes, content capture, code-mode children and the histogram (permission events:
``test_asks.py``)."""

from __future__ import annotations

import asyncio
import json

import pytest
from opentelemetry.trace import SpanKind, StatusCode

from tooldeck import Host, Tool, ToolCall, ToolFailure, ToolResult, hookimpl, tool
from tooldeck import run_tool_call as run

from .conftest import traced_serve

pytestmark = pytest.mark.usefixtures("clean_env")


@pytest.fixture(autouse=True)
def no_builtins(monkeypatch):
    monkeypatch.setattr("tooldeck.builtin_plugins.BUILTIN_PLUGINS", ())


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def broken(input, ctx):
    raise ToolFailure("no such thing")


async def guarded(input, ctx):
    await ctx.permission.assert_("launch", ["rocket"])
    return ToolResult(content="launched")


class Tools:
    """``add`` natively and in code mode (``plus``), a failing tool, an asking tool."""

    @hookimpl
    def tool_transform(self, editor):
        editor.add(add.replace(codemode=False))
        editor.add(add.replace(name="plus"))
        editor.add(Tool(name="broken", description="Fails.", execute=broken, codemode=False))
        editor.add(Tool(name="launch", description="Asks.", execute=guarded, codemode=False))


class Override:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(add.replace(codemode=False, description="Add, overridden."))


def call(snapshot, name, arguments, call_id="c1", **options):
    return asyncio.run(run(snapshot, ToolCall(call_id, name, arguments), **options))


def test_a_native_call_is_one_execute_tool_span_with_genai_attributes(tmp_path, otel):
    with Host.open(tmp_path, plugins=[Tools()], trust=True, telemetry=otel.telemetry()) as host:
        outcome = call(host.snapshot(session="s1"), "add", {"a": 1, "b": 2})
    assert outcome.status == "completed"
    span = otel.span("execute_tool add")
    assert span.kind is SpanKind.INTERNAL
    assert dict(span.attributes) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "add",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.description": "Add two integers.",
        "tooldeck.tool.source": "Tools",
        "tooldeck.call.via": "native",
        "tooldeck.session.id": "s1",
        "tooldeck.outcome.status": "completed",
    }
    assert span.status.status_code is StatusCode.UNSET
    assert span.instrumentation_scope.name == "tooldeck"


def test_an_override_names_what_it_overrides(tmp_path, otel):
    plugins = [Tools(), Override()]
    with Host.open(tmp_path, plugins=plugins, trust=True, telemetry=otel.telemetry()) as host:
        call(host.snapshot(), "add", {"a": 1, "b": 2})
    attributes = otel.span("execute_tool add").attributes
    assert attributes["tooldeck.tool.source"] == "Override"
    assert list(attributes["tooldeck.tool.overrides"]) == ["Tools"]
    assert attributes["gen_ai.tool.description"] == "Add, overridden."


def test_a_failure_sets_error_type_and_error_status(tmp_path, otel):
    with Host.open(tmp_path, plugins=[Tools()], trust=True, telemetry=otel.telemetry()) as host:
        assert call(host.snapshot(), "broken", {}).status == "failed"
        assert call(host.snapshot(), "add", {"a": "x"}, call_id="c2").status == "failed"
    failed = otel.span("execute_tool broken")
    assert failed.attributes["error.type"] == "tool.execution"
    assert failed.attributes["tooldeck.outcome.status"] == "failed"
    assert failed.status.status_code is StatusCode.ERROR
    assert failed.status.description == "no such thing"
    invalid = otel.span("execute_tool add")
    assert invalid.attributes["error.type"] == "tool.execution"
    assert "Invalid input for tool 'add'" in invalid.status.description


def test_content_is_captured_only_when_asked(tmp_path, otel):
    with Host.open(tmp_path, plugins=[Tools()], trust=True, telemetry=otel.telemetry()) as host:
        call(host.snapshot(), "add", {"a": 1, "b": 2})
    assert "gen_ai.tool.call.arguments" not in otel.span("execute_tool add").attributes
    otel.exporter.clear()
    telemetry = otel.telemetry(capture_content=True)
    with Host.open(tmp_path, plugins=[Tools()], trust=True, telemetry=telemetry) as host:
        call(host.snapshot(), "add", '{"a": 1, "b": 2}')
    attributes = otel.span("execute_tool add").attributes
    assert json.loads(attributes["gen_ai.tool.call.arguments"]) == {"a": 1, "b": 2}
    assert attributes["gen_ai.tool.call.result"] == "3"


def test_config_turns_tracing_and_capture_on(tmp_path, otel):
    (tmp_path / "tooldeck.toml").write_text("[telemetry]\nenabled = true\ncapture_content = true\n")
    # enabled by config, the global providers are used: here the no-op default, so
    # only a Telemetry that names providers records; capture comes from config.
    with Host.open(tmp_path, plugins=[Tools()], trust=True, telemetry=otel.telemetry()) as host:
        call(host.snapshot(), "add", {"a": 1, "b": 2})
        rows = {info.name: info.status for info in host.plugins}
    assert rows["telemetry"] == "active"
    assert otel.span("execute_tool add").attributes["gen_ai.tool.call.result"] == "3"


def test_off_by_default_and_when_refused(tmp_path, otel):
    (tmp_path / "tooldeck.toml").write_text("[telemetry]\nenabled = true\n")
    with Host.open(tmp_path, plugins=[Tools()], trust=True, telemetry=False) as host:
        assert host.snapshot().call_hooks is None
        assert "telemetry" not in {info.name for info in host.plugins}
    (tmp_path / "tooldeck.toml").unlink()
    with Host.open(tmp_path, plugins=[Tools()], trust=True) as host:
        assert host.snapshot().call_hooks is None


def test_a_code_mode_program_is_a_span_with_a_child_per_nested_call(tmp_path, otel):
    with Host.open(tmp_path, plugins=[Tools()], trust=True, telemetry=otel.telemetry()) as host:
        code = "x = await tools.plus(a=1, b=2)\ny = await tools.plus(a=x, b=3)\ny"
        outcome = call(host.snapshot(), "execute", {"code": code}, call_id="run1")
    assert outcome.status == "completed"
    program = otel.span("execute_tool execute")
    children = otel.spans("execute_tool plus")
    assert len(children) == 2
    for child in children:
        assert child.parent is not None
        assert child.parent.span_id == program.context.span_id
        assert child.context.trace_id == program.context.trace_id
        assert child.attributes["tooldeck.call.via"] == "nested"
        assert child.attributes["tooldeck.call.parent_id"] == "run1"
    assert [c.attributes["gen_ai.tool.call.id"] for c in children] == ["run1.1", "run1.2"]
    assert program.parent is None


def test_a_call_continues_the_hosts_current_span(tmp_path, otel):
    tracer = otel.tracer_provider.get_tracer("agent")
    with Host.open(tmp_path, plugins=[Tools()], trust=True, telemetry=otel.telemetry()) as host:
        snapshot = host.snapshot()

        async def turn():
            with tracer.start_as_current_span("invoke_agent"):
                await run(snapshot, ToolCall("c1", "add", {"a": 1, "b": 2}))

        asyncio.run(turn())
    assert otel.span("execute_tool add").parent.span_id == otel.span("invoke_agent").context.span_id


def test_a_decline_is_an_outcome_not_an_error(tmp_path, otel):
    with Host.open(tmp_path, plugins=[Tools()], trust=True, telemetry=otel.telemetry()) as host:
        assert call(host.snapshot(), "launch", {}).status == "declined"  # no asker
    span = otel.span("execute_tool launch")
    assert span.attributes["tooldeck.outcome.status"] == "declined"
    assert "error.type" not in span.attributes


def test_the_duration_histogram_has_a_point_per_tool_and_error(tmp_path, otel):
    with Host.open(tmp_path, plugins=[Tools()], trust=True, telemetry=otel.telemetry()) as host:
        call(host.snapshot(), "add", {"a": 1, "b": 2})
        call(host.snapshot(), "add", {"a": 3, "b": 4})
        call(host.snapshot(), "broken", {})
    metrics = otel.reader.get_metrics_data()
    (scope,) = metrics.resource_metrics[0].scope_metrics
    (histogram,) = [m for m in scope.metrics if m.name == "gen_ai.execute_tool.duration"]
    assert histogram.unit == "s"
    points = {
        (p.attributes["gen_ai.tool.name"], p.attributes.get("error.type")): p.count
        for p in histogram.data.data_points
    }
    assert points == {("add", None): 2, ("broken", "tool.execution"): 1}
    for point in histogram.data.data_points:
        assert point.attributes["gen_ai.operation.name"] == "execute_tool"


def test_the_span_is_outermost_so_a_plugins_refusal_is_traced(tmp_path, otel):
    class Refuse:
        @hookimpl(wrapper=True)
        def tool_call(self, call, context):
            raise ToolFailure("refused by policy")
            yield  # a generator, as a wrapper must be

    plugins = [Tools(), Refuse()]
    with Host.open(tmp_path, plugins=plugins, trust=True, telemetry=otel.telemetry()) as host:
        assert call(host.snapshot(), "add", {"a": 1, "b": 2}).status == "failed"
    span = otel.span("execute_tool add")
    assert span.attributes["error.type"] == "tool.execution"
    assert span.status.description == "refused by policy"


def test_disabling_the_telemetry_plugin_keeps_only_startup_spans(tmp_path, otel):
    telemetry = otel.telemetry()
    with Host.open(
        tmp_path, plugins=[Tools()], disable=["telemetry"], trust=True, telemetry=telemetry
    ) as host:
        assert host.snapshot().call_hooks is None
        call(host.snapshot(), "add", {"a": 1, "b": 2})
    assert otel.spans("execute_tool") == []
    assert otel.span("tooldeck.host.open")


class RoundsPeer:
    """A host's ``Peer`` that answers in rounds: its first question stops the call
    (``AwaitingInput``) and the next run gets the answer, as an MCP 2026-07-28 client's
    ``input_required`` round trip does in ``tooldeck mcp serve``."""

    def __init__(self) -> None:
        self.answers: list[str] = []

    def log(self, level, message):
        pass

    async def elicit(self, message, schema):
        import tooldeck

        if not self.answers:
            raise tooldeck.AwaitingInput("waiting for the user's colour")
        return tooldeck.Elicited("accept", {"colour": self.answers[0]})

    async def sample(self, messages, max_tokens, options):
        raise ToolFailure("no model here")


async def ask_colour(input, ctx):
    answer = await ctx.elicit("Which colour?", {"type": "object", "properties": {}})
    return ToolResult(content=str(answer.content["colour"]))


class Asking:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(Tool(name="colour", description="Asks.", execute=ask_colour, codemode=False))


def test_a_call_stopped_at_a_question_is_awaiting_input_not_an_error(tmp_path, otel):
    peer = RoundsPeer()
    plugins = [Asking()]
    with Host.open(tmp_path, plugins=plugins, trust=True, telemetry=otel.telemetry()) as host:
        snapshot = host.snapshot()
        scope = snapshot.scope("s", "m", peer=peer)
        stopped = asyncio.run(run(snapshot, ToolCall("c1", "colour", {}), scope=scope))
        peer.answers.append("plum")
        answered = asyncio.run(run(snapshot, ToolCall("c2", "colour", {}), scope=scope))
    # The host that drives the rounds reads a stopped run as failed with the stop's text.
    assert (stopped.status, stopped.error.type) == ("failed", "tool.execution")
    assert answered.content[0].text == "plum"
    first, second = otel.spans("execute_tool colour")
    assert first.attributes["tooldeck.outcome.status"] == "awaiting_input"
    assert "error.type" not in first.attributes
    assert first.status.status_code is StatusCode.UNSET
    assert second.attributes["tooldeck.outcome.status"] == "completed"
    (scope_metrics,) = otel.reader.get_metrics_data().resource_metrics[0].scope_metrics
    (histogram,) = [m for m in scope_metrics.metrics if m.name == "gen_ai.execute_tool.duration"]
    assert [p.attributes.get("error.type") for p in histogram.data.data_points] == [None]
    assert histogram.data.data_points[0].count == 2


def test_a_hook_tells_a_stopped_round_from_a_failure_by_its_public_name(tmp_path, otel):
    import tooldeck

    seen: list[str] = []

    class Counting:
        """A hook that counts failures, and lets a call awaiting input through."""

        @hookimpl(wrapper=True)
        def tool_call(self, call, context):
            try:
                result = yield
            except tooldeck.AwaitingInput:
                seen.append("awaiting input")
                raise
            except ToolFailure:
                seen.append("failed")
                raise
            seen.append("completed")
            return result

    peer = RoundsPeer()
    plugins = [Asking(), Tools(), Counting()]
    with Host.open(tmp_path, plugins=plugins, trust=True, telemetry=otel.telemetry()) as host:
        snapshot = host.snapshot()
        scope = snapshot.scope("s", "m", peer=peer)
        asyncio.run(run(snapshot, ToolCall("c1", "colour", {}), scope=scope))
        asyncio.run(run(snapshot, ToolCall("c2", "broken", {}), scope=scope))
        peer.answers.append("plum")
        asyncio.run(run(snapshot, ToolCall("c3", "colour", {}), scope=scope))
    assert seen == ["awaiting input", "failed", "completed"]
    assert issubclass(tooldeck.AwaitingInput, ToolFailure)  # old hooks still catch it


ASKING = """
from tooldeck import Tool, ToolResult, hookimpl

async def colour(input, ctx):
    answer = await ctx.elicit("Which colour?", {
        "type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]
    })
    return ToolResult(answer.content["colour"])

@hookimpl
def tool_transform(editor):
    editor.add(Tool(name="colour", description="Asks.", execute=colour, codemode=False))
"""


def test_a_served_input_required_round_is_a_span_awaiting_input(tmp_path, tooldeck_env):
    """Real processes: an SDK client of the 2026-07-28 era → ``tooldeck mcp serve`` with
    the OpenTelemetry SDK (``servers/traced_serve.py``). The call's first round stops at
    its question (``input_required``); the client answers and the second round
    completes: two spans, the first awaiting input and not an error."""
    import anyio

    from mcp import Client, StdioServerParameters
    from mcp import types as mcp_types

    serve = traced_serve(tmp_path, "asking", ASKING)
    params = StdioServerParameters(command=serve.command[0], args=serve.command[1:], env=serve.env)

    async def answer(context, params):
        return mcp_types.ElicitResult(action="accept", content={"colour": "plum"})

    async def scenario():
        async with Client(params, mode="auto", elicitation_callback=answer) as client:
            return client.protocol_version, await client.call_tool("colour", {})

    version, result = anyio.run(scenario)
    assert version == "2026-07-28"
    assert (result.is_error, result.content[0].text) == (False, "plum")
    spans = serve.spans()
    stopped, answered = [s for s in spans if s["name"] == "execute_tool colour"]
    assert stopped["attributes"]["tooldeck.outcome.status"] == "awaiting_input"
    assert "error.type" not in stopped["attributes"]
    assert stopped["status"] == "UNSET"
    assert answered["attributes"]["tooldeck.outcome.status"] == "completed"
