"""The fused common call (``host/call/fused.py``), pinned to the plain path.

A call with no active layer, no ids and no progress runs through the closure the snapshot
binds for its tool at its first such call; every other call takes ``Snapshot.run`` and the
tool's call path. Over generated ``tool(fn)`` functions and generated executors, inputs
valid or not, results of every shape and failures, each door (``execute``,
``execute_sync``, ``run_tool_call``) gives what the plain path gives: the same
``ExecutedTool`` or outcome, the same failure with the same text, the same calls of the
tool. And an active layer (a plugin's ``tool_call`` hook, a tool's ``timeout_s``, tracing)
still applies at every door when it is the only one.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel, TypeAdapter

from tooldeck import (
    Host,
    Location,
    Telemetry,
    TextPart,
    Tool,
    ToolCall,
    ToolContext,
    ToolFailure,
    ToolResult,
    ToolService,
    hookimpl,
    run_tool_call,
    tool,
)
from tooldeck.host.call.values import CallScope, ExecutedTool

from ...examples import examples
from .test_function_fast_path import functions

Door = Callable[[Any, ToolCall], Any]
"""``door(snapshot, call)``: what one way in gives, as comparable data."""


def shown(run: Callable[[], Any]) -> tuple[Any, ...]:
    """What ``run()`` gave, or the failure it raised, as data."""
    try:
        return ("returned", run())
    except Exception as exc:
        return ("raised", type(exc).__name__, str(exc))


def plain(snapshot: Any, call: ToolCall) -> Any:
    """The plain path: ``Snapshot.run`` and the tool's call path, as ``execute_sync`` ends it."""
    done = snapshot.run(call, snapshot.default_scope, None)
    return done if isinstance(done, ExecutedTool) else asyncio.run(done)


def plain_outcome(snapshot: Any, call: ToolCall) -> Any:
    """``run_tool_call`` given a scope equal to the default but not it: the plain path."""
    return asyncio.run(run_tool_call(snapshot, call, scope=CallScope(snapshot.session_id)))


DOORS: dict[str, tuple[Door, Door]] = {
    "execute_sync": (lambda s, c: s.execute_sync(c), plain),
    "execute": (lambda s, c: asyncio.run(s.execute(c)), plain),
    "run_tool_call": (lambda s, c: asyncio.run(run_tool_call(s, c)), plain_outcome),
}


def snapshot_of(tool_: Any) -> Any:
    service = ToolService(Location(".", data_dir="/nonexistent/tooldeck-test"))
    service.transform(lambda editor: editor.add(tool_), source="test")
    return service.snapshot()


def both(tool_: Any, text: Any, received: list[Any], door: str) -> list[tuple[Any, ...]]:
    """What ``door`` and its plain reference give for ``text`` twice each (the second call
    of a tool in a snapshot runs its bound closure), with what the tool received."""
    fused_door, plain_door = DOORS[door]
    results = []
    for run in (fused_door, plain_door):
        snapshot = snapshot_of(tool_)
        for _ in range(2):
            received.clear()
            result = shown(
                lambda run=run, snapshot=snapshot: run(snapshot, ToolCall("c1", "t", text))
            )
            results.append((result, list(received)))
    return results


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated=functions(), door=st.sampled_from(sorted(DOORS)))
def test_a_function_tool_gives_at_every_door_what_the_plain_path_gives(generated, door):
    function_tool, text, received = generated
    fused_first, fused_again, plain_first, plain_again = both(
        function_tool.replace(name="t"), text, received, door
    )
    assert fused_first == fused_again == plain_first == plain_again


class Pair(BaseModel):
    a: int
    b: str = ""


SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "string", "maxLength": 2}},
    "required": ["a"],
    "additionalProperties": False,
}
INPUTS = st.dictionaries(
    st.sampled_from(["a", "b", "c"]),
    st.none() | st.booleans() | st.integers(-3, 3) | st.text("ab1", max_size=3),
    max_size=3,
)
RAW = INPUTS.map(json.dumps) | INPUTS | st.sampled_from(['{"a": 1', "[1]", "", "null"])
OUTPUTS = st.sampled_from([None, {"type": "integer"}, TypeAdapter(int), Pair])
RETURNED = st.sampled_from(
    [
        "output 3",
        "output a Pair",
        "output '3'",
        "no output",
        "content and output",
        "content only",
        "a ToolResult subclass",
        "not a ToolResult",
        "an awaitable",
        "a ToolFailure",
        "a defect",
    ]
)


class Marked(ToolResult):
    """A ``ToolResult`` of a class of its own."""


def result_of(shape: str) -> Any:
    """What a generated executor returns (or raises) for ``shape``."""
    if shape == "an awaitable":

        async def later() -> ToolResult:
            return ToolResult(output=3)

        return later()
    if shape == "a ToolFailure":
        raise ToolFailure("refused by the tool", metadata={"why": "test"})
    if shape == "a defect":
        raise ValueError("broken")
    return {
        "output 3": ToolResult(output=3),
        "output a Pair": ToolResult(output=Pair(a=1), metadata={"m": 1}),
        "output '3'": ToolResult(output="3"),
        "no output": ToolResult(),
        "content and output": ToolResult("text", output=3),
        "content only": ToolResult([TextPart("a"), TextPart("b")]),
        "a ToolResult subclass": Marked(output=3),
        "not a ToolResult": 3,
    }[shape]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    source=st.sampled_from([SCHEMA, Pair]),
    output=OUTPUTS,
    returned=RETURNED,
    raw=RAW,
    door=st.sampled_from(sorted(DOORS)),
)
def test_an_executor_gives_at_every_door_what_the_plain_path_gives(
    source, output, returned, raw, door
):
    received: list[Any] = []

    def execute(value: Any, ctx: ToolContext) -> Any:
        dumped = value.model_dump() if isinstance(value, BaseModel) else value
        received.append((dumped, ctx._replace(location=None)))
        return result_of(returned)

    executor_tool = Tool(name="t", description="d", input=source, output=output, execute=execute)
    fused_first, fused_again, plain_first, plain_again = both(executor_tool, raw, received, door)
    assert fused_first == fused_again == plain_first == plain_again


def same(a: int) -> int:
    """Give ``a`` back."""
    return a


def test_the_common_call_is_bound_once_per_snapshot_at_the_first_call():
    snapshot = snapshot_of(tool(same, name="t"))
    assert snapshot._fused == {}
    snapshot.execute_sync(ToolCall("c1", "t", '{"a": 1}'))
    bound = snapshot._fused["t"]
    snapshot.execute_sync(ToolCall("c2", "t", '{"a": 2}'))
    assert snapshot._fused == {"t": bound}


def test_calls_with_ids_or_progress_or_of_no_tool_are_not_bound():
    snapshot = snapshot_of(tool(same, name="t"))
    snapshot.execute_sync(ToolCall("c1", "t", '{"a": 1}'), message_id="m1")
    snapshot.execute_sync(ToolCall("c1", "t", '{"a": 1}'), progress=lambda *a: None)
    with pytest.raises(ToolFailure, match="not available"):
        snapshot.execute_sync(ToolCall("c1", "missing", "{}"))
    assert snapshot._fused == {}


def test_the_executor_gets_the_context_the_plain_path_gives():
    contexts: list[ToolContext] = []

    def execute(value: Any, ctx: ToolContext) -> ToolResult:
        contexts.append(ctx)
        return ToolResult("ok")

    snapshot = snapshot_of(Tool(name="t", description="d", input=Pair, execute=execute))
    snapshot.execute_sync(ToolCall("c1", "t", '{"a": 1}'))
    plain(snapshot, ToolCall("c1", "t", '{"a": 1}'))
    assert contexts[0] == contexts[1]
    assert contexts[0].location is snapshot.location and contexts[0].call_id == "c1"


# -- an active layer still applies at every door, each one alone ------------------------------
def _add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


add = tool(_add).replace(name="add", codemode=False)  # a native tool, called by its name


async def _stall() -> str:
    """Wait far longer than its limit allows."""
    await asyncio.sleep(30)
    return "woke"


class Hooked:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(add)

    @hookimpl(wrapper=True)
    def tool_call(self, call, context):
        result = yield
        return ToolResult(f"hooked {result.content[0].text}", output=result.output)


class Limited:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(add)
        editor.add(tool(_stall).replace(name="stall", timeout_s=0.2, codemode=False))


class Plain:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(add)


def text_through(snapshot: Any, door: str, name: str, arguments: dict[str, Any]) -> str:
    call = ToolCall("c1", name, arguments)
    if door == "run_tool_call":
        return asyncio.run(run_tool_call(snapshot, call)).content[0].text
    try:
        done = snapshot.execute_sync(call) if door == "execute_sync" else None
        if done is None:
            done = asyncio.run(snapshot.execute(call))
    except ToolFailure as failure:
        return failure.message
    return done.content[0].text


@pytest.fixture
def opened(tmp_path, monkeypatch):
    monkeypatch.setattr("tooldeck.builtin_plugins.BUILTIN_PLUGINS", ())

    def open_with(plugin: object, telemetry: Telemetry | None = None) -> Host:
        return Host.open(tmp_path, plugins=[plugin], trust=True, telemetry=telemetry)

    return open_with


@pytest.mark.parametrize("door", sorted(DOORS))
def test_a_hook_alone_wraps_every_call(opened, door):
    with opened(Hooked()) as host:
        snapshot = host.snapshot()
        for _ in range(2):
            assert text_through(snapshot, door, "add", {"a": 2, "b": 3}) == "hooked 5"
        assert snapshot._fused == {}


@pytest.mark.parametrize("door", sorted(DOORS))
def test_a_timeout_alone_stops_the_call(opened, door):
    with opened(Limited()) as host:
        snapshot = host.snapshot()
        assert text_through(snapshot, door, "add", {"a": 2, "b": 3}) == "5"
        text = text_through(snapshot, door, "stall", {})
        assert "did not finish within its 0.2 s limit (timeout_s)" in text
        assert snapshot._fused == {}


@pytest.mark.parametrize("door", sorted(DOORS))
def test_tracing_alone_makes_every_call_a_span(opened, door):
    provider = TracerProvider()
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    try:
        with opened(Plain(), Telemetry(tracer_provider=provider)) as host:
            snapshot = host.snapshot()
            for _ in range(2):
                assert text_through(snapshot, door, "add", {"a": 2, "b": 3}) == "5"
            names = [s.name for s in exporter.get_finished_spans()]
            assert names.count("execute_tool add") == 2
            assert snapshot._fused == {}
    finally:
        provider.shutdown()


@pytest.mark.parametrize("door", sorted(DOORS))
def test_without_a_layer_the_common_call_is_fused(opened, door):
    with opened(Plain()) as host:
        snapshot = host.snapshot()
        for _ in range(2):
            assert text_through(snapshot, door, "add", {"a": 2, "b": 3}) == "5"
        assert list(snapshot._fused) == ["add"]


class CodeModeOnly:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(add.replace(codemode=True))


@pytest.mark.parametrize("door", sorted(DOORS))
def test_a_tool_advertised_only_in_code_mode_is_bound_by_its_name(opened, door):
    with opened(CodeModeOnly()) as host:
        snapshot = host.snapshot()
        assert "add" not in snapshot.names
        for _ in range(2):
            assert text_through(snapshot, door, "add", {"a": 2, "b": 3}) == "5"
        assert list(snapshot._fused) == ["add"]
