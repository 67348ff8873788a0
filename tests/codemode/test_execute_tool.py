"""``execute``'s input and output contracts: pydantic adapters that advertise exactly the
documented schemas and accept exactly what those schemas accept."""

from __future__ import annotations

import jsonschema
import pytest
from pydantic import ValidationError

from tooldeck import ToolCall, run_tool_call, tool
from tooldeck.codemode.execute_tool import INPUT_SCHEMA, OUTPUT_SCHEMA, contracts

RECORD = {"name": "add", "status": "completed", "ms": 0.25}
INPUTS = [
    {"code": "await tools.add(a=1, b=2)"},
    {"code": ""},
    {},
    {"code": 1},
    {"code": None},
    {"code": b"1"},
    {"code": ["1"]},
    {"code": "1", "language": "python"},
    [],
    "1",
]
OUTPUTS = [
    {"result": {"a": [1, None]}, "printed": "", "tool_calls": [RECORD]},
    {"result": None, "printed": "hi\n", "tool_calls": []},
    {"result": 1, "printed": "", "tool_calls": [{**RECORD, "ms": 3}]},
    {"result": 1, "printed": "", "tool_calls": [], "more": True},
    {"result": 1, "printed": "", "tool_calls": [{**RECORD, "status": "running"}]},
    {"result": 1, "printed": "", "tool_calls": [{**RECORD, "ms": "3"}]},
    {"result": 1, "printed": "", "tool_calls": [{"name": "add", "status": "failed"}]},
    {"result": 1, "printed": 2, "tool_calls": []},
    {"result": 1, "tool_calls": []},
    {"printed": "", "tool_calls": []},
    {"result": 1, "printed": "", "tool_calls": {}},
]


def accepts(adapter, value) -> bool:
    try:
        adapter.validate_python(value)
    except ValidationError:
        return False
    return True


def test_the_adapters_advertise_the_documented_schemas():
    program_input, program_output = contracts()
    assert program_input.json_schema() == INPUT_SCHEMA
    assert program_output.json_schema() == OUTPUT_SCHEMA


@pytest.mark.parametrize("value", INPUTS)
def test_the_input_adapter_accepts_what_the_input_schema_accepts(value):
    assert accepts(contracts()[0], value) == jsonschema.Draft202012Validator(INPUT_SCHEMA).is_valid(
        value
    )


@pytest.mark.parametrize("value", OUTPUTS)
def test_the_output_adapter_accepts_what_the_output_schema_accepts(value):
    assert accepts(contracts()[1], value) == jsonschema.Draft202012Validator(
        OUTPUT_SCHEMA
    ).is_valid(value)


def test_the_output_keeps_the_runners_values_as_they_are():
    program_output = contracts()[1]
    output = {"result": {"a": [1.5, None]}, "printed": "x", "tool_calls": [RECORD]}
    checked = program_output.dump_python(program_output.validate_python(output), mode="json")
    assert checked == output


async def test_invalid_execute_input_is_a_failure_the_model_can_correct(deck):
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    snap = deck.snapshot(tool(add))
    outcome = await run_tool_call(snap, ToolCall("c1", "execute", {"code": 1}))
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    assert outcome.error.message.startswith("Invalid input for tool 'execute':\n- code: ")
    assert "Correct the arguments and call 'execute' again." in outcome.error.message
