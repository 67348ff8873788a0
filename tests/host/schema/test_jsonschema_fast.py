"""``jsonschema_fast`` must agree with ``jsonschema``: per-keyword cases, error issues,
``drop_undeclared``, the fallback, and a differential property test over random schemas."""

from __future__ import annotations

import copy
import itertools
import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from jsonschema.validators import Draft202012Validator, validator_for

from tooldeck.host.schema.jsonschema_fast import Issue, SchemaValidationError, SchemaValidator
from tooldeck.host.schema.jsonschema_fast._bounded import bounded

from ...examples import examples

DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema"
DRAFT_2019 = "https://json-schema.org/draft/2019-09/schema"
DRAFT_7 = "http://json-schema.org/draft-07/schema#"
DRAFT_6 = "http://json-schema.org/draft-06/schema#"
DRAFT_4 = "http://json-schema.org/draft-04/schema#"


def reference(schema):
    """jsonschema, with its pattern keywords matched the bounded way (RE2 reads ``$`` as
    the end of the text, where ``re`` also accepts a final newline)."""
    return bounded(validator_for(schema, default=Draft202012Validator))(schema)


def reference_issues(schema, instance, validator=None):
    errors = (validator or reference(schema)).iter_errors(instance)
    return sorted(((tuple(e.absolute_path), e.message) for e in errors), key=repr)


def outcome(validator, instance):
    """``(True, returned)`` or ``(False, issues as (path, message) pairs)``."""
    try:
        return True, validator.validate(instance)
    except SchemaValidationError as exc:
        return False, sorted(((i.path, i.message) for i in exc.issues), key=repr)


def agreement(schema, *, compiled=True):
    """A checker of one schema against jsonschema, built once for many instances: same
    verdict and issues; when compiled, the closures alone agree too."""
    validator, expected = SchemaValidator(schema), reference(schema)
    assert validator.is_compiled is compiled

    def check(instance):
        expected_valid = expected.is_valid(instance)
        if compiled:
            # White-box: the compiled closures must be exact, not merely rescued by the fallback.
            assert validator._check(instance) is expected_valid
        valid, result = outcome(validator, instance)
        assert valid is expected_valid
        if valid:
            assert result is instance
        else:
            assert result == reference_issues(schema, instance, expected)
        return valid

    return check


def assert_agrees(schema, instance, *, compiled=True):
    return agreement(schema, compiled=compiled)(instance)


# -- keywords --------------------------------------------------------------------------------
CASES = [
    # type: bool is not a number, 1.0 is an integer
    ({"type": "integer"}, 1, True),
    ({"type": "integer"}, 1.0, True),
    ({"type": "integer"}, 1.5, False),
    ({"type": "integer"}, True, False),
    ({"type": "integer"}, "1", False),
    ({"type": "number"}, 2.5, True),
    ({"type": "number"}, False, False),
    ({"type": "boolean"}, True, True),
    ({"type": "boolean"}, 0, False),
    ({"type": "null"}, None, True),
    ({"type": "null"}, 0, False),
    ({"type": "string"}, "x", True),
    ({"type": "array"}, [], True),
    ({"type": "array"}, {}, False),
    ({"type": "object"}, {}, True),
    ({"type": "object"}, [], False),
    ({"type": ["string", "null"]}, None, True),
    ({"type": ["string", "null"]}, 1, False),
    ({"type": ["integer", "string"], "minimum": 2}, 2.0, True),
    # properties, required, additionalProperties
    ({"properties": {"a": {"type": "integer"}}}, {"a": "x"}, False),
    ({"properties": {"a": {"type": "integer"}}}, {"b": "x"}, True),
    ({"properties": {"a": {"type": "integer"}}}, "not an object", True),
    ({"properties": {"a": False}}, {"a": 1}, False),
    ({"properties": {"a": False}}, {}, True),
    ({"required": ["a"]}, {}, False),
    ({"required": ["a"]}, {"a": None}, True),
    ({"required": ["a"]}, ["a"], True),
    ({"properties": {"a": {}}, "required": ["b"]}, {"a": 1, "b": 2}, True),
    ({"properties": {"a": {}}, "additionalProperties": False}, {"a": 1, "b": 2}, False),
    ({"properties": {"a": {}}, "additionalProperties": False}, {"a": 1}, True),
    ({"additionalProperties": {"type": "string"}}, {"x": "s"}, True),
    ({"additionalProperties": {"type": "string"}}, {"x": 1}, False),
    ({"properties": {"a": {}}, "additionalProperties": {"type": "string"}}, {"a": 1}, True),
    # items, prefixItems
    ({"items": {"type": "integer"}}, [1, 2], True),
    ({"items": {"type": "integer"}}, [1, "x"], False),
    ({"items": False}, [], True),
    ({"items": False}, [1], False),
    ({"prefixItems": [{"type": "integer"}, {"type": "string"}]}, [1, "a", None], True),
    ({"prefixItems": [{"type": "integer"}, {"type": "string"}]}, ["a"], False),
    ({"prefixItems": [{}], "items": False}, [1], True),
    ({"prefixItems": [{}], "items": False}, [1, 2], False),
    ({"prefixItems": [{"type": "integer"}], "items": {"type": "string"}}, [1, "a", "b"], True),
    ({"prefixItems": [{"type": "integer"}], "items": {"type": "string"}}, [1, 2], False),
    # enum and const: 1 == 1.0 but True != 1, also inside containers
    ({"enum": [1, "a", None]}, 1.0, True),
    ({"enum": [1, "a", None]}, True, False),
    ({"enum": [1, "a", None]}, None, True),
    ({"enum": [1, "a", None]}, "b", False),
    ({"enum": [True]}, 1, False),
    ({"enum": [[1, {"a": True}]]}, [1.0, {"a": True}], True),
    ({"enum": [[1, {"a": True}]]}, [1, {"a": 1}], False),
    ({"const": 0}, False, False),
    ({"const": 0}, 0.0, True),
    ({"const": {"a": [1]}}, {"a": [1]}, True),
    ({"const": {"a": [1]}}, {"a": [True]}, False),
    # numbers
    ({"minimum": 1}, 1, True),
    ({"minimum": 1}, 0.5, False),
    ({"minimum": 1}, "x", True),
    ({"minimum": 1}, float("nan"), True),
    ({"maximum": 1}, 2, False),
    ({"exclusiveMinimum": 1}, 1, False),
    ({"exclusiveMinimum": 1}, 1.01, True),
    ({"exclusiveMaximum": 1}, 1, False),
    ({"exclusiveMaximum": 1}, True, True),
    ({"multipleOf": 2}, 4, True),
    ({"multipleOf": 2}, 5, False),
    ({"multipleOf": 2}, 4.0, True),
    ({"multipleOf": 0.5}, 1.5, True),
    ({"multipleOf": 0.1}, 0.3, False),  # float arithmetic, exactly as jsonschema does it
    ({"multipleOf": 1e-308}, 1e10, False),  # quotient overflows: the Fraction path
    # strings count code points; pattern searches
    ({"minLength": 2}, "é", False),
    ({"minLength": 2}, "😀😀", True),
    ({"maxLength": 1}, "😀", True),
    ({"maxLength": 1}, "ab", False),
    ({"maxLength": 1}, 123, True),
    ({"pattern": "^a"}, "abc", True),
    ({"pattern": "^a"}, "bac", False),
    ({"pattern": "b"}, "abc", True),
    # arrays and objects sizes, uniqueness with jsonschema's quirks
    ({"minItems": 1}, [], False),
    ({"maxItems": 1}, [1, 2], False),
    ({"uniqueItems": True}, [1, True], True),
    ({"uniqueItems": True}, [1, 1.0], False),
    ({"uniqueItems": True}, [{"a": 1}, {"a": 1}], False),
    ({"uniqueItems": True}, [[1], [True], [1]], True),  # jsonschema compares sorted neighbours
    ({"uniqueItems": False}, [1, 1], True),
    ({"minProperties": 1}, {}, False),
    ({"maxProperties": 1}, {"a": 1, "b": 2}, False),
    # combinators
    ({"allOf": [{"type": "integer"}, {"minimum": 2}]}, 3, True),
    ({"allOf": [{"type": "integer"}, {"minimum": 2}]}, 1, False),
    ({"anyOf": [{"type": "integer"}, {"type": "string"}]}, "a", True),
    ({"anyOf": [{"type": "integer"}, {"type": "string"}]}, None, False),
    ({"anyOf": [{"type": "integer"}, {"minimum": 2}]}, 1.5, False),
    ({"oneOf": [{"type": "integer"}, {"minimum": 2}]}, 1, True),
    ({"oneOf": [{"type": "integer"}, {"minimum": 2}]}, 3, False),
    ({"oneOf": [{"type": "integer"}, {"minimum": 2}]}, "x", True),
    ({"not": {"type": "integer"}}, 1, False),
    ({"not": {"type": "integer"}}, "a", True),
    ({"not": {}}, "a", False),
    # annotations (format too: jsonschema does not assert it by default), unknown keywords
    (
        {
            "type": "string",
            "format": "email",
            "title": "t",
            "description": "d",
            "default": "x",
            "examples": ["a"],
            "$comment": "c",
            "deprecated": True,
            "x-vendor": {"anything": 1},
        },
        "not an email",
        True,
    ),
    # drafts: 2019-09 has no prefixItems; 6 and 7 ignore $ref siblings
    ({"$schema": DRAFT_2019, "prefixItems": [{"type": "string"}]}, [1], True),
    ({"$schema": DRAFT_2019, "items": {"type": "string"}}, ["a", 1], False),
    ({"$schema": DRAFT_7, "items": False}, [1], False),
    (
        {"$schema": DRAFT_7, "$defs": {"a": {"minimum": 3}}, "$ref": "#/$defs/a", "type": "string"},
        5,
        True,
    ),
    (
        {
            "$schema": DRAFT_2019,
            "$defs": {"a": {"minimum": 3}},
            "$ref": "#/$defs/a",
            "type": "string",
        },
        5,
        False,
    ),
    ({"$schema": DRAFT_6, "exclusiveMinimum": 1}, 1, False),
]


@pytest.mark.parametrize(("schema", "instance", "valid"), CASES)
def test_keyword_semantics_match_jsonschema(schema, instance, valid):
    assert assert_agrees(schema, instance) is valid


def test_format_is_an_annotation_in_jsonschema_too():
    assert reference({"format": "date"}).is_valid("not a date")


# -- $ref --------------------------------------------------------------------------------------
TREE = {
    "$defs": {
        "node": {
            "type": "object",
            "properties": {
                "value": {"type": "integer"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            },
            "required": ["value"],
        }
    },
    "$ref": "#/$defs/node",
}


@pytest.mark.parametrize(
    ("instance", "valid"),
    [
        ({"value": 1}, True),
        ({"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]}, True),
        ({"value": 1, "children": [{"value": 2, "children": [{"value": "x"}]}]}, False),
        ({"value": 1, "children": [{"children": []}]}, False),
    ],
)
def test_cyclic_refs_compile_and_agree(instance, valid):
    assert assert_agrees(TREE, instance) is valid


@pytest.mark.parametrize(
    "schema",
    [
        {
            "definitions": {"n": {"type": "integer"}},
            "properties": {"a": {"$ref": "#/definitions/n"}},
        },
        {"$defs": {"a/b": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/a~1b"}}},
        {"properties": {"a": {"type": "integer"}, "next": {"$ref": "#"}}},
        {
            "$id": "https://example.com/s.json",
            "$defs": {"n": {"type": "integer"}},
            "properties": {"a": {"$ref": "#/$defs/n"}},
        },
    ],
)
@pytest.mark.parametrize("instance", [{"a": 1}, {"a": "x"}, {"next": {"a": "x"}}, {"next": {}}])
def test_local_ref_forms(schema, instance):
    assert_agrees(schema, instance)


# -- fallback to jsonschema ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"properties": {"a": {}}, "unevaluatedProperties": False}, {"a": 1, "b": 2}),
        ({"dependentSchemas": {"a": {"required": ["b"]}}}, {"a": 1}),
        ({"dependentRequired": {"a": ["b"]}}, {"a": 1}),
        ({"if": {"type": "integer"}, "then": {"minimum": 3}, "else": {"type": "string"}}, 2),
        ({"patternProperties": {"^x": {"type": "integer"}}}, {"xa": "s"}),
        ({"propertyNames": {"maxLength": 1}}, {"ab": 1}),
        ({"contains": {"type": "integer"}}, ["a"]),
        ({"properties": {"a": {"$ref": "#/properties/b"}, "b": {"type": "integer"}}}, {"a": "x"}),
        ({"properties": {"a": {"$id": "https://example.com/a", "type": "integer"}}}, {"a": "x"}),
        ({"$schema": DRAFT_7, "items": [{"type": "integer"}]}, ["x"]),
        ({"$schema": DRAFT_4, "minimum": 1, "exclusiveMinimum": True}, 1),
        ({"type": "object", "properties": {"a": {"minimum": 1, "contains": {}}}}, {"a": 0}),
    ],
)
def test_unsupported_keywords_fall_back_to_jsonschema(schema, instance):
    assert_agrees(schema, instance, compiled=False)


def test_remote_and_dynamic_refs_are_not_compiled():
    assert not SchemaValidator({"$ref": "https://example.com/schema.json"}).is_compiled
    assert not SchemaValidator({"$dynamicRef": "#meta"}).is_compiled


def test_unsupported_keyword_only_in_an_unreferenced_def_still_compiles():
    schema = {"$defs": {"unused": {"if": {}}}, "type": "integer"}
    assert_agrees(schema, "x")


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"type": "number", "minimum": 1}, Decimal("0.5")),
        ({"type": "number", "minimum": 1}, Decimal("2")),
        ({"type": "array"}, (1, 2)),
        ({"enum": [1]}, Decimal(1)),
        ({"type": "object", "required": ["a"]}, type("Sub", (dict,), {})(a=1)),
    ],
)
def test_values_outside_plain_json_are_judged_by_jsonschema(schema, instance):
    validator = SchemaValidator(schema)
    valid, result = outcome(validator, instance)
    assert valid is reference(schema).is_valid(instance)
    assert result == (instance if valid else reference_issues(schema, instance))


def test_jsonschema_wins_a_disagreement():
    validator = SchemaValidator({"type": "integer"}, drop_undeclared=True)
    validator._check = lambda _instance: False  # simulate a closure that rejects too much
    assert validator.validate(3) == 3
    with pytest.raises(SchemaValidationError):
        validator.validate("x")


# -- issues ------------------------------------------------------------------------------------
def test_issues_are_jsonschemas_errors_sorted_by_path_then_message():
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "b": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["a", "c"],
        "additionalProperties": False,
    }
    with pytest.raises(SchemaValidationError) as info:
        SchemaValidator(schema).validate({"b": ["x", 2], "d": 1})
    assert info.value.issues == (
        Issue((), "'a' is a required property"),
        Issue((), "'c' is a required property"),
        Issue((), "Additional properties are not allowed ('d' was unexpected)"),
        Issue(("b", 1), "2 is not of type 'string'"),
    )
    assert str(info.value) == "at root: 'a' is a required property (and 3 more)"


def test_index_paths_sort_numerically_and_all_issues_are_kept():
    instance = [1] * 12
    instance[10] = instance[2] = "x"
    with pytest.raises(SchemaValidationError) as info:
        SchemaValidator({"items": {"type": "integer"}}).validate(instance)
    assert [issue.path for issue in info.value.issues] == [(2,), (10,)]


def test_any_of_and_one_of_report_the_combinator_error_itself():
    schema = {"properties": {"x": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}}
    with pytest.raises(SchemaValidationError) as info:
        SchemaValidator(schema).validate({"x": "s"})
    assert info.value.issues == (Issue(("x",), "'s' is not valid under any of the given schemas"),)


# -- drop_undeclared ---------------------------------------------------------------------------
NESTED = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "point": {"type": "object", "properties": {"x": {"type": "integer"}}},
        "tags": {"type": "array", "items": {"type": "object", "properties": {"t": {}}}},
        "pair": {"prefixItems": [{"properties": {"p": {}}}, {}]},
        "either": {"anyOf": [{"type": "object", "properties": {"e": {}}}, {"type": "null"}]},
    },
    "required": ["name"],
}


def test_drop_undeclared_prunes_nested_objects_and_never_mutates_the_input():
    instance = {
        "name": "n",
        "extra": 1,
        "point": {"x": 1, "y": 2},
        "tags": [{"t": 1, "u": 2}, {"t": 3}],
        "pair": [{"p": 1, "q": 2}, {"r": 3}],
        "either": {"e": 1, "f": 2},
    }
    before = copy.deepcopy(instance)
    result = SchemaValidator(NESTED, drop_undeclared=True).validate(instance)
    assert instance == before
    assert result == {
        "name": "n",
        "point": {"x": 1},
        "tags": [{"t": 1}, {"t": 3}],
        "pair": [{"p": 1}, {"r": 3}],
        "either": {"e": 1, "f": 2},  # inside anyOf: ambiguous, kept
    }
    assert result["tags"][1] is instance["tags"][1]  # untouched parts are shared, not copied


def test_drop_undeclared_returns_the_same_object_when_nothing_is_dropped():
    instance = {"name": "n", "point": {"x": 1}, "tags": [{"t": 1}]}
    assert SchemaValidator(NESTED, drop_undeclared=True).validate(instance) is instance


def test_without_drop_undeclared_extras_are_kept():
    instance = {"name": "n", "extra": 1}
    assert SchemaValidator(NESTED).validate(instance) is instance


@pytest.mark.parametrize(
    ("schema", "instance", "expected"),
    [
        # additionalProperties: keys stay at that level, declared children are still pruned
        (
            {"properties": {"a": {"properties": {"x": {}}}}, "additionalProperties": True},
            {"a": {"x": 1, "y": 2}, "z": 3},
            {"a": {"x": 1}, "z": 3},
        ),
        # required names count as declared
        ({"properties": {"a": {}}, "required": ["b"]}, {"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2}),
        # keywords that dropping could break, or that declare properties elsewhere
        ({"properties": {"a": {}}, "minProperties": 2}, {"a": 1, "b": 2}, {"a": 1, "b": 2}),
        ({"properties": {"a": {}}, "patternProperties": {"^b": {}}}, {"a": 1, "b": 2}, None),
        ({"properties": {"a": {}}, "allOf": [{"properties": {"b": {}}}]}, {"a": 1, "b": 2}, None),
        ({"properties": {"a": {}}, "not": {"maxProperties": 1}}, {"a": 1, "b": 2}, None),
        # through refs, cycles included
        (
            TREE,
            {"value": 1, "x": 0, "children": [{"value": 2, "y": 0}]},
            {"value": 1, "children": [{"value": 2}]},
        ),
        # draft 7: tuple items prune by position
        (
            {"$schema": DRAFT_7, "items": [{"properties": {"a": {}}}]},
            [{"a": 1, "b": 2}, {"c": 3}],
            [{"a": 1}, {"c": 3}],
        ),
    ],
)
def test_drop_undeclared_rules(schema, instance, expected):
    result = SchemaValidator(schema, drop_undeclared=True).validate(instance)
    assert result == (instance if expected is None else expected)


def test_drop_undeclared_also_applies_after_the_fallback():
    schema = {"properties": {"a": {}}, "if": {"required": ["a"]}, "then": {"required": ["a"]}}
    validator = SchemaValidator(
        {"type": "object", "properties": {"o": schema}}, drop_undeclared=True
    )
    assert not validator.is_compiled
    # the node with ``if`` is left alone; its parent is pruned
    assert validator.validate({"o": {"a": 1, "b": 2}, "z": 1}) == {"o": {"a": 1, "b": 2}}


# -- differential property test --------------------------------------------------------------
NAMES = ("a", "b", "c")
DEFS = ("n0", "n1")


def hundredths(n):
    return n / 100


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-4, 6)
    | st.integers(-400, 600).map(hundredths)
    | st.sampled_from([0.0, 1.0, 2.5, -0.5, 0.3])
    | st.text("ab1é😀", max_size=4)
)
KEYS = st.sampled_from((*NAMES, "d"))
# Two explicit levels of nesting instead of st.recursive: much cheaper to draw.
SHALLOW = SCALARS | st.lists(SCALARS, max_size=3) | st.dictionaries(KEYS, SCALARS, max_size=3)
JSON = SHALLOW | st.lists(SHALLOW, max_size=3) | st.dictionaries(KEYS, SHALLOW, max_size=3)
# Values for enum/const/default: a fixed pool draws far faster than recursive JSON.
# fmt: off
POOL_VALUES = [
    None, True, False, 0, 1, 1.0, -1, 2, 2.5, 0.5, "", "a", "b", "ab", "é", [], [1], [True],
    [1, "a"], {}, {"a": 1}, {"a": True}, {"a": [1]}, {"b": None},
]
# fmt: on
POOL = st.sampled_from(POOL_VALUES)
TYPE_NAMES = ("object", "array", "string", "integer", "number", "boolean", "null")
# The values each leaf keyword takes, for the random schemas and the grid alike.
KEYWORD_VALUES: dict[str, list[Any]] = {
    "minimum": [-1, 0, 1, 2, 1.5, -0.5],
    "maximum": [-1, 0, 1, 2, 1.5, 4],
    "exclusiveMinimum": [-1, 0, 1, 1.5],
    "exclusiveMaximum": [0, 1, 2, 4.5],
    "multipleOf": [1, 2, 3, 0.5, 0.1, 1.5],
    "minLength": [0, 1, 2, 3],
    "maxLength": [0, 1, 2, 3],
    "pattern": ["^a", "b$", "[0-9]", "^$", "a+b?", "é"],
    "minItems": [0, 1, 2, 3],
    "maxItems": [0, 1, 2, 3],
    "uniqueItems": [True, False],
    "minProperties": [0, 1, 2, 3],
    "maxProperties": [0, 1, 2, 3],
    "title": ["t"],
    "format": ["email", "date", "uri"],
    "x-vendor": [1],
}
LEAF_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "required": st.lists(st.sampled_from((*NAMES, "d")), max_size=3, unique=True),
    "enum": st.lists(POOL, min_size=1, max_size=4),
    "const": POOL,
    "default": POOL,
    **{key: st.sampled_from(values) for key, values in KEYWORD_VALUES.items()},
}
NUMERIC = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
# fmt: off
BY_KIND = {  # repeated names weigh more: nesting is what the random test is for
    "object": ("properties", "properties", "required", "additionalProperties", "minProperties",
               "maxProperties"),
    "array": ("items", "items", "prefixItems", "minItems", "maxItems", "uniqueItems"),
    "string": ("minLength", "maxLength", "pattern"),
    "integer": NUMERIC,
    "number": NUMERIC,
    "boolean": (),
    "null": (),
}
GENERAL = ("enum", "const", "allOf", "anyOf", "anyOf", "oneOf", "not", "$ref", "$ref", "title",
           "default", "format", "x-vendor")
# fmt: on
CONSUMING = ("properties", "additionalProperties", "items", "prefixItems")
CHILDREN = (*CONSUMING, "allOf", "anyOf", "oneOf", "not")


@st.composite
def schema_nodes(draw, draft, depth, may_ref, kinds=(*TYPE_NAMES, "object", "array")):
    """One schema node of the compiled subset: mostly typed, with keywords for its kind
    (and sometimes others, which must then be ignored). ``may_ref``: a ``$ref`` here
    cannot loop forever, because inside ``$defs`` refs only appear below a keyword that
    consumes part of the instance."""
    if draw(st.integers(0, 11)) == 0:
        return draw(st.booleans())
    kind = draw(st.sampled_from(kinds))
    node = {}
    if draw(st.integers(0, 4)) > 0:
        other = draw(st.sampled_from(TYPE_NAMES))
        node["type"] = draw(
            st.sampled_from([kind, [kind], [kind, other] if other != kind else kind])
        )
    allowed = [k for k in (*BY_KIND[kind], *GENERAL) if usable(k, draft, depth, may_ref)]
    stray = st.sampled_from([k for k in LEAF_VALUES if usable(k, draft, depth, may_ref)])
    keys = draw(st.lists(st.sampled_from(allowed), max_size=3, unique=True))
    keys += draw(st.lists(stray, max_size=1))
    if kind in ("object", "array") and depth > 0 and draw(st.integers(0, 3)) > 0:
        keys.append(BY_KIND[kind][0])  # nest often: properties or items
    for key in dict.fromkeys(keys):
        node[key] = draw(keyword_values(key, draft, depth - 1, may_ref))
    return node


def usable(key, draft, depth, may_ref):
    if key == "prefixItems" and draft not in (None, DRAFT_2020):
        return False
    return (key != "$ref" or may_ref) and (key not in CHILDREN or depth > 0)


def keyword_values(key, draft, depth, may_ref):
    if key in LEAF_VALUES:
        return LEAF_VALUES[key]
    if key == "$ref":
        return st.sampled_from([f"#/$defs/{name}" for name in DEFS])
    child = schema_nodes(draft, depth, may_ref=may_ref or key in CONSUMING)
    if key == "properties":
        return st.dictionaries(st.sampled_from(NAMES), child, max_size=3)
    if key in ("additionalProperties", "items"):
        return st.booleans() | child
    if key == "not":
        return child
    return st.lists(child, min_size=1, max_size=3)


@st.composite
def schemas(draw, depth=3, *, objects_first=True):
    """A whole schema: usually an object with properties, like a tool's input; ``$defs``
    holds what its refs name. ``depth=0``: a single node, every keyword at the root."""
    draft = draw(st.sampled_from([None, None, DRAFT_2020, DRAFT_2019, DRAFT_7, DRAFT_6]))
    objects = objects_first and draw(st.integers(0, 3)) > 0
    kinds = ("object",) if objects else (*TYPE_NAMES, "object", "array")
    body = draw(schema_nodes(draft, depth=depth, may_ref=depth > 0, kinds=kinds))
    schema = body if isinstance(body, dict) else {"allOf": [body]}
    if draft is not None:
        schema["$schema"] = draft
    defs: dict[str, Any] = {}
    pending = refs_in(schema)
    while pending:  # draw only the defs that are referenced, directly or not
        name = pending.pop()
        if name not in defs:
            defs[name] = draw(schema_nodes(draft, depth=2, may_ref=False))
            pending += refs_in(defs[name])
    if defs:
        schema["$defs"] = defs
    return schema


def refs_in(node):
    if isinstance(node, list):
        return [name for each in node for name in refs_in(each)]
    if not isinstance(node, dict):
        return []
    own = [node["$ref"].rpartition("/")[2]] if isinstance(node.get("$ref"), str) else []
    return own + [name for value in node.values() for name in refs_in(value)]


def resolve(root, ref):
    return root["$defs"][ref.rpartition("/")[2]]


def guided(schema, root, depth=4):
    """Instances shaped by the schema, many of them near a boundary: the values the
    schema names and their twins (1 for True, 1.0 for 1), limits and limits ± a step,
    missing required keys, undeclared keys, duplicates. Both verdicts stay common, deep
    inside instances too."""
    if not isinstance(schema, dict) or depth == 0:
        return JSON
    options = [edges(schema)]
    if "$ref" in schema:
        target = resolve(root, schema["$ref"])
        options.append(st.deferred(lambda: guided(target, root, depth - 1)))
    named = schema.get("enum", []) + ([schema["const"]] if "const" in schema else [])
    if named:
        options.append(st.sampled_from(named))
    for key in ("anyOf", "oneOf", "allOf"):
        options += [guided(each, root, depth - 1) for each in schema.get(key, [])]
    if "not" in schema:
        options.append(guided(schema["not"], root, depth - 1))
    types = schema.get("type", ["object", "array", "string", "number"])
    types = [types] if isinstance(types, str) else types
    options += [guided_type(name, schema, root, depth) for name in types]
    return st.one_of(options)


def guided_type(name, schema, root, depth):
    if name == "object":
        props = {k: guided(v, root, depth - 1) for k, v in schema.get("properties", {}).items()}
        required = schema.get("required", [])
        needed = {k: props.get(k, JSON) for k in required}
        optional = {k: v for k, v in {**props, "d": JSON}.items() if k not in needed}
        return st.fixed_dictionaries(needed, optional=optional) | st.fixed_dictionaries(
            {}, optional={**optional, **needed}
        )
    if name == "array":
        items = schema.get("items", True)
        tail = (
            st.lists(guided(items, root, depth - 1), max_size=3)
            if items is not False
            else st.just([])
        )
        heads = [guided(each, root, depth - 1) for each in schema.get("prefixItems", [])]
        return st.tuples(st.tuples(*heads), tail).map(concatenated)
    if name == "string":
        pattern = schema.get("pattern")
        return st.from_regex(pattern) if pattern else st.text("ab1é😀", max_size=4)
    return st.sampled_from(TYPE_EDGES[name])


def concatenated(pair):
    return [*pair[0], *pair[1]]


TYPE_EDGES = {
    "integer": [0, 1, -2, 5, 1.0, 2.0, -0.0, 1.5, True, False, "1"],
    "number": [0, 1, 2.5, -0.5, 1.0, True, None],
    "boolean": [True, False, 0, 1, "true"],
    "null": [None, 0, False, "", []],
}
# fmt: off
DUPLICATES = [
    [1, True], [1, 1.0], [0, False], [[1], [True]], [[1], [True], [1]], [{"a": 1}, {"a": 1}],
    [{"a": 1}, {"a": True}], ["a", "a"], [None, None], [1.5, 1.5, 2],
]
# fmt: on


def edges(schema):
    values = edge_values(schema)
    return st.sampled_from(values) if values else st.nothing()


def edge_values(schema):
    """Instances at the boundaries the schema's own keywords draw."""
    values = [twin for each in schema.get("enum", []) for twin in twins(each)]
    values += twins(schema["const"]) if "const" in schema else []
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if key in schema:
            limit = schema[key]
            values += [limit, float(limit), limit - 1, limit + 1, limit - 0.5, limit + 0.5]
    if "multipleOf" in schema:
        step = schema["multipleOf"]
        values += [step * k for k in (-1, 0, 1, 3, 7)] + [step * 2.5, step * 3 + 0.1, 0.3]
    for key in ("minLength", "maxLength"):
        if key in schema:
            n = schema[key]
            values += ["a" * n, "😀" * n, "é" * (n + 1), "b" * max(n - 1, 0)]
    for key in ("minItems", "maxItems", "minProperties", "maxProperties"):
        if key in schema:
            n = schema[key]
            values += [[1] * n, [True] * (n + 1), dict.fromkeys(("a", "b", "c", "d")[: n + 1], 1)]
    if schema.get("uniqueItems"):
        values += DUPLICATES
    return values


def twins(value):
    """Values JSON Schema tells apart from ``value`` although Python may not, or the
    other way round."""
    if isinstance(value, bool):
        return [int(value), float(value)]
    if isinstance(value, int | float):
        return [float(value), int(value), *([bool(value)] if value in (0, 1) else [])]
    if isinstance(value, list):
        return [
            [*value[:i], twin, *value[i + 1 :]] for i, v in enumerate(value) for twin in twins(v)
        ]
    if isinstance(value, dict):
        return [{**value, k: twin} for k, v in value.items() for twin in twins(v)]
    if value is None:
        return [0, False, ""]
    return [value + "x", value[:-1]]


def from_schema_can_generate(schema):
    """hypothesis-jsonschema 0.23.1 crashes generating any object with the installed
    Hypothesis ("'many' object has no attribute 'more'") and cannot resolve recursive refs,
    so it only gets schemas where no node could produce an object or use a ref."""
    if isinstance(schema, bool):
        return True
    types = schema.get("type")
    types = [types] if isinstance(types, str) else types
    untyped = types is None and not {"enum", "const"} & set(schema)
    if untyped and not set(schema) <= {"allOf", "anyOf", "oneOf"}:  # even {"title": 1} crashes
        return False
    if "$ref" in schema or (types is not None and "object" in types):
        return False
    if schema.get("minLength", 0) > schema.get("maxLength", 99):
        return False  # it raises InvalidArgument rather than generating nothing
    children = [schema.get(k) for k in ("items", "not") if isinstance(schema.get(k), dict)]
    for key in ("prefixItems", "allOf", "anyOf", "oneOf"):
        children += schema.get(key, [])
    children += schema.get("properties", {}).values()
    return all(from_schema_can_generate(child) for child in children)


def instances(schema):
    body = {k: v for k, v in schema.items() if k not in ("$defs", "$schema")}
    strategies = [JSON, guided(schema, schema)]
    # Without its $defs, a ref anywhere in the body (say under additionalProperties,
    # which from_schema_can_generate does not walk) would not resolve.
    if from_schema_can_generate(body) and '"$ref"' not in json.dumps(body):
        event("hypothesis-jsonschema used")
        strategies.append(from_schema(copy.deepcopy(body)))  # it mutates its argument
    return st.lists(st.one_of(strategies), min_size=3, max_size=10)


BIG_EXAMPLES = settings(
    deadline=None,
    # Each example draws a nested schema and then instances shaped by it: large and
    # slow by design, not a sign of a strategy gone wrong.
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# Drawing a nested schema is slow next to checking it, so each example checks several.
@pytest.mark.slow
@settings(BIG_EXAMPLES, max_examples=200)
@given(st.data())
def test_agrees_with_jsonschema_on_random_schemas(data):
    schema = data.draw(schemas(), label="schema")
    check = agreement(schema)
    for instance in data.draw(instances(schema), label="instances"):
        event("valid" if check(instance) else "invalid")


# Every shallow example meets all of these at its root: dense on each keyword's semantics.
# fmt: off
CORPUS = [
    None, True, False, 0, 1, -1, 2, 3, 1.0, 2.0, -0.0, 0.5, 1.5, 2.5, 0.3, 4.5,
    "", "a", "A", "b", "ab", "ba", "1", "a1", "é", "xé", "aab", "b\n", "😀", "😀😀", "ééé",
    [], [1], [True], [1, 2, 3, 4], ["a", 1.5, None], *DUPLICATES,
    {}, {"a": 1}, {"a": True}, {"a": 1, "b": 2}, {"d": None}, {"a": 1, "b": 2, "c": 3, "d": 4},
    {"a": "x", "b": [1], "c": {"a": 1}},
]
# fmt: on


@pytest.mark.slow
@settings(BIG_EXAMPLES, max_examples=200)
@given(schemas(depth=1, objects_first=False))
def test_agrees_with_jsonschema_on_shallow_schemas(schema):
    check = agreement(schema)
    for instance in [*CORPUS, *edge_values(schema)]:
        check(instance)


@settings(BIG_EXAMPLES, max_examples=examples(100))
@given(data=st.data())
def test_drop_undeclared_keeps_valid_instances_valid_and_the_input_intact(data):
    schema = data.draw(schemas(), label="schema")
    validator = SchemaValidator(schema, drop_undeclared=True)
    for instance in data.draw(instances(schema), label="instances"):
        before = copy.deepcopy(instance)
        valid, result = outcome(validator, instance)
        assert instance == before
        if valid:
            assert reference(schema).is_valid(result)


# -- a deterministic grid: every keyword value, every corpus instance ---------------------------
# Random schemas rarely line one keyword up with the one instance that tells two semantics
# apart; this grid always does.
SMALL = [
    True,
    False,
    {},
    {"type": "integer"},
    {"minimum": 2},
    {"enum": [1, True]},
    {"maxLength": 1},
]
# fmt: off
ENUMS = [
    [1], [True], [0, "a"], [1.0, None], [[1]], [[True], {"a": 1}], [{"a": True}], ["A"], [-0.0],
]
# fmt: on
WIDE = {name: {"type": "integer"} for name in "abcdefghijklm"}  # walks the instance's keys


def grid():
    yield from ({"type": name} for name in TYPE_NAMES)
    yield from ({"type": list(pair)} for pair in itertools.combinations(TYPE_NAMES, 2))
    for key, values in KEYWORD_VALUES.items():
        yield from ({key: value} for value in values)
    yield from ({"enum": each} for each in ENUMS)
    yield from ({"const": each} for each in POOL_VALUES)
    for key in ("allOf", "anyOf", "oneOf"):
        yield from ({key: [one, two]} for one in SMALL for two in SMALL)
    yield from ({"not": each} for each in SMALL)
    for required in ([], ["a"], ["c"], ["a", "b"]):
        for extra in (None, False, True, {"type": "string"}):
            for props in ({"a": {"type": "integer"}, "b": {}}, WIDE):
                schema = {"properties": props, "required": required}
                yield schema if extra is None else {**schema, "additionalProperties": extra}
    for prefix in (None, [{"type": "integer"}], [{}, {"type": "string"}]):
        for items in (None, False, True, {"type": "integer"}):
            yield {k: v for k, v in (("prefixItems", prefix), ("items", items)) if v is not None}
    for draft in (DRAFT_2019, DRAFT_7, DRAFT_6):
        yield {"$schema": draft, "items": {"type": "integer"}}
        yield {"$schema": draft, "items": False, "prefixItems": [{}]}
        yield {
            "$schema": draft,
            "$defs": {"a": {"minimum": 3}},
            "$ref": "#/$defs/a",
            "type": "string",
        }


@pytest.mark.parametrize("schema", list(grid()), ids=lambda schema: json.dumps(schema)[:70])
def test_agrees_with_jsonschema_on_the_grid(schema):
    check = agreement(schema)
    for instance in [*CORPUS, *edge_values(schema)]:
        check(instance)
