"""A pydantic model whose ``pattern`` pydantic would match with Python's backtracking ``re``
is refused when its tool is loaded: no input ever reaches that engine."""

from __future__ import annotations

import re
from typing import Annotated

import pytest
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter

from tooldeck import Location, Tool, ToolResult, ToolService
from tooldeck.host.schema.derive import schema_problem

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


def test_a_tool_whose_model_matches_with_python_re_is_skipped_naming_tool_and_pattern(tmp_path):
    service = ToolService(Location(tmp_path, data_dir=tmp_path / "d"))
    tool = Tool(
        name="lookup",
        description="Look a code up.",
        input=PythonRe,
        execute=lambda data, ctx: ToolResult("never"),
    )
    service.transform(lambda editor: editor.add(tool), source="pack")
    assert service.snapshot().get("lookup") is None
    [diagnostic] = service.diagnostics
    assert diagnostic.tool == "lookup"
    assert f"input model PythonRe has the pattern {EVIL!r}" in diagnostic.reason
    assert "Python's backtracking re" in diagnostic.reason
    assert "pydantic's default engine" in diagnostic.reason


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
    problem = schema_problem(source, role="output")
    assert problem is not None and problem.startswith(f"output model {owner} has the pattern")


@pytest.mark.parametrize("source", [Linear, LinearInsidePythonRe, TypeAdapter(list[Linear])])
def test_patterns_on_the_default_engine_are_accepted(source):
    assert schema_problem(source, role="input") is None
