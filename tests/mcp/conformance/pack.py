"""The tools, resources and prompts the official MCP conformance suite's server scenarios
call (``@modelcontextprotocol/conformance``), as one tooldeck plugin.

Each follows the scenario's requirement text (``run.py`` serves this pack with
``tooldeck mcp serve`` and runs the suite against it); the in-process tests of
``tests/mcp/serve`` use it too. Only public names: it is what a pack author would write.
"""

from __future__ import annotations

import asyncio
import io
import json
import struct
import wave
import zlib
from collections.abc import Mapping
from typing import Any

from tooldeck import (
    AudioPart,
    FilePart,
    ImagePart,
    Prompt,
    PromptArgument,
    Resource,
    ResourceTemplate,
    TextPart,
    Tool,
    ToolContext,
    ToolEditor,
    ToolFailure,
    ToolResult,
    hookimpl,
)


def red_pixel_png() -> bytes:
    """A 1x1 red PNG, built from its chunks."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def short_wav() -> bytes:
    """A tenth of a second of silence, 8 kHz mono."""
    out = io.BytesIO()
    with wave.open(out, "wb") as audio:
        audio.setnchannels(1)
        audio.setsampwidth(2)
        audio.setframerate(8000)
        audio.writeframes(b"\x00\x00" * 800)
    return out.getvalue()


PNG = red_pixel_png()
WAV = short_wav()
NO_INPUT: Mapping[str, Any] = {"type": "object", "properties": {}}


def text_input(name: str, description: str) -> Mapping[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": "string", "description": description}},
        "required": [name],
    }


def returning(content: Any) -> Any:
    return lambda input, ctx: ToolResult(content)


def fail(input: Any, ctx: ToolContext) -> ToolResult:
    raise ToolFailure("This tool intentionally returns an error for testing")


async def with_logging(input: Any, ctx: ToolContext) -> ToolResult:
    ctx.log("info", "Tool execution started")
    await asyncio.sleep(0.05)
    ctx.log("info", "Tool processing data")
    await asyncio.sleep(0.05)
    ctx.log("info", "Tool execution completed")
    return ToolResult("Logging completed: 3 messages sent")


async def with_progress(input: Any, ctx: ToolContext) -> ToolResult:
    for step in (0, 50, 100):
        ctx.progress({"progress": step, "total": 100, "message": f"step {step}"})
        if step < 100:
            await asyncio.sleep(0.05)
    return ToolResult("Progress completed: 0, 50, 100")


async def sampling(input: Any, ctx: ToolContext) -> ToolResult:
    answer = await ctx.sample([{"role": "user", "content": input["prompt"]}], max_tokens=100)
    said = answer.text if isinstance(answer, TextPart) else f"[{answer.type}]"
    return ToolResult(f"LLM response: {said}")


ASK_USER = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}
DEFAULTS = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {
            "type": "string",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "default": True},
    },
}
TITLED = [("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")]
ENUMS = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": [{"const": value, "title": title} for value, title in TITLED],
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
}


def eliciting(schema: Mapping[str, Any], template: str, message: str | None = None) -> Any:
    async def run(input: Any, ctx: ToolContext) -> ToolResult:
        answer = await ctx.elicit(message or input["message"], schema)
        return ToolResult(template.format(action=answer.action, content=json.dumps(answer.content)))

    return run


SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}


def tool(name: str, description: str, execute: Any, input: Any = NO_INPUT) -> Tool[Any, Any]:
    return Tool(name=name, description=description, input=input, execute=execute, codemode=False)


TOOLS = [
    tool(
        "test_simple_text",
        "Returns simple text.",
        returning("This is a simple text response for testing."),
    ),
    tool("test_image_content", "Returns an image.", returning([ImagePart(PNG, "image/png")])),
    tool("test_audio_content", "Returns audio.", returning([AudioPart(WAV, "audio/wav")])),
    tool(
        "test_embedded_resource",
        "Returns an embedded resource.",
        returning(
            [FilePart(b"This is an embedded resource content.", "text/plain", "embedded.txt")]
        ),
    ),
    tool(
        "test_multiple_content_types",
        "Returns text, an image and a resource.",
        returning(
            [
                TextPart("Multiple content types test:"),
                ImagePart(PNG, "image/png"),
                FilePart(b'{"test":"data","value":123}', "application/json", "data.json"),
            ]
        ),
    ),
    tool("test_tool_with_logging", "Logs three messages.", with_logging),
    tool("test_error_handling", "Always fails.", fail),
    tool("test_tool_with_progress", "Reports progress.", with_progress),
    tool(
        "test_sampling",
        "Asks the client's model.",
        sampling,
        text_input("prompt", "The prompt to send to the LLM"),
    ),
    tool(
        "test_elicitation",
        "Asks the user.",
        eliciting(ASK_USER, "User response: action={action}, content={content}"),
        text_input("message", "The message to show the user"),
    ),
    tool(
        "test_elicitation_sep1034_defaults",
        "Asks with defaults.",
        eliciting(
            DEFAULTS, "Elicitation completed: action={action}, content={content}", "Defaults"
        ),
    ),
    tool(
        "test_elicitation_sep1330_enums",
        "Asks with enums.",
        eliciting(ENUMS, "Elicitation completed: action={action}, content={content}", "Enums"),
    ),
    tool(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features",
        returning("ok"),
        SCHEMA_2020_12,
    ),
    tool("test_reconnection", "Answers after a pause.", returning("Reconnection test completed")),
]


def template_data(params: Mapping[str, str], ctx: ToolContext) -> str:
    found = params["id"]
    return json.dumps({"id": found, "templateTest": True, "data": f"Data for ID: {found}"})


RESOURCES = [
    Resource(
        "test://static-text",
        "static-text",
        "A static text resource.",
        "text/plain",
        read=lambda ctx: "This is the content of the static text resource.",
    ),
    Resource("test://static-binary", "static-binary", "A PNG.", "image/png", read=lambda ctx: PNG),
    Resource(
        "test://watched-resource",
        "watched-resource",
        "A resource to subscribe to.",
        "text/plain",
        read=lambda ctx: "Watched resource content.",
    ),
    ResourceTemplate(
        "test://template/{id}/data",
        "template",
        "Data for an id.",
        "application/json",
        read=template_data,
        complete={"id": ["123", "456"]},
    ),
]


def embedded(args: Mapping[str, str], ctx: ToolContext) -> list[dict[str, Any]]:
    document = Resource(
        args["resourceUri"],
        "embedded",
        mime_type="text/plain",
        read=lambda ctx: "Embedded resource content for testing.",
    )
    return [
        {"role": "user", "content": document},
        {"role": "user", "content": "Please process the embedded resource above."},
    ]


PROMPTS = [
    Prompt(
        "test_simple_prompt",
        "A prompt without arguments.",
        render=lambda args, ctx: "This is a simple prompt for testing.",
    ),
    Prompt(
        "test_prompt_with_arguments",
        "A prompt with arguments.",
        [
            PromptArgument(
                "arg1", "First test argument", required=True, complete=["paris", "park"]
            ),
            PromptArgument("arg2", "Second test argument", required=True),
        ],
        render=lambda args, ctx: (
            f"Prompt with arguments: arg1='{args['arg1']}', arg2='{args['arg2']}'"
        ),
    ),
    Prompt(
        "test_prompt_with_embedded_resource",
        "A prompt embedding a resource.",
        [PromptArgument("resourceUri", "URI of the resource to embed", required=True)],
        render=embedded,
    ),
    Prompt(
        "test_prompt_with_image",
        "A prompt with an image.",
        render=lambda args, ctx: [
            {"role": "user", "content": ImagePart(PNG, "image/png")},
            {"role": "user", "content": "Please analyze the image above."},
        ],
    ),
]


@hookimpl
def tool_transform(editor: ToolEditor) -> None:
    for each in TOOLS:
        editor.add(each)
    for resource in RESOURCES:
        editor.add_resource(resource)
    for prompt in PROMPTS:
        editor.add_prompt(prompt)
