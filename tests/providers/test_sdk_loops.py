"""A whole two-request loop per provider, through the real SDK client on a mock HTTP
transport: advertise, read the calls, run them, send the results back. Every request
the SDK serializes is checked against the SDK's own parameter types."""

from __future__ import annotations

import asyncio
import importlib
import json

import httpx
import pytest

from tooldeck.providers import calls_from, results_for, run_tool_calls

ASK = "What is the weather in Oslo? Send a photo, and try the broken tool."


def anthropic_http():
    """The httpx fork anthropic's SDK brings: its client must come from that package."""
    import anthropic

    return importlib.import_module(
        anthropic.DefaultHttpxClient.__mro__[1].__module__.partition(".")[0]
    )


class Server:
    """Answers the first request with ``first`` and the second with ``second``."""

    def __init__(self, first, second):
        self.replies = [first, second]
        self.bodies = []

    def __call__(self, request):
        self.bodies.append(json.loads(request.content))
        return self.http.Response(200, json=self.replies[len(self.bodies) - 1])

    def client(self, http=httpx):
        """A client of ``http`` (``httpx``, or the fork anthropic's SDK uses)."""
        self.http = http
        return http.Client(transport=http.MockTransport(self))


def turn(snapshot, fmt, reply):
    calls = calls_from(fmt, reply)
    outcomes = asyncio.run(run_tool_calls(snapshot, calls, session_id="loop")).outcomes
    assert [o.status for o in outcomes] == ["completed", "completed", "failed"]
    return results_for(fmt, zip(calls, outcomes, strict=True))


def test_openai_chat_completions(snapshot, accepted):
    import openai
    from openai.types.chat import ChatCompletionFunctionToolParam, ChatCompletionMessageParam

    calls = [
        {
            "id": f"call_{name}",
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        for name, arguments in (
            ("weather", '{"city": "Oslo", "units": null}'),
            ("photo", ""),
            ("broken", "{}"),
        )
    ]
    server = Server(
        _completion({"role": "assistant", "content": None, "tool_calls": calls}),
        _completion({"role": "assistant", "content": "Oslo is at 21 C."}),
    )
    client = openai.OpenAI(
        api_key="test", base_url="http://openai.test/v1", http_client=server.client()
    )
    tools = snapshot.definitions_for("openai", strict=True)
    messages: list = [{"role": "user", "content": ASK}]
    reply = client.chat.completions.create(model="gpt-test", messages=messages, tools=tools)
    message = reply.choices[0].message
    messages += [message.to_dict(), *turn(snapshot, "openai", message)]
    final = client.chat.completions.create(model="gpt-test", messages=messages, tools=tools)
    assert final.choices[0].message.content == "Oslo is at 21 C."
    body = server.bodies[1]
    for tool in body["tools"]:
        accepted(ChatCompletionFunctionToolParam, tool)
    accepted(list[ChatCompletionMessageParam], body["messages"])
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "tool", "user"]
    assert body["messages"][2]["content"] == "Oslo: 21 C"  # the strict-mode null dropped
    assert body["messages"][4]["content"].startswith("Error: The disk is full.")
    assert body["messages"][5]["content"][1]["image_url"]["url"].startswith(
        "data:image/png;base64,"
    )


def test_openai_responses(snapshot, accepted):
    import openai
    from openai.types.responses import FunctionToolParam, ResponseInputItemParam

    output = [
        {
            "type": "function_call",
            "id": f"fc_{name}",
            "call_id": f"call_{name}",
            "name": name,
            "arguments": arguments,
            "status": "completed",
        }
        for name, arguments in (("weather", '{"city": "Oslo"}'), ("photo", "{}"), ("broken", "{}"))
    ]
    text = [
        {
            "type": "message",
            "id": "msg",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Oslo is at 21 C.", "annotations": []}],
        }
    ]
    server = Server(_response(output), _response(text))
    client = openai.OpenAI(
        api_key="test", base_url="http://openai.test/v1", http_client=server.client()
    )
    tools = snapshot.definitions_for("openai-responses", strict=True)
    items: list = [{"role": "user", "content": ASK}]
    reply = client.responses.create(model="gpt-test", input=items, tools=tools)
    items += [item.to_dict() for item in reply.output]
    items += turn(snapshot, "openai-responses", reply)
    final = client.responses.create(model="gpt-test", input=items, tools=tools)
    assert final.output_text == "Oslo is at 21 C."
    body = server.bodies[1]
    for tool in body["tools"]:
        accepted(FunctionToolParam, tool)
    accepted(list[ResponseInputItemParam], body["input"])
    outputs = [i for i in body["input"] if i.get("type") == "function_call_output"]
    assert [o["call_id"] for o in outputs] == ["call_weather", "call_photo", "call_broken"]
    assert outputs[1]["output"][1]["type"] == "input_image"


def test_anthropic_messages(snapshot, accepted):
    import anthropic
    from anthropic.types import MessageParam, ToolParam

    blocks = [
        {"type": "tool_use", "id": f"toolu_{name}", "name": name, "input": arguments}
        for name, arguments in (("weather", {"city": "Oslo"}), ("photo", {}), ("broken", {}))
    ]
    server = Server(
        _message([{"type": "text", "text": "Let me look."}, *blocks], "tool_use"),
        _message([{"type": "text", "text": "Oslo is at 21 C."}], "end_turn"),
    )
    client = anthropic.Anthropic(
        api_key="test",
        base_url="http://anthropic.test",
        http_client=server.client(http=anthropic_http()),
    )
    tools = snapshot.definitions_for("anthropic")
    messages: list = [{"role": "user", "content": ASK}]
    reply = client.messages.create(
        model="claude-test", max_tokens=1024, messages=messages, tools=tools
    )
    messages += [
        {"role": "assistant", "content": reply.content},
        *turn(snapshot, "anthropic", reply),
    ]
    final = client.messages.create(
        model="claude-test", max_tokens=1024, messages=messages, tools=tools
    )
    assert final.content[0].text == "Oslo is at 21 C."
    body = server.bodies[1]
    for tool in body["tools"]:
        accepted(ToolParam, tool)
    accepted(list[MessageParam], body["messages"])
    results = body["messages"][2]["content"]
    assert [r.get("is_error", False) for r in results] == [False, False, True]
    assert results[1]["content"][1]["source"]["media_type"] == "image/png"


def test_gemini(snapshot):
    from google import genai
    from google.genai import types as genai_types

    parts = [
        {"functionCall": {"name": name, "args": args}}
        for name, args in (("weather", {"city": "Oslo"}), ("photo", {}), ("broken", {}))
    ]
    server = Server(_candidate(parts), _candidate([{"text": "Oslo is at 21 C."}]))
    client = genai.Client(
        api_key="test",
        http_options=genai_types.HttpOptions(
            base_url="http://gemini.test", httpx_client=server.client()
        ),
    )
    config = genai_types.GenerateContentConfig(
        tools=[genai_types.Tool(function_declarations=list(snapshot.definitions_for("gemini")))],
        automatic_function_calling=genai_types.AutomaticFunctionCallingConfig(disable=True),
    )
    contents: list = [genai_types.Content(role="user", parts=[genai_types.Part(text=ASK)])]
    reply = client.models.generate_content(model="gemini-test", contents=contents, config=config)
    contents += [reply.candidates[0].content, *turn(snapshot, "gemini", reply)]
    final = client.models.generate_content(model="gemini-test", contents=contents, config=config)
    assert final.text == "Oslo is at 21 C."
    body = server.bodies[1]
    sent = [genai_types.Content.model_validate(c) for c in body["contents"]]
    responses = [p.function_response for p in sent[2].parts]
    assert [(r.name, r.id) for r in responses] == [
        ("weather", None),
        ("photo", None),
        ("broken", None),
    ]
    assert responses[0].response == {"output": "Oslo: 21 C"}
    assert set(responses[2].response) == {"error"}
    assert responses[1].parts[0].inline_data.mime_type == "image/png"
    declared = body["tools"][0]["functionDeclarations"]
    assert [genai_types.FunctionDeclaration.model_validate(d).name for d in declared] == [
        d.name for d in snapshot.definitions
    ]


def _completion(message):
    return {
        "id": "chatcmpl",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-test",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
            }
        ],
    }


def _response(output):
    return {
        "id": "resp",
        "object": "response",
        "created_at": 0,
        "model": "gpt-test",
        "status": "completed",
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "output": output,
    }


def _message(content, stop_reason):
    return {
        "id": "msg",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    }


def _candidate(parts):
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]}


@pytest.fixture(autouse=True)
def _no_real_keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
