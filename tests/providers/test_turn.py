"""``run_tool_calls``: one turn's calls run concurrently, outcomes in call order."""

from __future__ import annotations

import asyncio

import pytest

import tooldeck
from tooldeck import Tool, ToolCall, ToolResult
from tooldeck.providers import TurnResult, calls_from, run_tool_calls


def test_exported_from_tooldeck():
    assert tooldeck.run_tool_calls is run_tool_calls
    assert tooldeck.TurnResult is TurnResult


async def test_calls_run_concurrently_and_come_back_in_call_order(service):
    started, release = [], asyncio.Event()

    async def slow(input, ctx):
        started.append(ctx.call_id)
        await release.wait()
        return ToolResult("slow done")

    async def fast(input, ctx):
        started.append(ctx.call_id)
        while len(started) < 2:  # both are running before either finishes
            await asyncio.sleep(0)
        release.set()
        return ToolResult("fast done")

    service.transform(
        lambda e: [
            e.add(Tool(name="slow", description="x", execute=slow, codemode=False)),
            e.add(Tool(name="fast", description="x", execute=fast, codemode=False)),
        ],
        source="timing",
    )
    calls = [ToolCall("a", "slow", "{}"), ToolCall("b", "fast", "{}")]
    turn = await run_tool_calls(service.snapshot(), calls, session_id="s", message_id="m")
    assert [o.content[0].text for o in turn.outcomes] == ["slow done", "fast done"]
    assert sorted(started) == ["a", "b"] and turn.end_turn is False


async def test_a_declined_call_ends_the_turn(snapshot):
    turn = await run_tool_calls(
        snapshot, [ToolCall("1", "weather", '{"city": "Oslo"}'), ToolCall("2", "refused", "{}")]
    )
    assert [o.status for o in turn.outcomes] == ["completed", "declined"]
    assert turn.end_turn is True


async def test_failures_do_not_end_the_turn(snapshot):
    turn = await run_tool_calls(
        snapshot, [ToolCall("1", "broken", "{}"), ToolCall("2", "nope", "{}")]
    )
    assert [o.status for o in turn.outcomes] == ["failed", "failed"]
    assert turn.end_turn is False


async def test_progress_names_the_call(service):
    def busy(input, ctx):
        ctx.progress({"step": ctx.call_id})
        return ToolResult("ok")

    service.transform(
        lambda e: e.add(Tool(name="busy", description="x", execute=busy, codemode=False)),
        source="busy",
    )
    seen = []
    calls = [ToolCall("x", "busy", "{}"), ToolCall("y", "busy", "{}")]
    await run_tool_calls(
        service.snapshot(),
        calls,
        progress=lambda call, metadata: seen.append((call.id, metadata["step"])),
    )
    assert sorted(seen) == [("x", "x"), ("y", "y")]


async def test_a_strict_mode_null_for_an_optional_argument_means_not_given(snapshot):
    raw = '{"city": "Oslo", "units": null}'  # OpenAI's arguments: JSON text
    turn = await run_tool_calls(snapshot, [ToolCall("1", "weather", raw)])
    assert turn.outcomes[0].content[0].text == "Oslo: 21 C"


@pytest.mark.parametrize("fmt", ["openai", "openai-responses"])
async def test_the_openai_formats_lose_their_strict_mode_nulls(snapshot, fmt):
    raw = '{"city": "Oslo", "units": null}'
    reply = {
        "openai": {"tool_calls": [{"id": "1", "function": {"name": "weather", "arguments": raw}}]},
        "openai-responses": [
            {"type": "function_call", "call_id": "1", "name": "weather", "arguments": raw}
        ],
    }[fmt]
    turn = await run_tool_calls(snapshot, calls_from(fmt, reply))
    assert turn.outcomes[0].content[0].text == "Oslo: 21 C"


@pytest.mark.parametrize("fmt", ["anthropic", "gemini", "mcp"])
async def test_a_null_sent_in_an_object_is_the_models_value(snapshot, fmt):
    # No strict mode in these formats: a null is validated as sent, not dropped.
    arguments = {"city": "Oslo", "units": None}
    reply = {
        "anthropic": [{"type": "tool_use", "id": "1", "name": "weather", "input": arguments}],
        "gemini": [{"functionCall": {"id": "1", "name": "weather", "args": arguments}}],
        "mcp": {"name": "weather", "arguments": arguments},
    }[fmt]
    turn = await run_tool_calls(snapshot, calls_from(fmt, reply))
    assert turn.outcomes[0].status == "failed"
    assert "- units: None is not one of ['C', 'F']" in turn.outcomes[0].error.message


async def test_null_for_a_required_argument_still_fails(snapshot):
    turn = await run_tool_calls(snapshot, [ToolCall("1", "weather", '{"city": null}')])
    assert turn.outcomes[0].status == "failed"
    assert "- city: None is not of type 'string'" in turn.outcomes[0].error.message


async def test_cancelling_the_turn_cancels_its_calls(service):
    entered = asyncio.Event()

    async def forever(input, ctx):
        entered.set()
        await asyncio.sleep(3600)

    service.transform(
        lambda e: e.add(Tool(name="forever", description="x", execute=forever, codemode=False)),
        source="forever",
    )
    task = asyncio.ensure_future(run_tool_calls(service.snapshot(), [ToolCall("1", "forever")]))
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_arguments_nested_too_deeply_fail_only_their_own_call(service):
    service.transform(
        lambda e: e.add(
            Tool(
                name="echo", description="x", execute=lambda i, c: ToolResult("ok"), codemode=False
            )
        ),
        source="deep",
    )
    deep = '{"a": ' + "[" * 100_000 + "null" + "]" * 100_000 + "}"
    calls = [ToolCall("d", "echo", deep), ToolCall("o", "echo", "{}")]
    result = await run_tool_calls(service.snapshot(), calls)
    assert [o.status for o in result.outcomes] == ["failed", "completed"]
    assert "nest arrays or objects too deeply" in result.outcomes[0].error.message
