"""A pydantic model whose ``pattern`` pydantic would match with Python's backtracking ``re``
is refused on its tool's first call, before any value is matched: no input ever reaches
that engine."""

from __future__ import annotations

import re
from typing import Annotated

import pytest
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter

from tooldeck import Location, Tool, ToolCall, ToolFailure, ToolResult, ToolService
from tooldeck.host.schema.pydantic_patterns import backtracking_pattern_problem

EVIL = "^(a+)+$"  # a 29-character value holds Python's re for tens of seconds


class PythonRe(BaseModel):
    model_config = ConfigDict(regex_engine="python-re")
    code: str = Field(pattern=EVIL)


class Compiled(BaseModel):
    code: str = Field(pattern=re.compile(EVIL))


class Nested(BaseModel):
    items: list[PythonRe]


class Linear(BaseModel):
    code: str = Field(pattern=EVIL)  # pydantic's default engine: linear in the text


class LinearInsidePythonRe(BaseModel):
    """The nearest model's config decides: ``Linear`` keeps the default engine."""

    model_config = ConfigDict(regex_engine="python-re")
    inner: Linear


def test_a_tool_whose_model_matches_with_python_re_refuses_every_call_naming_the_pattern(tmp_path):
    service = ToolService(Location(tmp_path, data_dir=tmp_path / "d"))
    ran = []
    tool = Tool(
        name="lookup",
        description="Look a code up.",
        input=PythonRe,
        execute=lambda data, ctx: ran.append(data) or ToolResult("never"),
    )
    service.transform(lambda editor: editor.add(tool), source="pack")
    snapshot = service.snapshot()
    for _ in range(2):  # refused before any value is matched, every time
        with pytest.raises(ToolFailure) as failed:
            snapshot.execute_sync(ToolCall("c1", "lookup", {"code": "a" * 29 + "!"}))
        reason = failed.value.message
        assert reason.startswith("Tool 'lookup' cannot run: its input model PythonRe")
        assert f"has the pattern {EVIL!r}" in reason
        assert "Python's backtracking re" in reason
        assert "pydantic's default engine" in reason
    assert ran == []


@pytest.mark.parametrize(
    ("source", "owner"),
    [
        (PythonRe, "PythonRe"),
        (Compiled, "Compiled"),
        (Nested, "PythonRe"),
        (
            TypeAdapter(
                list[Annotated[str, StringConstraints(pattern=EVIL)]],
                config=ConfigDict(regex_engine="python-re"),
            ),
            "(the TypeAdapter's type)",
        ),
    ],
    ids=["regex-engine", "compiled", "nested", "type-adapter-config"],
)
def test_every_way_to_reach_python_re_is_refused(source, owner):
    problem = backtracking_pattern_problem(source, role="output")
    assert problem is not None and problem.startswith(f"output model {owner} has the pattern")


@pytest.mark.parametrize("source", [Linear, LinearInsidePythonRe, TypeAdapter(list[Linear])])
def test_patterns_on_the_default_engine_are_accepted(source):
    assert backtracking_pattern_problem(source, role="input") is None
