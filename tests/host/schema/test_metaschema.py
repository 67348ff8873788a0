"""The fast meta-validation agrees with jsonschema's Draft 2020-12 ``check_schema``."""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import given, settings
from jsonschema import Draft202012Validator, exceptions

from tooldeck.host.schema import metaschema
from tooldeck.host.schema.memo import certify
from tooldeck.host.schema.metaschema import _in_common_subset, check_schema_now, schema_problem
from tooldeck.host.schema.refs import ref_problem

from ...examples import examples

KEYWORD_VALUES = {
    "type": st.one_of(
        st.sampled_from(["string", "integer", "object", "array", "strng", 3]),
        st.lists(st.sampled_from(["string", "null", "nope"]), max_size=3),
    ),
    "enum": st.one_of(st.lists(st.integers(), max_size=3), st.integers()),
    "const": st.integers(),
    "minimum": st.one_of(st.integers(), st.text(max_size=2)),
    "maxLength": st.one_of(st.integers(min_value=-2, max_value=5), st.floats(0, 3)),
    "pattern": st.sampled_from(["^a", "[", 5]),
    "required": st.one_of(st.lists(st.sampled_from(["a", "b", 1]), max_size=3), st.text()),
    "uniqueItems": st.one_of(st.booleans(), st.integers()),
    "description": st.one_of(st.text(max_size=3), st.integers()),
    "default": st.integers(),
    "format": st.one_of(st.just("date"), st.integers()),
    "$ref": st.one_of(st.just("#/definitions/x"), st.integers()),
}


def schemas(depth=2):
    leaf = st.dictionaries(st.sampled_from(sorted(KEYWORD_VALUES)), st.none(), max_size=3).flatmap(
        lambda keys: st.fixed_dictionaries({k: KEYWORD_VALUES[k] for k in keys})
    )
    if depth == 0:
        return st.one_of(leaf, st.booleans())
    child = schemas(depth - 1)
    nested = st.fixed_dictionaries(
        {},
        optional={
            "properties": st.one_of(
                st.dictionaries(st.sampled_from("abc"), child, max_size=2), st.integers()
            ),
            "items": st.one_of(child, st.lists(child, max_size=2)),
            "anyOf": st.one_of(st.lists(child, max_size=2), child),
            "additionalProperties": child,
            "not": child,
            "$defs": st.dictionaries(st.sampled_from("xy"), child, max_size=1),
            "prefixItems": st.lists(child, max_size=2),
        },
    )
    return st.one_of(leaf, nested, st.builds(lambda a, b: {**a, **b}, leaf, nested))


def reference(schema):
    try:
        Draft202012Validator.check_schema(schema)
    except exceptions.SchemaError:
        return False
    return True


@settings(max_examples=examples(150), deadline=None)
@given(schemas())
def test_fast_meta_validation_agrees_with_jsonschema(schema):
    assert (check_schema_now(schema) is None) == reference(schema)


def test_common_subset_detection():
    assert _in_common_subset({"type": "object", "properties": {"a": {"type": "string"}}})
    assert not _in_common_subset({"$defs": {}})
    assert not _in_common_subset({"items": [{}]})
    assert not _in_common_subset({"prefixItems": [{}]})
    assert not _in_common_subset({"deprecated": True})


def test_problem_names_the_path():
    problem = schema_problem({"type": "object", "properties": {"a": {"type": "strng"}}})
    assert problem is not None and "properties/a/type" in problem


@settings(max_examples=examples(150), deadline=None)
@given(schemas())
def test_the_remembered_verdict_is_the_checked_one(schema):
    first = schema_problem(schema)
    certified = certify(schema, metaschema._COMMON, metaschema._shape_ok) is not None
    assert (repr(schema) in metaschema._CHECKED) is not certified  # kept when not certified
    assert schema_problem(schema) == first == (check_schema_now(schema) or ref_problem(schema))


def test_a_dangling_reference_is_a_problem_of_the_schema():
    dangling = {"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}}
    first = schema_problem(dangling)
    assert first is not None and "#/$defs/Missing" in first
    assert first == ref_problem(dangling)
    assert schema_problem(dangling) == first
    fixed = {**dangling, "$defs": {"Missing": {"type": "string"}}}
    assert schema_problem(fixed) is None


def test_values_that_only_look_alike_are_checked_apart():
    as_list = {"type": "object", "required": ["a"]}
    as_tuple = {"type": "object", "required": ("a",)}
    assert schema_problem(as_list) is None
    assert schema_problem(as_tuple) == check_schema_now(as_tuple) is not None
    assert schema_problem({"minimum": 1}) is None
    assert schema_problem({"minimum": True}) == check_schema_now({"minimum": True}) is not None
