"""Checked by mypy in ``tests/test_tool.py``, never run: what ``Tool``'s generics infer.

A line that must be a type error carries ``# type: ignore[<code>]``; mypy runs with
``--warn-unused-ignores``, so the test fails if the error goes away.
"""

from __future__ import annotations

from typing import Any, assert_type

from pydantic import BaseModel, TypeAdapter

from tooldeck import Tool, ToolContext, ToolResult


class Model(BaseModel):
    text: str


class Other(BaseModel):
    number: int


def convert(data: Model, ctx: ToolContext) -> ToolResult:
    return ToolResult(data.text, output=data)


def count(data: Other, ctx: ToolContext) -> ToolResult:
    return ToolResult(output=data.number)


def untyped(data: Any, ctx: ToolContext) -> ToolResult:
    return ToolResult()


# Module-level tools need no annotation: the parameters come from input/output.
CONVERT = Tool(name="convert", description="d", input=Model, output=Model, execute=convert)
assert_type(CONVERT, Tool[Model, Model])

NO_OUTPUT = Tool(name="convert", description="d", input=Model, execute=convert)
assert_type(NO_OUTPUT, Tool[Model, Any])

ADAPTED = Tool(name="n", description="d", input=Other, output=TypeAdapter(int), execute=count)
assert_type(ADAPTED, Tool[Other, int])

SCHEMA = Tool(
    name="s", description="d", input={"type": "object"}, execute=lambda data, ctx: ToolResult()
)
assert_type(SCHEMA, Tool[Any, Any])

BARE = Tool(name="b", description="d", execute=untyped)
assert_type(BARE, Tool[Any, Any])

# The executor's first parameter is still checked against the input model.
WRONG = Tool(name="w", description="d", input=Model, execute=count)  # type: ignore[arg-type]

# replace() returns an erased tool: any input fits the copy.
assert_type(CONVERT.replace(description="e"), Tool[Any, Any])
