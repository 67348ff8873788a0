"""Adds ``greet`` and, in namespace ``greetings``, ``wave`` (``greetings_wave``)."""

from tooldeck import Tool, ToolResult, hookimpl

NAME_INPUT = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def greet(input, ctx):
    return ToolResult(content=f"Hello, {input['name']}!")


def wave(input, ctx):
    return ToolResult(content="*waves*")


@hookimpl
def namespace_descriptions(editor):
    editor.namespace("greetings", "Friendly gestures.")


@hookimpl
def tool_transform(editor):
    editor.add(
        Tool(
            name="greet",
            description="Greet someone.",
            input=NAME_INPUT,
            execute=greet,
            codemode=False,
        )
    )
    editor.add(
        Tool(
            name="wave",
            namespace="greetings",
            description="Wave at everyone.",
            execute=wave,
            codemode=False,
        )
    )
