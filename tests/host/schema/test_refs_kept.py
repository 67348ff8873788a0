"""MCP's schemas keep ``$defs`` where that advertises exactly what is validated."""

from __future__ import annotations

from pydantic import BaseModel

from tooldeck.host.schema.derive import json_schema
from tooldeck.host.schema.refs_kept import refs_kept

ADDRESS = {"type": "object", "properties": {"street": {"type": "string"}}}


def test_a_json_schema_with_defs_keeps_them_closed_as_derive_closes():
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": ADDRESS},
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
        "additionalProperties": False,
    }
    kept = refs_kept(schema)
    assert kept["$schema"] == schema["$schema"]
    assert kept["properties"]["address"] == {"$ref": "#/$defs/address"}
    assert kept["$defs"]["address"]["additionalProperties"] is False  # as validated
    assert kept["additionalProperties"] is False
    assert refs_kept(schema) is kept  # cached


def test_a_pydantic_model_keeps_its_defs():
    class Address(BaseModel):
        street: str

    class Person(BaseModel):
        home: Address

    kept = refs_kept(Person)
    assert kept["properties"]["home"] == {"$ref": "#/$defs/Address"}
    assert kept["$defs"]["Address"]["additionalProperties"] is False


def test_a_definition_closed_in_one_place_and_open_in_another_stays_inlined():
    schema = {
        "type": "object",
        "$defs": {"address": ADDRESS},
        "properties": {
            "home": {"$ref": "#/$defs/address"},
            "work": {"anyOf": [{"$ref": "#/$defs/address"}, {"type": "null"}]},
        },
    }
    assert refs_kept(schema) == json_schema(schema)
    assert "$defs" not in refs_kept(schema)


def test_without_defs_it_is_the_derived_schema():
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert refs_kept(schema) is json_schema(schema)
    assert refs_kept(None) is json_schema(None)
