"""tooldeck's span inside a real, instrumented pydantic-ai run: a child of pydantic-ai's own
tool span, in the same trace (docs/telemetry.md)."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.capabilities.instrumentation import Instrumentation
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings

from tooldeck import Host, hookimpl, tool
from tooldeck.integrations.pydantic_ai import TooldeckToolset

pytestmark = pytest.mark.usefixtures("clean_env")


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class Pack:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(add.replace(codemode=False))


async def test_the_tooldeck_span_is_a_child_of_pydantic_ais_tool_span(tmp_path, otel):
    replies = [
        ModelResponse(parts=[ToolCallPart("add", {"a": 2, "b": 3}, tool_call_id="c1")]),
        ModelResponse(parts=[TextPart("done")]),
    ]
    settings = InstrumentationSettings(tracer_provider=otel.tracer_provider)
    with Host.open(
        tmp_path, plugins=[Pack()], disable=["builtin:*"], trust=True, telemetry=otel.telemetry()
    ) as host:
        model = FunctionModel(lambda messages, info: replies.pop(0))
        capabilities = [Instrumentation(settings=settings)]
        agent = Agent(model, toolsets=[TooldeckToolset(host)], capabilities=capabilities)
        assert (await agent.run("add")).output == "done"
    named = otel.spans("execute_tool add")  # pydantic-ai names its tool span the same
    (ours,) = [s for s in named if s.instrumentation_scope.name == "tooldeck"]
    by_id = {s.context.span_id: s for s in otel.spans()}
    theirs = by_id[ours.parent.span_id]
    assert theirs.instrumentation_scope.name != "tooldeck"
    assert theirs.name == "execute_tool add"
    assert theirs.attributes.get("gen_ai.tool.call.id") == "c1"
    assert ours.context.trace_id == theirs.context.trace_id
    assert ours.attributes["gen_ai.tool.call.id"] == "c1"
