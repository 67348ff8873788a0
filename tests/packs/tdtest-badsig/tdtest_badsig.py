"""A hookimpl asking for an argument the hookspec does not provide."""

from tooldeck import hookimpl


@hookimpl
def tool_transform(editor, extra):
    raise AssertionError("never called: pluggy rejects this signature at register")
