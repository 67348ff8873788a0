from __future__ import annotations

import copy

from hypothesis import given, settings
from pydantic import BaseModel, ConfigDict, TypeAdapter

from tooldeck.host.schema.derive import EMPTY_OBJECT, json_schema, schema_problem
from tooldeck.host.schema.frozen import FrozenDict, FrozenList

from ...examples import examples
from .test_metaschema import schemas


class Point(BaseModel):
    x: int
    y: int


class Shape(BaseModel):
    name: str
    points: list[Point]
    center: Point | None = None


class Node(BaseModel):
    value: int
    children: list[Node] = []


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")
    a: int


def _has_ref(value):
    if isinstance(value, dict):
        return "$ref" in value or any(_has_ref(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_ref(v) for v in value)
    return False


def test_acyclic_refs_are_inlined_and_defs_dropped():
    schema = json_schema(Shape)
    assert "$defs" not in schema
    assert not _has_ref(schema)
    point = schema["properties"]["points"]["items"]
    assert point["properties"]["x"] == {"title": "X", "type": "integer"}
    assert point["additionalProperties"] is False


def test_cyclic_refs_keep_a_minimal_defs():
    schema = json_schema(Node)
    children = schema["properties"]["children"]["items"]
    assert children == {"$ref": "#/$defs/Node"}
    assert set(schema["$defs"]) == {"Node"}
    assert schema["$defs"]["Node"]["additionalProperties"] is False


def test_objects_are_closed_unless_they_say_otherwise():
    assert json_schema(Point)["additionalProperties"] is False
    assert json_schema(Loose)["additionalProperties"] is True
    raw = {
        "type": "object",
        "properties": {
            "tags": {"type": "object", "additionalProperties": {"type": "string"}},
            "free": {"type": "object"},
            "both": {"allOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}]},
        },
    }
    derived = json_schema(raw)
    assert derived["additionalProperties"] is False
    assert derived["properties"]["tags"]["additionalProperties"] == {"type": "string"}
    assert "additionalProperties" not in derived["properties"]["free"]
    assert all("additionalProperties" not in b for b in derived["properties"]["both"]["allOf"])


def test_ref_with_sibling_annotations_merges_them():
    raw = {
        "type": "object",
        "$defs": {"P": {"type": "string"}},
        "properties": {
            "p": {"$ref": "#/$defs/P", "description": "a path"},
            "q": {"$ref": "#/$defs/P", "minLength": 2},
        },
    }
    derived = json_schema(raw)
    assert derived["properties"]["p"] == {"type": "string", "description": "a path"}
    assert derived["properties"]["q"] == {"allOf": [{"type": "string"}], "minLength": 2}


def test_a_property_named_like_a_keyword_is_not_treated_as_one():
    raw = {
        "type": "object",
        "properties": {"$ref": {"type": "string"}, "properties": {"type": "integer"}},
    }
    derived = json_schema(raw)
    assert derived["properties"]["$ref"] == {"type": "string"}
    assert derived["properties"]["properties"] == {"type": "integer"}


def test_author_schemas_are_never_mutated_and_results_are_cached():
    raw = {"type": "object", "properties": {"a": {"type": "integer"}}}
    before = copy.deepcopy(raw)
    first = json_schema(raw)
    assert raw == before
    assert json_schema(raw) is first
    assert json_schema(Point) is json_schema(Point)


def test_none_is_the_closed_empty_object():
    assert json_schema(None) is EMPTY_OBJECT
    assert EMPTY_OBJECT == {"type": "object", "properties": {}, "additionalProperties": False}


def test_type_adapter_outputs():
    assert json_schema(TypeAdapter(int), mode="serialization") == {"type": "integer"}


def test_schema_problems_are_specific():
    assert schema_problem(Point, role="input") is None
    assert schema_problem(None, role="output") is None
    bad = schema_problem({"type": "objekt"}, role="input")
    assert bad is not None and bad.startswith("input schema is not a valid JSON Schema:")
    assert "objekt" in bad
    not_object = schema_problem({"type": "string"}, role="input")
    assert not_object is not None and "must describe an object" in not_object
    assert schema_problem({"type": "string"}, role="output") is None
    wrong_kind = schema_problem(42, role="output")
    assert wrong_kind is not None and "got int" in wrong_kind


def test_raw_schemas_are_not_closed_below_combinators():
    raw = {
        "type": "object",
        "properties": {
            "v": {
                "oneOf": [
                    {"type": "object", "properties": {"a": {}}},
                    {"type": "object", "properties": {"b": {}}},
                ]
            },
            "w": {"anyOf": [{"type": "object", "properties": {"c": {}}}, {"type": "null"}]},
            "list": {"type": "array", "items": {"type": "object", "properties": {"x": {}}}},
            "map": {
                "type": "object",
                "additionalProperties": {"type": "object", "properties": {"y": {}}},
            },
        },
        "if": {"properties": {"kind": {"const": "num"}}},
        "then": {"properties": {"n": {"type": "integer"}}},
    }
    derived = json_schema(raw)
    props = derived["properties"]
    assert all("additionalProperties" not in b for b in props["v"]["oneOf"])
    assert "additionalProperties" not in props["w"]["anyOf"][0]
    assert "additionalProperties" not in derived["if"]
    assert "additionalProperties" not in derived["then"]
    assert props["list"]["items"]["additionalProperties"] is False
    assert props["map"]["additionalProperties"]["additionalProperties"] is False


def test_pydantic_optional_models_are_closed_inside_any_of():
    (branch,) = [
        b for b in json_schema(Shape)["properties"]["center"]["anyOf"] if b.get("type") == "object"
    ]
    assert branch["additionalProperties"] is False


def test_required_names_missing_from_properties_keep_the_object_open():
    derived = json_schema({"type": "object", "properties": {"a": {}}, "required": ["b"]})
    assert "additionalProperties" not in derived


def deeply_frozen(value):
    if isinstance(value, dict):
        return isinstance(value, FrozenDict) and all(map(deeply_frozen, value.values()))
    if isinstance(value, list):
        return isinstance(value, FrozenList) and all(map(deeply_frozen, value))
    return not isinstance(value, tuple | set)


@settings(max_examples=examples(200), deadline=None)
@given(schemas())
def test_a_derived_schema_is_frozen_all_the_way_down(schema):
    # The derivation builds its frozen copy in one pass (``bench/DECISIONS.md``): no
    # mutable dict or list may be left anywhere in it, whatever the schema holds.
    if isinstance(schema, dict):
        derived = json_schema({**schema, "x-list": [1, [2, {"a": [3]}]], "enum": [[1], {"b": 2}]})
        assert deeply_frozen(derived)
    for model in (Shape, Node, Loose):
        assert deeply_frozen(json_schema(model))
