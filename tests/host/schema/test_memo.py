"""Bounded memos and shape certification: never a different verdict, never a wipe-out."""

from __future__ import annotations

from hypothesis import given, settings

from tooldeck.host.schema import memo, metaschema
from tooldeck.host.schema.memo import BoundedMemo, certified_valid
from tooldeck.host.schema.metaschema import _COMMON, _shape_ok, check_schema_now

from .test_metaschema import reference, schemas


@settings(max_examples=100, deadline=None)
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


def test_the_checked_memo_survives_past_4096_schemas():
    first = tool_schema(-1)
    metaschema.schema_problem(first)
    for n in range(5000):
        metaschema.schema_problem(tool_schema(n))
        if n % 1000 == 0:
            metaschema.schema_problem(first)  # in use: never evicted
    assert repr(first) in metaschema._CHECKED and repr(tool_schema(0)) in metaschema._CHECKED


def test_certification_says_whether_references_need_a_check():
    plain = tool_schema(1)
    assert memo.certify(plain, _COMMON, _shape_ok) is False
    linked = {**plain, "definitions": {"Id": {"type": "string"}}}
    linked["properties"] = {"a": {"$ref": "#/definitions/Id"}}
    assert memo.certify(linked, _COMMON, _shape_ok) is True
    dangling = {"type": "object", "properties": {"a": {"$ref": "#/definitions/Nope"}}}
    assert memo.certify(dangling, _COMMON, _shape_ok) is True
    assert "points to nothing" in metaschema.schema_problem(dangling)
