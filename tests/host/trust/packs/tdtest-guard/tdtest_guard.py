"""A user's guard: its ``tool_call`` hook refuses every ``shell`` command that names
``forbidden``. It adds a tool of its own, ``guard_status``, so a project that does not
want it has something to hide."""

from tooldeck import Tool, ToolFailure, ToolResult, hookimpl


@hookimpl
def tool_transform(editor):
    editor.add(
        Tool(
            name="guard_status",
            description="Say that the guard is on.",
            execute=lambda input, ctx: ToolResult(content="on"),
            codemode=False,
        )
    )


@hookimpl(wrapper=True)
def tool_call(call, context):
    if context.name == "shell" and "forbidden" in str(call.input):  # input as sent
        raise ToolFailure("refused by tdtest-guard")
    return (yield)
