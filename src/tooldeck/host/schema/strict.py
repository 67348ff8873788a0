"""OpenAI strict mode: the schema subset it takes, and what "optional" becomes there.

Strict mode (``"strict": true``) makes the model's arguments match the schema exactly,
but only for a subset of JSON Schema: every object closed and listing *all* of its
properties as required, every schema typed. ``strict_schema`` converts a tool's input
schema into that subset when the conversion keeps its meaning:

* optional properties become required and nullable (``null`` then means "not given");
* ``oneOf`` becomes ``anyOf`` (tooldeck still validates against the original schema);
* annotations strict mode refuses (``default``, ``examples``, ``$comment``, unknown
  ``format`` values, ...) are dropped: they never constrain a value;
* constraints it lacks that only narrow a value of the right shape (``minLength``,
  ``maxLength``, ``uniqueItems``, ``minProperties``, ...) are dropped too: the model is
  held to the shape, and tooldeck's validation, which always uses the original
  schema, still enforces them (a violation fails with the usual message);
* any other keyword it does not support (``allOf``, ``not``, ``patternProperties``,
  an open object, a schema accepting anything, ...) changes the shape itself, so the
  tool stays non-strict, with the reason.

``drop_null_optionals`` undoes the first rule on the way back: a ``null`` the model sent
for an optional property whose own schema rejects ``null`` is removed, so validation
applies the default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

_KEPT = frozenset(
    {
        "type",
        "description",
        "title",
        "enum",
        "const",
        "anyOf",
        "$ref",
        "$defs",
        "definitions",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "pattern",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
    }
)
_DROPPED = frozenset(
    {
        # annotations
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$schema",
        "$id",
        "contentMediaType",
        "contentEncoding",
        # narrowing constraints, enforced by tooldeck's own validation
        "minLength",
        "maxLength",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "contains",
        "minContains",
        "maxContains",
        "propertyNames",
        "dependentRequired",
    }
)
_FORMATS = frozenset(
    {
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    }
)
_MAPS = ("properties", "$defs", "definitions")


class StrictSchema(NamedTuple):
    """A strict-mode schema, or ``None`` and the reason the tool stays non-strict."""

    schema: dict[str, Any] | None
    reason: str | None = None


class _NotStrict(Exception):
    pass


def strict_schema(schema: Mapping[str, Any]) -> StrictSchema:
    """Convert ``schema`` to OpenAI's strict subset, or say why it cannot be."""
    try:
        converted = _convert(schema, "root")
    except _NotStrict as exc:
        return StrictSchema(None, str(exc))
    if converted.get("type") != "object":
        return StrictSchema(None, "root: strict mode needs an object schema at the root")
    return StrictSchema(converted)


def _convert(node: Any, path: str) -> dict[str, Any]:
    if not isinstance(node, Mapping) or not node:
        raise _NotStrict(f"{path}: accepts any value; strict mode needs a typed schema")
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "oneOf":
            key = "anyOf"
        if key in _DROPPED or (key == "format" and value not in _FORMATS):
            continue
        if key == "format":
            out[key] = value
        elif key not in _KEPT:
            raise _NotStrict(f"{path}: uses {key!r}, which strict mode does not support")
        elif key in _MAPS and key != "properties":
            out[key] = {name: _convert(sub, f"{path}.{key}.{name}") for name, sub in value.items()}
        elif key == "items":
            out[key] = _convert(value, f"{path}[]")
        elif key == "anyOf":
            out[key] = [_convert(sub, f"{path}.anyOf[{i}]") for i, sub in enumerate(value)]
        elif key not in ("properties", "required", "additionalProperties"):
            out[key] = value
    if not ({"type", "anyOf", "$ref", "enum", "const"} & out.keys()):
        raise _NotStrict(f"{path}: has no type; strict mode needs every schema typed")
    if _is_object(node):
        _convert_object(node, path, out)
    return out


def _convert_object(node: Mapping[str, Any], path: str, out: dict[str, Any]) -> None:
    if node.get("additionalProperties", True) is not False:
        raise _NotStrict(f"{path}: allows additional properties; strict objects are closed")
    required = set(node.get("required", ()))
    properties = node.get("properties", {})
    out["properties"] = {
        name: (sub if name in required else nullable(sub))
        for name, sub in ((n, _convert(s, _join(path, n))) for n, s in properties.items())
    }
    out["required"] = list(properties)
    out["additionalProperties"] = False


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also accepts ``null`` (unchanged when it already does)."""
    if accepts_null(schema):
        return schema
    kind = schema.get("type")
    if isinstance(kind, str) and not ({"enum", "const"} & schema.keys()):
        return {**schema, "type": [kind, "null"]}
    wrapped = {k: v for k, v in schema.items() if k not in ("description", "title")}
    outer: dict[str, Any] = {k: schema[k] for k in ("description", "title") if k in schema}
    return {**outer, "anyOf": [wrapped, {"type": "null"}]}


def accepts_null(schema: Mapping[str, Any]) -> bool:
    """Whether ``schema`` plainly admits ``null`` (its type, enum, const or an anyOf arm)."""
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if None in schema.get("enum", ()) or ("const" in schema and schema["const"] is None):
        return True
    return any(
        accepts_null(arm)
        for arm in schema.get("anyOf", schema.get("oneOf", ()))
        if isinstance(arm, Mapping)
    )


def drop_null_optionals(schema: Mapping[str, Any], value: Any) -> Any:
    """``value`` without the ``null`` s that stand for optional properties left out.

    Follows ``properties``, ``items``, ``$ref`` (into the root's ``$defs`` /
    ``definitions``) and the first ``anyOf``/``oneOf`` arm naming every key of an
    object. Returns ``value`` itself when nothing is dropped.
    """
    return _drop(schema, value, schema, 0)


def _drop(schema: Any, value: Any, root: Mapping[str, Any], depth: int) -> Any:
    if not isinstance(schema, Mapping) or depth > 64:
        return value
    schema = _resolve(schema, root)
    if isinstance(value, dict):
        return _drop_object(schema, value, root, depth)
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        items = [_drop(schema["items"], item, root, depth + 1) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def _drop_object(
    schema: Mapping[str, Any], value: dict[str, Any], root: Mapping[str, Any], depth: int
) -> Any:
    arms = [a for a in schema.get("anyOf", schema.get("oneOf", ())) if isinstance(a, Mapping)]
    for arm in arms:
        arm = _resolve(arm, root)
        if value.keys() <= arm.get("properties", {}).keys():
            return _drop(arm, value, root, depth + 1)
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return value
    required = set(schema.get("required", ()))
    out: dict[str, Any] = {}
    for key, item in value.items():
        sub = properties.get(key)
        if not isinstance(sub, Mapping):
            out[key] = item
        elif item is None and key not in required and not accepts_null(_resolve(sub, root)):
            continue
        else:
            out[key] = _drop(sub, item, root, depth + 1)
    same = out.keys() == value.keys() and all(out[k] is value[k] for k in out)
    return value if same else out


def _resolve(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return schema
    target: Any = root
    for part in ref[2:].split("/"):
        target = target.get(part) if isinstance(target, Mapping) else None
    return target if isinstance(target, Mapping) else schema


def _is_object(node: Mapping[str, Any]) -> bool:
    kind = node.get("type")
    return (
        kind == "object" or (isinstance(kind, list) and "object" in kind) or ("properties" in node)
    )


def _join(path: str, name: str) -> str:
    return name if path == "root" else f"{path}.{name}"
