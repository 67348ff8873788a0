"""Turn a tool's ``input``/``output`` source into a provider-ready JSON Schema.

Sources are pydantic model classes, JSON Schema mappings, ``pydantic.TypeAdapter``s
(from ``tool(fn)``) or ``None``. Derived schemas are:

* **inlined**: acyclic local ``$ref``s are replaced by their target, because several
  providers reject ``$defs``; cyclic ones keep a minimal ``$defs``;
* **closed**: object schemas that declare ``properties`` get
  ``additionalProperties: false`` unless they say otherwise (not inside ``allOf``, where
  closing one branch would reject the others' properties);
* **frozen** and **cached** per model class or schema object, so replays and snapshots
  never recompute them.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, TypeAdapter

from tooldeck.host.frozen import FrozenDict, freeze

# Keywords whose value is one schema, a list of schemas, or a name → schema map.
_ONE = frozenset(
    {
        "additionalProperties",
        "additionalItems",
        "contains",
        "not",
        "if",
        "then",
        "else",
        "propertyNames",
        "unevaluatedProperties",
        "unevaluatedItems",
        "items",
        "contentSchema",
    }
)
_MANY = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_MAP = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
    }
)

EMPTY_OBJECT: FrozenDict = freeze(
    {"type": "object", "properties": {}, "additionalProperties": False}
)

_model_cache: weakref.WeakKeyDictionary[type, dict[str, FrozenDict]] = weakref.WeakKeyDictionary()
_object_cache: dict[int, tuple[object, FrozenDict]] = {}
_OBJECT_CACHE_MAX = 4096


def is_model_class(source: object) -> bool:
    """True for a pydantic ``BaseModel`` subclass (not an instance)."""
    return isinstance(source, type) and issubclass(source, BaseModel)


def json_schema(source: Any, *, mode: str = "validation") -> FrozenDict:
    """The derived (inlined, closed, frozen) JSON Schema of ``source``; cached."""
    if source is None:
        return EMPTY_OBJECT
    if is_model_class(source):
        per_mode = _model_cache.get(source)
        if per_mode is None:
            per_mode = _model_cache[source] = {}
        cached = per_mode.get(mode)
        if cached is None:
            raw = source.model_json_schema(mode=mode)
            cached = per_mode[mode] = derive(raw)
        return cached
    hit = _object_cache.get(id(source))
    if hit is not None and hit[0] is source:
        return hit[1]
    if isinstance(source, TypeAdapter):
        derived = derive(source.json_schema(mode=mode))  # type: ignore[arg-type]
    else:
        derived = derive(source)
    if len(_object_cache) >= _OBJECT_CACHE_MAX:
        _object_cache.pop(next(iter(_object_cache)))
    _object_cache[id(source)] = (source, derived)
    return derived


def derive(schema: Mapping[str, Any]) -> FrozenDict:
    """Inline acyclic local refs, close object schemas and freeze the result."""
    return freeze(_Deriver(schema).run())  # type: ignore[no-any-return]


class _Deriver:
    """One pass over a schema document; copies as it goes, never mutates the input."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.resolving: list[str] = []
        self.cyclic: set[str] = set()

    def run(self) -> dict[str, Any]:
        body: dict[str, Any] = self.walk(self.root, closable=True, at_root=True)
        if self.cyclic:
            self._keep_cyclic_defs(body)
        return body

    def _keep_cyclic_defs(self, body: dict[str, Any]) -> None:
        kept: dict[str, dict[str, Any]] = {}
        for ref in sorted(self.cyclic):
            container, name = _split_ref(ref)
            self.resolving = [ref]
            target = self.root[container][name]
            kept.setdefault(container, {})[name] = self.walk(target, closable=True)
        body.update(kept)

    def walk(self, node: Any, *, closable: bool, at_root: bool = False) -> Any:
        if not isinstance(node, Mapping):
            return node
        if at_root:
            node = {k: v for k, v in node.items() if k not in ("$defs", "definitions")}
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/") and _resolvable(self.root, ref):
            return self._inline(node, ref, closable)
        out = {key: self._child(key, value) for key, value in node.items()}
        if closable and "properties" in out and _open_by_default(out):
            out["additionalProperties"] = False
        return out

    def _child(self, key: str, value: Any) -> Any:
        if key in _MAP and isinstance(value, Mapping):
            return {k: self.walk(v, closable=True) for k, v in value.items()}
        if key in _MANY and isinstance(value, list):
            closable = key != "allOf"
            return [self.walk(v, closable=closable) for v in value]
        if key in _ONE:
            return self.walk(value, closable=True)
        return value

    def _inline(self, node: Mapping[str, Any], ref: str, closable: bool) -> Any:
        if ref in self.resolving:
            self.cyclic.add(ref)
            return {k: self._child(k, v) for k, v in node.items()}
        container, name = _split_ref(ref)
        self.resolving.append(ref)
        try:
            target = self.walk(self.root[container][name], closable=closable)
        finally:
            self.resolving.pop()
        siblings = {k: self._child(k, v) for k, v in node.items() if k != "$ref"}
        if not siblings:
            return target
        if set(siblings) <= _ANNOTATIONS and isinstance(target, dict):
            return {**target, **siblings}
        return {"allOf": [target], **siblings}


def _split_ref(ref: str) -> tuple[str, str]:
    container, _, name = ref[2:].partition("/")
    return container, name.replace("~1", "/").replace("~0", "~")


def _resolvable(root: Mapping[str, Any], ref: str) -> bool:
    container, name = _split_ref(ref)
    if container not in ("$defs", "definitions") or "/" in ref[2 + len(container) + 1 :]:
        return False
    defs = root.get(container)
    return isinstance(defs, Mapping) and name in defs


def _open_by_default(schema: Mapping[str, Any]) -> bool:
    return not any(
        key in schema
        for key in ("additionalProperties", "patternProperties", "unevaluatedProperties")
    )


def schema_problem(source: Any, *, role: str) -> str | None:
    """Why ``source`` cannot serve as a tool's ``role`` ("input"/"output") schema."""
    if source is None or is_model_class(source) or isinstance(source, TypeAdapter):
        return None
    if not isinstance(source, Mapping):
        return (
            f"{role} schema must be a pydantic model class, a JSON Schema mapping or None, "
            f"got {type(source).__name__}"
        )
    problem = _check_json_schema(source)
    if problem:
        return f"{role} schema is not a valid JSON Schema: {problem}"
    if role == "input" and source.get("type", "object") != "object":
        return f"input schema must describe an object (type 'object'), got {source.get('type')!r}"
    return None


def _check_json_schema(schema: Mapping[str, Any]) -> str | None:
    from jsonschema import exceptions, validators  # deferred: jsonschema is slow to import

    cls = validators.validator_for(schema, default=validators.Draft202012Validator)
    try:
        cls.check_schema(dict(schema))
    except exceptions.SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "root"
        return f"{exc.message} (at {where})"
    return None
