"""``results_for``: each provider's result shape, accepted by the SDK's own types."""

from __future__ import annotations

import asyncio
import base64

import mcp.types as mcp_types
import pytest

from tooldeck import ToolCall
from tooldeck.providers import calls_from, results_for, run_tool_calls

CALLS = [
    ToolCall("call_1", "weather", '{"city": "Oslo"}'),
    ToolCall("call_2", "photo", "{}"),
    ToolCall("call_3", "report", "{}"),
    ToolCall("call_4", "broken", "{}"),
    ToolCall("call_5", "refused", "{}"),
]


@pytest.fixture(autouse=True)
def _media(media):
    global PNG, PDF, B64_PNG, B64_PDF
    PNG, PDF = media.png, media.pdf
    B64_PNG, B64_PDF = base64.b64encode(PNG).decode(), base64.b64encode(PDF).decode()


@pytest.fixture
def pairs(snapshot):
    turn = asyncio.run(run_tool_calls(snapshot, CALLS))
    assert [o.status for o in turn.outcomes] == [
        "completed",
        "completed",
        "completed",
        "failed",
        "declined",
    ]
    return list(zip(CALLS, turn.outcomes, strict=True))


def test_openai_chat(pairs, accepted):
    from openai.types.chat import ChatCompletionMessageParam

    messages = results_for("openai", pairs)
    for message in messages:
        accepted(ChatCompletionMessageParam, message)
    tools, user = messages[:5], messages[5]
    assert [m["tool_call_id"] for m in tools] == [c.id for c in CALLS]
    assert tools[0]["content"] == "Oslo: 21 C"
    assert tools[1]["content"] == (
        "the photo:\n\n[attached in the next user message: image (image/png, 72 bytes)]".replace(
            "72", f"{len(PNG):,}"
        )
    )
    assert tools[3]["content"] == "Error: The disk is full. Free some space and try again."
    assert tools[4]["content"].startswith("Error: The user declined this tool call.")
    parts = user["content"]
    assert user["role"] == "user" and parts[0] == {
        "type": "text",
        "text": "Attachments of tool call call_2:",
    }
    assert parts[1] == {
        "type": "image_url",
        "image_url": {"url": f"data:image/png;base64,{B64_PNG}"},
    }
    assert parts[2] == {"type": "text", "text": "Attachments of tool call call_3:"}
    assert parts[3] == {
        "type": "file",
        "file": {"file_data": f"data:application/pdf;base64,{B64_PDF}", "filename": "report.pdf"},
    }
    assert [p["file"]["filename"] for p in parts[4:]] == ["data.csv", "blob.bin"]


def test_openai_chat_without_attachments_adds_no_user_message(pairs):
    assert [m["role"] for m in results_for("openai", [pairs[0], pairs[3]])] == ["tool", "tool"]


def test_openai_responses(pairs, accepted):
    from openai.types.responses import ResponseInputItemParam

    items = results_for("openai-responses", pairs)
    for item in items:
        accepted(ResponseInputItemParam, item)
    assert [i["call_id"] for i in items] == [c.id for c in CALLS]
    assert items[0]["output"] == "Oslo: 21 C"
    assert items[1]["output"] == [
        {"type": "input_text", "text": "the photo:"},
        {"type": "input_image", "image_url": f"data:image/png;base64,{B64_PNG}"},
    ]
    assert [p["filename"] for p in items[2]["output"]] == ["report.pdf", "data.csv", "blob.bin"]
    assert items[3]["output"].startswith("Error: The disk is full.")
    assert items[4]["output"].startswith("Error: The user declined")


def test_anthropic(pairs, accepted):
    from anthropic.types import MessageParam

    [message] = results_for("anthropic", pairs)
    accepted(MessageParam, message)
    blocks = message["content"]
    assert [b["tool_use_id"] for b in blocks] == [c.id for c in CALLS]
    assert [b.get("is_error", False) for b in blocks] == [False, False, False, True, True]
    assert blocks[1]["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": B64_PNG},
    }
    pdf, csv, blob = blocks[2]["content"]
    assert pdf == {
        "type": "document",
        "title": "report.pdf",
        "source": {"type": "base64", "media_type": "application/pdf", "data": B64_PDF},
    }
    assert csv["source"] == {"type": "text", "media_type": "text/plain", "data": "a,b\n1,2\n"}
    assert blob == {
        "type": "text",
        "text": "[blob.bin (application/octet-stream, 2 bytes) "
        "left out: Anthropic does not accept this kind of file]",
    }


def test_gemini(pairs):
    from google.genai import types as genai

    [content] = results_for("gemini", pairs)
    parsed = genai.Content.model_validate(content)  # its models forbid unknown keys
    assert genai.Content.model_config["extra"] == "forbid"
    responses = [p["functionResponse"] for p in content["parts"]]
    assert [r["id"] for r in responses] == [c.id for c in CALLS]
    assert responses[0]["response"] == {"output": "Oslo: 21 C"}
    assert responses[1]["parts"] == [{"inlineData": {"mimeType": "image/png", "data": B64_PNG}}]
    assert responses[3]["response"] == {"error": "The disk is full. Free some space and try again."}
    assert list(responses[4]["response"]) == ["error"]
    assert parsed.parts[1].function_response.parts[0].inline_data.data == PNG


def test_gemini_answers_calls_without_ids_by_name(snapshot):
    [call] = calls_from("gemini", [{"functionCall": {"name": "weather", "args": {"city": "Rome"}}}])
    turn = asyncio.run(run_tool_calls(snapshot, [call]))
    [content] = results_for("gemini", zip([call], turn.outcomes, strict=True))
    assert content["parts"] == [
        {"functionResponse": {"name": "weather", "response": {"output": "Rome: 21 C"}}}
    ]


def test_mcp(pairs):
    results = results_for("mcp", pairs)
    for result in results:
        parsed = mcp_types.CallToolResult.model_validate(result)
        assert parsed.model_dump(mode="json", by_alias=True, exclude_unset=True) == result
    assert [r["isError"] for r in results] == [False, False, False, True, True]
    assert results[0]["structuredContent"] == {"city": "Oslo", "celsius": 21}
    assert results[1]["content"][1] == {"type": "image", "data": B64_PNG, "mimeType": "image/png"}
    assert results[2]["content"][0]["resource"] == {
        "uri": "tooldeck://calls/call_3/report.pdf",
        "mimeType": "application/pdf",
        "blob": B64_PDF,
    }


@pytest.mark.parametrize("fmt", ["openai", "openai-responses", "anthropic", "gemini", "mcp"])
def test_nothing_for_no_calls(fmt):
    assert results_for(fmt, []) == []


def test_the_sdk_type_check_refuses_a_wrong_shape(accepted):
    from openai.types.chat import ChatCompletionToolMessageParam

    with pytest.raises(AssertionError, match=r"needs \['tool_call_id'\]"):
        accepted(ChatCompletionToolMessageParam, {"role": "tool", "content": "x"})
    with pytest.raises(AssertionError, match=r"has no key \['is_error'\]"):
        accepted(
            ChatCompletionToolMessageParam,
            {"role": "tool", "content": "x", "tool_call_id": "c", "is_error": True},
        )
    with pytest.raises(AssertionError, match="is not one of"):
        accepted(
            ChatCompletionToolMessageParam, {"role": "user", "content": "x", "tool_call_id": "c"}
        )


def test_an_interrupted_call_is_flagged_an_error_too():
    from tooldeck import TextPart, ToolCallOutcome

    pair = (
        ToolCall("c", "slow", "{}"),
        ToolCallOutcome("interrupted", (TextPart("The tool call was interrupted."),)),
    )
    assert results_for("anthropic", [pair])[0]["content"][0]["is_error"] is True
    assert results_for("mcp", [pair])[0]["isError"] is True
    assert results_for("openai", [pair])[0]["content"].startswith("Error: The tool call")
    assert "error" in results_for("gemini", [pair])[0]["parts"][0]["functionResponse"]["response"]
