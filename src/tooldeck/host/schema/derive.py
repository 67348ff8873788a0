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

import sys
import weakref
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from tooldeck.host.schema.frozen import LEAF_CLASSES, FrozenDict, FrozenList, freeze

# Keywords whose subschemas constrain the instance as a whole (closing inside changes
# which branch matches), lists of schemas, and name → schema maps.
_COMBINATORS = frozenset(
    {
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "dependentSchemas",
        "unevaluatedProperties",
        "unevaluatedItems",
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
            cached = per_mode[mode] = derive(raw, pydantic=True)
        return cached
    hit = _object_cache.get(id(source))
    if hit is not None and hit[0] is source:
        return hit[1]
    if is_type_adapter(source):
        derived = derive(source.json_schema(mode=mode), pydantic=True)
    else:
        derived = derive(source)
    if len(_object_cache) >= _OBJECT_CACHE_MAX:
        _object_cache.pop(next(iter(_object_cache)))
    _object_cache[id(source)] = (source, derived)
    return derived


def is_type_adapter(source: Any) -> bool:
    """``isinstance(source, pydantic.TypeAdapter)``, without importing it to find out.

    ``pydantic.type_adapter`` (and the JSON Schema generator it pulls in) costs a few
    milliseconds of every ``Host.open``; nothing can be a TypeAdapter before it is loaded.
    """
    module = sys.modules.get("pydantic.type_adapter")
    return module is not None and isinstance(source, module.TypeAdapter)


def derive(schema: Mapping[str, Any], *, pydantic: bool = False) -> FrozenDict:
    """Inline acyclic local refs, close object schemas and freeze the result.

    For a raw JSON Schema, objects are closed only along the structural paths that
    input validation prunes too (``properties``, ``items``, ``prefixItems``,
    ``additionalProperties``), never below ``anyOf``/``oneOf``/``allOf``/``if``... where
    closing would change which branch matches. Pydantic models ignore extra keys
    wherever they are, so their schemas are closed everywhere but in ``allOf`` branches.
    """
    return _Deriver(schema, raw=not pydantic).run()


# Keywords whose subschemas are the instance's own parts (and are pruned the same way).
_STRUCTURAL = frozenset(
    {
        "properties",
        "patternProperties",
        "items",
        "prefixItems",
        "additionalProperties",
        "additionalItems",
        "$defs",
        "definitions",
    }
)


_WALKED = _STRUCTURAL | _COMBINATORS


class _Deriver:
    """One pass over a schema document; copies as it goes, never mutates the input.

    The copy is the frozen result itself (each node a ``FrozenDict`` once its keys are
    decided, each value ``freeze``'d as it is copied), rather than a plain copy frozen
    in a second pass: a 5,000-tool catalog derives every schema before its first
    definitions (``bench/DECISIONS.md``)."""

    def __init__(
        self, root: Mapping[str, Any], *, raw: bool, inline: bool = True, closing: bool = True
    ) -> None:
        self.root = root
        self.raw = raw
        # ``inline=False`` keeps local refs and ``$defs`` (closed like the rest),
        # ``closing=False`` only inlines: both for ``refs_kept``.
        self.inline = inline
        self.closing = closing
        self.resolving: list[str] = []
        self.cyclic: set[str] = set()

    def run(self) -> FrozenDict:
        body: FrozenDict = self.walk(self.root, close=True, deep=True, at_root=True)
        if self.cyclic:
            body = FrozenDict({**body, **self._cyclic_defs()})
        return body

    def _cyclic_defs(self) -> dict[str, FrozenDict]:
        kept: dict[str, dict[str, Any]] = {}
        for ref in sorted(self.cyclic):
            container, name = _split_ref(ref)
            self.resolving = [ref]
            target = self.root[container][name]
            closable = not self.raw  # a raw def may be reached through a combinator
            kept.setdefault(container, {})[name] = self.walk(target, close=closable, deep=closable)
        return {container: FrozenDict(defs) for container, defs in kept.items()}

    def walk(self, node: Any, *, close: bool, deep: bool, at_root: bool = False) -> Any:
        """Copy ``node``; ``close``: this object may be closed; ``deep``: so may its parts."""
        if node.__class__ is not dict and not isinstance(node, Mapping):
            return freeze(node)
        if at_root and self.inline:
            node = {k: v for k, v in node.items() if k not in ("$defs", "definitions")}
        ref = node.get("$ref")
        local = isinstance(ref, str) and ref.startswith("#/") and _resolvable(self.root, ref)
        if local and self.inline:
            return self._inline(node, ref, close, deep)
        out = {
            key: self._child(key, value, deep)
            if key in _WALKED or value.__class__ not in LEAF_CLASSES
            else value  # a scalar annotation or constraint, kept without a call
            for key, value in node.items()
        }
        if self.closing and close and "properties" in out and _closable(out):
            out["additionalProperties"] = False
        return FrozenDict(out)

    def _child(self, key: str, value: Any, deep: bool) -> Any:
        if key in _STRUCTURAL:
            close = deep
        elif key in _COMBINATORS:
            deep = deep and not self.raw
            close = deep and key != "allOf"
        else:  # an annotation or a constraint: copied frozen, a scalar without a call
            return value if value.__class__ in LEAF_CLASSES else freeze(value)
        walk = self.walk
        if key in _MAP and isinstance(value, Mapping):
            return FrozenDict({k: walk(v, close=close, deep=deep) for k, v in value.items()})
        if isinstance(value, list):
            if key in _MANY:
                return FrozenList([walk(v, close=close, deep=deep) for v in value])
            return freeze(value)
        return walk(value, close=close, deep=deep)

    def _inline(self, node: Mapping[str, Any], ref: str, close: bool, deep: bool) -> Any:
        if ref in self.resolving:
            self.cyclic.add(ref)
            return FrozenDict({k: self._child(k, v, deep) for k, v in node.items()})
        container, name = _split_ref(ref)
        self.resolving.append(ref)
        try:
            target = self.walk(self.root[container][name], close=close, deep=deep)
        finally:
            self.resolving.pop()
        siblings = {k: self._child(k, v, deep) for k, v in node.items() if k != "$ref"}
        if not siblings:
            return target
        if set(siblings) <= _ANNOTATIONS and isinstance(target, dict):
            return FrozenDict({**target, **siblings})
        return FrozenDict({"allOf": FrozenList([target]), **siblings})


def _split_ref(ref: str) -> tuple[str, str]:
    container, _, name = ref[2:].partition("/")
    return container, name.replace("~1", "/").replace("~0", "~")


def _resolvable(root: Mapping[str, Any], ref: str) -> bool:
    container, name = _split_ref(ref)
    if container not in ("$defs", "definitions") or "/" in ref[2 + len(container) + 1 :]:
        return False
    defs = root.get(container)
    return isinstance(defs, Mapping) and name in defs


def _closable(schema: Mapping[str, Any]) -> bool:
    """Open by default, and every required name declared (else closing forbids it)."""
    if any(
        k in schema for k in ("additionalProperties", "patternProperties", "unevaluatedProperties")
    ):
        return False
    required = schema.get("required", ())
    properties = schema["properties"]
    return isinstance(properties, Mapping) and all(
        name in properties for name in required if isinstance(name, str)
    )


def schema_problem(source: Any, *, role: str) -> str | None:
    """Why ``source`` cannot serve as a tool's ``role`` ("input"/"output") schema."""
    if source is None:
        return None
    if is_model_class(source) or is_type_adapter(source):
        return None  # its patterns are judged on the tool's first call (``host/call/path.py``)
    if not isinstance(source, Mapping):
        return (
            f"{role} schema must be a pydantic model class, a JSON Schema mapping or None, "
            f"got {type(source).__name__}"
        )
    from tooldeck.host.schema.metaschema import schema_problem as meta_problem  # JSON Schema only

    problem = meta_problem(source)
    if problem:
        return f"{role} schema is not a valid JSON Schema: {problem}"
    if role == "input" and source.get("type", "object") != "object":
        return f"input schema must describe an object (type 'object'), got {source.get('type')!r}"
    return None
