"""Overrides ``greet`` loudly; the entry point names an instance, not the module."""

from tooldeck import ToolResult, hookimpl


def shout(input, ctx):
    return ToolResult(content=f"HELLO, {input['name'].upper()}!")


class LoudPlugin:
    @hookimpl
    def tool_transform(self, editor):
        editor.update(
            "greet", lambda tool: tool.replace(execute=shout, description="Greet someone loudly.")
        )


plugin = LoudPlugin()
