"""Overrides ``greet`` with a quiet version (sorts between greet and loud); its
``tool_call`` hook adds " (shh)" to what ``greetings_wave`` says."""

from tooldeck import Tool, ToolResult, hookimpl

NAME_INPUT = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def greet(input, ctx):
    return ToolResult(content=f"hello, {input['name'].lower()}.")


@hookimpl
def tool_transform(editor):
    editor.add(
        Tool(
            name="greet",
            description="Greet someone quietly.",
            input=NAME_INPUT,
            execute=greet,
            codemode=False,
        )
    )


@hookimpl(wrapper=True)
def tool_call(call, context):
    result = yield
    if context.name != "greetings_wave":
        return result
    return ToolResult(content=f"{result.content[0].text} (shh)")
