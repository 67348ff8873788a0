"""OpenAI strict mode: the converted schema, the reasons a tool stays non-strict, and
the nulls that stand for optional properties left out."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from tooldeck.host.schema.derive import json_schema
from tooldeck.host.schema.jsonschema_fast import SchemaValidator
from tooldeck.host.schema.strict import drop_null_optionals, strict_schema


class Place(BaseModel):
    city: str = Field(min_length=1, description="The city.")
    country: str | None = None


class Trip(BaseModel):
    to: Place
    stops: list[Place] = []
    nights: int = Field(default=1, ge=1)
    mode: str = Field(default="train", pattern="^(train|bus)$")


def test_every_property_is_required_and_the_optional_ones_nullable():
    schema = strict_schema(json_schema(Trip)).schema
    assert schema["required"] == ["to", "stops", "nights", "mode"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["nights"] == {
        "minimum": 1,
        "title": "Nights",
        "type": ["integer", "null"],
    }
    assert schema["properties"]["stops"]["type"] == ["array", "null"]
    place = schema["properties"]["to"]  # derive inlines non-recursive models
    assert place["required"] == ["city", "country"]
    # already nullable: unchanged; min_length is left to tooldeck's own validation
    assert place["properties"]["country"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert place["properties"]["city"] == {
        "description": "The city.",
        "title": "City",
        "type": "string",
    }
    assert "default" not in str(schema)


def test_a_nullable_ref_keeps_its_description_outside():
    schema = {
        "type": "object",
        "additionalProperties": False,
        "$defs": {"P": {"type": "object", "properties": {}, "additionalProperties": False}},
        "properties": {"p": {"$ref": "#/$defs/P", "description": "A p."}},
    }
    assert strict_schema(schema).schema["properties"]["p"] == {
        "description": "A p.",
        "anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}],
    }


def test_one_of_becomes_any_of():
    schema = {
        "type": "object",
        "additionalProperties": False,
        "required": ["v"],
        "properties": {"v": {"oneOf": [{"type": "string"}, {"type": "integer"}]}},
    }
    assert strict_schema(schema).schema["properties"]["v"] == {
        "anyOf": [{"type": "string"}, {"type": "integer"}]
    }


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        (
            {"type": "object", "properties": {"x": {}}, "additionalProperties": False},
            "x: accepts any value; strict mode needs a typed schema",
        ),
        (
            {
                "type": "object",
                "properties": {"x": {"type": "object"}},
                "additionalProperties": False,
            },
            "x: allows additional properties; strict objects are closed",
        ),
        (
            {"type": "object", "properties": {}},
            "root: allows additional properties; strict objects are closed",
        ),
        (
            {
                "type": "object",
                "additionalProperties": False,
                "properties": {"x": {"allOf": [{"type": "string"}]}},
            },
            "x: uses 'allOf', which strict mode does not support",
        ),
        (
            {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "x": {"type": "array", "items": {"type": "object", "patternProperties": {}}}
                },
            },
            "x[]: uses 'patternProperties', which strict mode does not support",
        ),
        ({"description": "no type"}, "root: has no type; strict mode needs every schema typed"),
    ],
)
def test_what_keeps_a_tool_non_strict(schema, reason):
    assert strict_schema(schema) == (None, reason)


def test_dropping_nulls_restores_what_the_original_schema_accepts():
    schema = json_schema(Trip)
    sent = {"to": {"city": "Oslo", "country": None}, "stops": None, "nights": None, "mode": None}
    cleaned = drop_null_optionals(schema, sent)
    assert cleaned == {"to": {"city": "Oslo", "country": None}}  # country takes null
    assert SchemaValidator(schema).validate(cleaned)["to"]["city"] == "Oslo"
    assert Trip.model_validate(cleaned).nights == 1


def test_nulls_inside_arrays_and_refs_are_dropped_too():
    schema = json_schema(Trip)
    sent = {"to": {"city": "A"}, "stops": [{"city": "B", "country": None}, {"city": "C"}]}
    assert drop_null_optionals(schema, sent) is sent  # nothing to drop: the same object
    schema = {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": {"n": {"type": "integer"}}},
            }
        },
    }
    assert drop_null_optionals(schema, {"items": [{"n": None}, {"n": 2}]}) == {
        "items": [{}, {"n": 2}]
    }


def test_a_null_for_a_required_property_stays_for_validation_to_refuse():
    schema = json_schema(Trip)
    assert drop_null_optionals(schema, {"to": None}) == {"to": None}
