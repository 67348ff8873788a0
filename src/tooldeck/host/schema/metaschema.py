"""Is a JSON Schema document itself valid? Meta-validation, fast where it can be.

Draft 2020-12's metaschema resolves ``$dynamicRef`` on every keyword, which makes
``jsonschema``'s ``check_schema`` slow enough per document to show in the startup of a
host mounting a large MCP server (``bench/DECISIONS.md``). For documents that use only
keywords whose metaschema definitions are the same in Draft 7 and Draft 2020-12 (and
the schema form of ``items``), a prebuilt Draft 7 metaschema validator gives the same
verdict far cheaper; every other document gets the full 2020-12 check.
``tests/host/schema/test_metaschema.py`` pins the agreement with a differential
property test.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from tooldeck.host.schema.memo import CHECKED_MAX_CHARS, BoundedMemo, certify
from tooldeck.host.schema.refs import ref_problem

# Keywords whose value is constrained identically by both metaschemas.
_COMMON = frozenset(
    {
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxProperties",
        "minProperties",
        "required",
        "title",
        "description",
        "default",
        "examples",
        "format",
        "$comment",
        "readOnly",
        "writeOnly",
        "$ref",
        # keywords holding subschemas, walked below
        "properties",
        "patternProperties",
        "additionalProperties",
        "items",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "definitions",
    }
)
_ONE = ("additionalProperties", "items", "not", "if", "then", "else", "contains", "propertyNames")
_MANY = ("anyOf", "oneOf", "allOf")
_MAPS = ("properties", "patternProperties", "definitions")


_CHECKED: BoundedMemo[str | None] = BoundedMemo(CHECKED_MAX_CHARS, cost=len)


def schema_problem(schema: Mapping[str, Any]) -> str | None:
    """Why ``schema`` is not a valid JSON Schema (at which path) or has a reference that
    leads nowhere (``refs.ref_problem``), or ``None``."""
    # Most schemas are certified valid from the shapes of their nodes (``memo.py``),
    # which costs about a walk. The others, remembered by the schema's repr: an MCP
    # server lists hundreds of tools with the same schema, and the full check costs many
    # times the repr. The repr keeps types apart (a tuple is not a JSON array, 1 is not
    # 1.0), so equal keys mean equal verdicts; tests/host/schema/test_metaschema.py pins
    # this to the unremembered checks.
    refs = certify(schema, _COMMON, _shape_ok)
    if refs is not None:
        return ref_problem(schema) if refs else None
    key = repr(schema)
    found, known = _CHECKED.find(key)
    if found:
        return known
    problem = check_schema_now(schema) or ref_problem(schema)
    _CHECKED.put(key, problem)
    return problem


def _shape_ok(shape: dict[str, Any]) -> bool:
    """One node's shape against the Draft 7 metaschema (``memo.certified_valid``)."""
    return not any(_draft7().iter_errors(shape))


def check_schema_now(schema: Mapping[str, Any]) -> str | None:
    """``schema_problem`` without the memo: the metaschema check itself."""
    from jsonschema import exceptions  # deferred: jsonschema is slow to import

    validator = _draft7() if _in_common_subset(schema) else _full(schema)
    error = exceptions.best_match(validator.iter_errors(schema))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "root"
    return f"{error.message} (at {where})"


def _in_common_subset(node: Any) -> bool:
    if isinstance(node, bool):
        return True
    if not isinstance(node, Mapping):
        return False  # let the full check explain it
    if any(key not in _COMMON for key in node):
        return False
    if isinstance(node.get("items"), list):
        return False  # tuple-form items: Draft 7 only
    return all(_in_common_subset(child) for child in _children(node))


def _children(node: Mapping[str, Any]) -> list[Any]:
    children: list[Any] = [node[key] for key in _ONE if key in node]
    for key in _MANY:
        value = node.get(key)
        children.extend(value if isinstance(value, list) else [])
    for key in _MAPS:
        value = node.get(key)
        children.extend(value.values() if isinstance(value, Mapping) else [])
    return children


@cache
def _draft7() -> Any:
    from jsonschema import Draft7Validator

    return _meta(Draft7Validator)


def _full(schema: Mapping[str, Any]) -> Any:
    from jsonschema import validators

    cls = validators.validator_for(schema, default=validators.Draft202012Validator)
    return _meta(cls)


@cache
def _meta(cls: Any) -> Any:
    # As check_schema does: formats such as "regex" are asserted in metaschemas.
    return cls(cls.META_SCHEMA, format_checker=cls.FORMAT_CHECKER)
