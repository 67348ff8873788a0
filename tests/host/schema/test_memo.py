"""Bounded memos and shape certification: never a different verdict, never a wipe-out."""

from __future__ import annotations

from hypothesis import given, settings

from tooldeck.host.schema import memo, metaschema
from tooldeck.host.schema.memo import BoundedMemo, certified_valid
from tooldeck.host.schema.metaschema import _COMMON, _shape_ok, check_schema_now

from ...examples import examples
from .test_metaschema import reference, schemas


@settings(max_examples=examples(100), deadline=None)
@given(schemas())
def test_a_certified_schema_is_valid_for_jsonschema(schema):
    if certified_valid(schema, _COMMON, _shape_ok):
        assert reference(schema) and check_schema_now(schema) is None


def tool_schema(n: int) -> dict:
    return {
        "type": "object",
        "properties": {
            f"thing{n}_id": {"type": "string", "description": f"The thing {n}'s id."},
            "limit": {"type": "integer", "minimum": 1, "default": 20},
        },
        "required": [f"thing{n}_id"],
        "additionalProperties": False,
    }


def test_many_schemas_of_one_shape_are_certified_with_few_checks():
    memo.reset()
    assert all(certified_valid(tool_schema(n), _COMMON, _shape_ok) for n in range(300))
    assert memo.shape_count() == 3  # the object, the string and the integer node


def test_invalid_or_unusual_nodes_are_left_to_the_full_check():
    bad = {"type": "object", "properties": {"a": {"type": "strng"}}}
    assert not certified_valid(bad, _COMMON, _shape_ok)
    assert metaschema.schema_problem(bad) == check_schema_now(bad)
    assert not certified_valid({"$defs": {}}, _COMMON, _shape_ok)
    assert not certified_valid({"items": [{}]}, _COMMON, _shape_ok)
    assert not certified_valid({"required": ("a",)}, _COMMON, _shape_ok)
    assert not certified_valid({"required": ["a", "a"]}, _COMMON, _shape_ok)


def test_the_lru_keeps_what_is_used_and_stays_within_its_limit():
    lru: BoundedMemo[int] = BoundedMemo(10, cost=len)
    lru.put("aaaa", 1)
    lru.put("bbbb", 2)
    assert lru.find("aaaa") == (True, 1)  # now the most recent
    lru.put("cccc", 3)  # 12 characters: the least recently used goes
    assert "bbbb" not in lru and "aaaa" in lru and "cccc" in lru
    assert lru.find("bbbb") == (False, None)
    lru.put("x" * 50, 4)  # larger than the limit alone: kept, the others go
    assert len(lru) == 1


def broken_schema(n: int) -> dict:
    """A schema the shapes cannot certify (invalid): its verdict comes from the full check."""
    return {**tool_schema(n), "minProperties": -1}


def test_the_checked_memo_survives_past_4096_schemas():
    first = broken_schema(-1)
    assert metaschema.schema_problem(first) is not None
    for n in range(5000):
        metaschema.schema_problem(broken_schema(n))
        if n % 1000 == 0:
            metaschema.schema_problem(first)  # in use: never evicted
    checked = metaschema._CHECKED
    assert repr(first) in checked and repr(broken_schema(0)) in checked


def test_a_certified_schema_is_not_kept_by_its_text():
    schema = tool_schema(7)
    assert metaschema.schema_problem(schema) is None
    assert repr(schema) not in metaschema._CHECKED


def test_certification_says_whether_references_need_a_check():
    plain = tool_schema(1)
    assert memo.certify(plain, _COMMON, _shape_ok) is False
    linked = {**plain, "definitions": {"Id": {"type": "string"}}}
    linked["properties"] = {"a": {"$ref": "#/definitions/Id"}}
    assert memo.certify(linked, _COMMON, _shape_ok) is True
    dangling = {"type": "object", "properties": {"a": {"$ref": "#/definitions/Nope"}}}
    assert memo.certify(dangling, _COMMON, _shape_ok) is True
    assert "points to nothing" in metaschema.schema_problem(dangling)


@settings(max_examples=examples(300), deadline=None)
@given(schemas(), schemas())
def test_two_nodes_share_a_key_exactly_when_their_shapes_print_alike(one, other):
    shaped = [
        memo._shape(node, [], _COMMON) if type(node) is dict else None for node in (one, other)
    ]
    if None in shaped:
        return
    (shape_a, key_a), (shape_b, key_b) = shaped
    assert (key_a == key_b) == (repr(shape_a) == repr(shape_b))


@settings(max_examples=examples(300), deadline=None)
@given(schemas())
def test_the_key_alone_is_the_shapes_key_with_the_same_children(node):
    if type(node) is not dict:
        return
    children: list[object] = []
    shaped_children: list[object] = []
    shaped = memo._shape(node, shaped_children, _COMMON)
    key = memo._key(node, children, _COMMON)
    assert key == (None if shaped is None else shaped[1])
    if shaped is not None:
        assert children == shaped_children


def test_nodes_whose_values_only_look_alike_have_different_keys():
    alike = [
        {"minimum": 1},
        {"minimum": 1.0},
        {"minimum": True},
        {"minimum": "1"},
        {"format": "5"},
        {"format": 5},
        {"required": ["a"]},
        {"required": "['p0']"},
        {"description": "x"},
        {"description": 1},
    ]
    keys = [memo._shape(node, [], _COMMON)[1] for node in alike]
    assert len(set(keys)) == len(keys)
