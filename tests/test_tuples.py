"""The per-call named tuples built with ``tuple.__new__`` (``tooldeck._tool.tuple_new``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import tooldeck
from tooldeck import ExecutedTool, TextPart, ToolCallOutcome, ToolContext, ToolResult
from tooldeck._tool import tuple_new

# Every class built with ``tuple_new`` on the hot path, with the fields its call sites pass in
# order. A field added to one of them fails here: update the call sites too.
PINNED = {
    ToolContext: (
        "location",
        "session_id",
        "message_id",
        "call_id",
        "agent",
        "on_progress",
        "peer",
    ),
    ToolResult: ("content", "metadata", "output"),
    TextPart: ("text", "type"),
    ExecutedTool: ("content", "metadata", "output"),
    ToolCallOutcome: ("status", "content", "metadata", "output", "error"),
}
SOURCE = Path(tooldeck.__file__).parent
BUILT = re.compile(r"\btuple_new\((\w+), ")


def test_every_class_built_with_tuple_new_is_pinned_to_its_fields():
    built = {
        name
        for path in SOURCE.rglob("*.py")
        for name in BUILT.findall(path.read_text(encoding="utf-8"))
    }
    assert built == {cls.__name__ for cls in PINNED}
    for cls, fields in PINNED.items():
        assert cls._fields == fields, cls


@pytest.mark.parametrize("cls", list(PINNED))
def test_tuple_new_builds_what_the_constructor_builds(cls):
    values = tuple(f"value of {name}" for name in cls._fields)
    built = tuple_new(cls, values)
    assert type(built) is cls
    assert built == cls(*values) and repr(built) == repr(cls(*values))
    assert tuple(getattr(built, name) for name in cls._fields) == values
