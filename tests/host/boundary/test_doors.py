"""Every public way to run a tool in-process crosses the boundary's layers: a plugin's
``tool_call`` hook, a tool's ``timeout_s`` and (telemetry on) an ``execute_tool`` span
apply alike to ``run_tool_call``, ``Snapshot.execute``, ``execute_sync``, a provider
turn (``run_tool_calls``), a code-mode program's nested call and the pydantic-ai and
Agents SDK integrations. Mounted and served calls: ``tests/mcp/test_doors.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tooldeck import (
    Host,
    Telemetry,
    ToolCall,
    ToolFailure,
    ToolResult,
    hookimpl,
    run_tool_call,
    tool,
)
from tooldeck.providers import run_tool_calls


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def _stall() -> str:
    """Wait far longer than its limit allows."""
    await asyncio.sleep(30)
    return "woke"


stall = tool(_stall).replace(name="stall", timeout_s=0.2)


class Pack:
    """``add`` and ``stall``, natively and, prefixed ``code_``, in code mode; a hook that
    marks every result it wraps."""

    @hookimpl
    def tool_transform(self, editor):
        editor.add(add.replace(codemode=False))
        editor.add(stall.replace(codemode=False))
        editor.add(add.replace(name="code_add"))
        editor.add(stall.replace(name="code_stall"))

    @hookimpl(wrapper=True)
    def tool_call(self, call, context):
        result = yield
        return ToolResult(f"hooked {result.content[0].text}", output=result.output)


Door = Callable[[Host, str, dict[str, Any]], str]
"""``door(host, tool, arguments)``: the text the model reads, or the failure's message."""


def through_run_tool_call(host: Host, name: str, arguments: dict[str, Any]) -> str:
    outcome = asyncio.run(run_tool_call(host.snapshot(), ToolCall("c1", name, arguments)))
    return outcome.content[0].text


def through_execute(host: Host, name: str, arguments: dict[str, Any]) -> str:
    try:
        done = asyncio.run(host.snapshot().execute(ToolCall("c1", name, arguments)))
    except ToolFailure as failure:
        return failure.message
    return done.content[0].text


def through_execute_sync(host: Host, name: str, arguments: dict[str, Any]) -> str:
    try:
        done = host.snapshot().execute_sync(ToolCall("c1", name, arguments))
    except ToolFailure as failure:
        return failure.message
    return done.content[0].text


def through_a_provider_turn(host: Host, name: str, arguments: dict[str, Any]) -> str:
    turn = asyncio.run(run_tool_calls(host.snapshot(), [ToolCall("c1", name, arguments)]))
    return turn.outcomes[0].content[0].text


def through_code_mode(host: Host, name: str, arguments: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
    program = f"await tools.code_{name}({args})"
    call = ToolCall("c1", "execute", {"code": program})
    outcome = asyncio.run(run_tool_call(host.snapshot(), call))
    return outcome.content[0].text


def through_pydantic_ai(host: Host, name: str, arguments: dict[str, Any]) -> str:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel

    from tooldeck.integrations.pydantic_ai import TooldeckToolset

    returns: list[str] = []

    def model(messages, info):
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart(name, arguments, tool_call_id="c1")])
        returns.extend(str(p.content) for p in messages[-1].parts if isinstance(p, ToolReturnPart))
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(model), toolsets=[TooldeckToolset(host)])
    asyncio.run(agent.run("go"))
    return returns[0]


def through_the_agents_sdk(host: Host, name: str, arguments: dict[str, Any]) -> str:
    import json

    from agents import Agent, RunConfig, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    from tooldeck.integrations.openai_agents import function_tools

    model = ScriptedModel(
        [[function_call(name, json.dumps(arguments), call_id="c1")], [assistant_message("done")]]
    )
    agent = Agent(name="a", model=model, tools=function_tools(host))
    asyncio.run(Runner.run(agent, "go", run_config=RunConfig(tracing_disabled=True)))
    items = model.calls[-1].input
    (output,) = [i["output"] for i in items if i.get("type") == "function_call_output"]
    return str(output)


DOORS = [
    through_run_tool_call,
    through_execute,
    through_execute_sync,
    through_a_provider_turn,
    through_code_mode,
    through_pydantic_ai,
    through_the_agents_sdk,
]


@pytest.fixture
def spans():
    provider = TracerProvider()
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


@pytest.fixture
def host(tmp_path, monkeypatch, spans):
    monkeypatch.setattr("tooldeck.builtin_plugins.BUILTIN_PLUGINS", ())
    telemetry = Telemetry(tracer_provider=spans[0])
    with Host.open(tmp_path, plugins=[Pack()], trust=True, telemetry=telemetry) as opened:
        yield opened


@pytest.mark.parametrize("door", DOORS, ids=lambda door: door.__name__)
def test_a_hook_wraps_the_call(host, door):
    assert door(host, "add", {"a": 2, "b": 3}).endswith("hooked 5")


@pytest.mark.parametrize("door", DOORS, ids=lambda door: door.__name__)
def test_a_timeout_stops_the_call(host, door):
    text = door(host, "stall", {})
    assert "did not finish within its 0.2 s limit (timeout_s)" in text


@pytest.mark.parametrize("door", DOORS, ids=lambda door: door.__name__)
def test_the_call_is_an_execute_tool_span(host, spans, door):
    door(host, "add", {"a": 2, "b": 3})
    names = [s.name for s in spans[1].get_finished_spans()]
    tool_name = "code_add" if door is through_code_mode else "add"
    assert f"execute_tool {tool_name}" in names
