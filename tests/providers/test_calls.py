"""``calls_from``: every provider's tool calls, from SDK objects and from plain dicts."""

from __future__ import annotations

import asyncio

import mcp.types as mcp_types
import pytest

from tooldeck import ToolCall, run_tool_call
from tooldeck.providers import calls_from

CHAT_MESSAGE = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
        },
        {"id": "call_2", "type": "function", "function": {"name": "photo", "arguments": ""}},
    ],
}
EXPECTED = [ToolCall("call_1", "weather", '{"city": "Oslo"}'), ToolCall("call_2", "photo", "{}")]


def completion(message):
    return {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}],
    }


@pytest.mark.parametrize(
    "shape", ["dict", "sdk", "dict-calls", "sdk-calls", "sdk-completion", "dict-completion"]
)
def test_openai_chat(shape):
    from openai.types.chat import ChatCompletion, ChatCompletionMessage

    sdk = ChatCompletionMessage.model_validate(CHAT_MESSAGE)
    reply = {
        "dict": CHAT_MESSAGE,
        "sdk": sdk,
        "dict-calls": CHAT_MESSAGE["tool_calls"],
        "sdk-calls": sdk.tool_calls,
        "sdk-completion": ChatCompletion.model_validate(completion(CHAT_MESSAGE)),
        "dict-completion": completion(CHAT_MESSAGE),
    }[shape]
    assert calls_from("openai", reply) == EXPECTED


def test_a_completion_without_choices_has_no_calls():
    assert calls_from("openai", {"choices": []}) == []
    assert calls_from("openai", {"choices": [{"delta": {}}]}) == []


def test_openai_chat_without_calls():
    from openai.types.chat import ChatCompletionMessage

    assert calls_from("openai", {"role": "assistant", "content": "Done."}) == []
    text = ChatCompletionMessage.model_validate({"role": "assistant", "content": "Done."})
    assert calls_from("openai", text) == []


RESPONSE = {
    "id": "r",
    "object": "response",
    "created_at": 0,
    "model": "m",
    "status": "completed",
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "weather",
            "arguments": '{"city": "Oslo"}',
            "status": "completed",
        },
        {
            "type": "function_call",
            "id": "fc_2",
            "call_id": "call_2",
            "name": "photo",
            "arguments": "null",
            "status": "completed",
        },
    ],
}


@pytest.mark.parametrize("shape", ["dict", "dict-output", "sdk", "sdk-output"])
def test_openai_responses(shape):
    from openai.types.responses import Response

    sdk = Response.model_validate(RESPONSE)
    reply = {
        "dict": RESPONSE,
        "dict-output": RESPONSE["output"],
        "sdk": sdk,
        "sdk-output": sdk.output,
    }[shape]
    assert calls_from("openai-responses", reply) == EXPECTED


MESSAGE = {
    "id": "msg",
    "type": "message",
    "role": "assistant",
    "model": "m",
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
    "content": [
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Oslo"}},
        {"type": "tool_use", "id": "toolu_2", "name": "photo", "input": {}},
    ],
}


@pytest.mark.parametrize("shape", ["dict", "dict-blocks", "sdk", "sdk-blocks"])
def test_anthropic(shape):
    from anthropic.types import Message

    sdk = Message.model_validate(MESSAGE)
    reply = {
        "dict": MESSAGE,
        "dict-blocks": MESSAGE["content"],
        "sdk": sdk,
        "sdk-blocks": sdk.content,
    }[shape]
    assert calls_from("anthropic", reply) == [
        ToolCall("toolu_1", "weather", {"city": "Oslo"}),
        ToolCall("toolu_2", "photo", {}),
    ]


GEMINI = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "Checking."},
                    {"functionCall": {"id": "g1", "name": "weather", "args": {"city": "Oslo"}}},
                    {"functionCall": {"name": "photo"}},
                ],
            }
        }
    ]
}


@pytest.mark.parametrize(
    "shape", ["dict", "dict-content", "dict-parts", "sdk", "sdk-content", "sdk-parts"]
)
def test_gemini(shape):
    from google.genai import types as genai

    sdk = genai.GenerateContentResponse.model_validate(GEMINI)
    reply = {
        "dict": GEMINI,
        "dict-content": GEMINI["candidates"][0]["content"],
        "dict-parts": GEMINI["candidates"][0]["content"]["parts"],
        "sdk": sdk,
        "sdk-content": sdk.candidates[0].content,
        "sdk-parts": sdk.candidates[0].content.parts,
    }[shape]
    first, second = calls_from("gemini", reply)
    assert first == ToolCall("g1", "weather", {"city": "Oslo"})
    assert (second.name, second.input) == ("photo", {})
    assert second.id.startswith("tooldeck_")  # Gemini sent none: a unique one is made


def test_mcp_calls_get_unique_ids():
    params = {"name": "weather", "arguments": {"city": "Oslo"}}
    request = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    sdk = mcp_types.CallToolRequestParams.model_validate(params)
    calls = [c for reply in (params, request, sdk) for c in calls_from("mcp", reply)]
    assert [(c.name, c.input) for c in calls] == [("weather", {"city": "Oslo"})] * 3
    assert len({c.id for c in calls}) == 3
    [no_arguments] = calls_from("mcp", {"name": "photo"})
    assert no_arguments.input == {}


@pytest.mark.parametrize("raw", ["{not json", '{"city": "Oslo"'])
def test_invalid_json_fails_at_execution_with_one_wording(snapshot, raw):
    [call] = calls_from(
        "openai",
        [{"id": "c", "type": "function", "function": {"name": "weather", "arguments": raw}}],
    )
    assert call.input == raw
    outcome = asyncio.run(run_tool_call(snapshot, call))
    assert outcome.status == "failed"
    assert outcome.error.message.startswith(
        "Invalid input for tool 'weather':\n- root: invalid JSON: "
    )


def test_invalid_json_reads_the_same_for_models_and_schemas(service):
    from pydantic import BaseModel

    from tooldeck import Tool, ToolResult

    class City(BaseModel):
        city: str

    service.transform(
        lambda e: e.add(
            Tool(
                name="model_weather",
                description="x",
                input=City,
                execute=lambda i, c: ToolResult("ok"),
                codemode=False,
            )
        ),
        source="model",
    )
    snapshot = service.snapshot()
    texts = [
        asyncio.run(run_tool_call(snapshot, ToolCall("c", name, "{oops"))).error.message
        for name in ("weather", "model_weather")
    ]
    issues = [text.splitlines()[1] for text in texts]
    assert (
        issues[0]
        == issues[1]
        == (
            "- root: invalid JSON: Expecting property name enclosed in double quotes: "
            "line 1 column 2 (char 1)"
        )
    )


def test_an_unknown_format_is_named():
    with pytest.raises(ValueError, match="unknown provider format 'cohere'"):
        calls_from("cohere", {})  # type: ignore[arg-type]
