"""A ``$ref`` that leads nowhere is refused at registration, not at every call.

Before, a dangling reference passed meta-validation, was advertised, and every call
failed as a defect (``failed/unknown``) when the validator first followed it.
"""

from __future__ import annotations

import pytest

from tooldeck import Location, Tool, ToolCall, ToolResult, ToolService, run_tool_call
from tooldeck.host.schema.derive import schema_problem
from tooldeck.host.schema.refs import ref_problem


def obj(**properties):
    return {"type": "object", "properties": properties}


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        (
            {**obj(a={"$ref": "#/$defs/Missing"}), "$defs": {"Other": {"type": "string"}}},
            "$ref '#/$defs/Missing' points to nothing in the schema",
        ),
        (obj(a={"$ref": "#/properties/b"}), "$ref '#/properties/b' points to nothing"),
        (
            obj(a={"$ref": "https://example.com/schemas/thing.json"}),
            "$ref 'https://example.com/schemas/thing.json' cannot be resolved: references "
            "must point inside the schema (such as '#/$defs/Name'); nothing is fetched",
        ),
        (
            {**obj(a={"items": {"$ref": "#/definitions/Item"}}), "definitions": {}},
            "$ref '#/definitions/Item' points to nothing",
        ),
        (obj(a={"$ref": "#nowhere"}), "$ref '#nowhere' cannot be resolved"),
    ],
    ids=["missing-def", "missing-property", "remote", "nested-missing", "missing-anchor"],
)
def test_a_dangling_ref_is_a_schema_problem(schema, problem):
    assert ref_problem(schema) == problem or ref_problem(schema).startswith(problem)
    assert schema_problem(schema, role="input").startswith(
        "input schema is not a valid JSON Schema: " + problem
    )
    assert schema_problem(schema, role="output").startswith("output schema is not a valid")


@pytest.mark.parametrize(
    "schema",
    [
        {**obj(a={"$ref": "#/$defs/A"}), "$defs": {"A": {"type": "string"}}},
        {**obj(a={"$ref": "#/definitions/A"}), "definitions": {"A": {"type": "string"}}},
        obj(tree={"type": "array", "items": {"$ref": "#"}}),
        obj(a={"$ref": "#/properties/b"}, b={"type": "integer"}),
        {**obj(a={"$ref": "#name"}), "$defs": {"N": {"$anchor": "name", "type": "string"}}},
        {
            "$id": "https://example.com/root.json",
            **obj(a={"$ref": "item.json"}),
            "$defs": {"I": {"$id": "https://example.com/item.json", "type": "string"}},
        },
        obj(a={"enum": [{"$ref": "not a schema, just data"}]}),
    ],
    ids=["defs", "definitions", "root", "sibling", "anchor", "id", "data-not-a-ref"],
)
def test_refs_that_resolve_are_accepted(schema):
    assert ref_problem(schema) is None
    assert schema_problem(schema, role="input") is None


async def test_a_tool_with_a_dangling_ref_is_not_advertised(tmp_path):
    service = ToolService(Location(tmp_path, data_dir=tmp_path / "data"))
    broken = Tool(
        name="broken",
        description="Refers to a definition that is not there.",
        input=obj(item={"$ref": "#/$defs/Item"}),
        execute=lambda data, ctx: ToolResult("never"),
    )
    service.transform(lambda editor: editor.add(broken), source="pack")
    snapshot = service.snapshot()
    assert snapshot.get("broken") is None
    [diagnostic] = service.diagnostics
    assert diagnostic.reason == (
        "input schema is not a valid JSON Schema: $ref '#/$defs/Item' points to nothing in "
        "the schema"
    )
    outcome = await run_tool_call(snapshot, ToolCall("c1", "broken", '{"item": 1}'))
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
