"""``drop_undeclared``: a copier that removes object keys the schema does not declare,
built only for nodes where dropping a key cannot change whether the instance is valid."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from tooldeck.host.schema.jsonschema_fast._base import Prune, Unsupported
from tooldeck.host.schema.jsonschema_fast._drafts import Draft, active_keywords, resolve
from tooldeck.host.schema.jsonschema_fast._keywords import BOUND_FAILS

# Keywords a node may have and still be pruned: none of them can declare a property or
# be broken by dropping one (``minProperties``, ``not``, ``enum``, applicators could).
_PRUNE_SAFE: Final = (
    frozenset({"type", "properties", "required", "additionalProperties", "maxProperties"})
    | {"items", "prefixItems", "additionalItems", "minItems", "maxItems"}
    | {"minLength", "maxLength", "pattern", "multipleOf", *BOUND_FAILS}
)


def compile_prune(schema: Mapping[str, Any], draft: Draft) -> Prune | None:
    """The copier for a whole schema, or ``None`` when nothing would ever be dropped."""
    return _Pruner(schema, draft).node(schema, at_root=True)


class _Pruner:
    """Builds the ``drop_undeclared`` copier; nodes it cannot judge are left untouched."""

    def __init__(self, root: Mapping[str, Any], draft: Draft) -> None:
        self.root = root
        self.draft = draft
        self.cells: dict[str, list[Prune]] = {}

    def node(self, schema: Any, *, at_root: bool = False) -> Prune | None:
        if not isinstance(schema, dict):
            return None
        try:
            keys = {key for key, _ in active_keywords(schema, self.draft, at_root)}
        except Unsupported:
            return None
        if "$ref" in keys:
            return self.ref(schema["$ref"]) if keys == {"$ref"} else None
        if not keys <= _PRUNE_SAFE:
            return None
        return _chain(self.object(schema), self.array(schema))

    def object(self, schema: Mapping[str, Any]) -> Prune | None:
        props = schema.get("properties")
        if not isinstance(props, dict):
            return None
        children = {k: p for k, sub in props.items() if (p := self.node(sub)) is not None}
        keep: frozenset[Any] | None = None
        if "additionalProperties" not in schema:
            # ``required`` names count as declared: dropping one would break the schema.
            required = schema.get("required")
            keep = frozenset(props).union(required if isinstance(required, list) else ())
        if keep is None and not children:
            return None
        return _prune_object(keep, children)

    def array(self, schema: Mapping[str, Any]) -> Prune | None:
        items, prefix = schema.get("items"), schema.get("prefixItems")
        if not self.draft.prefix_items:
            items, prefix = (None, items) if isinstance(items, list) else (items, None)
        heads = tuple(self.node(s) for s in prefix) if isinstance(prefix, list) else ()
        rest = self.node(items)
        if rest is None and all(h is None for h in heads):
            return None
        return _prune_array(heads, rest)

    def ref(self, ref: Any) -> Prune | None:
        try:
            target, is_root = resolve(self.root, ref)
        except Unsupported:
            return None
        cell = self.cells.get(ref)
        if cell is None:
            cell = self.cells[ref] = [_identity]
            cell[0] = self.node(target, at_root=is_root) or _identity
        return lambda instance: cell[0](instance)


def _identity(x: Any) -> Any:
    return x


def _chain(first: Prune | None, second: Prune | None) -> Prune | None:
    if first is None or second is None:
        return first or second
    return lambda x: second(first(x))


def _prune_object(keep: frozenset[Any] | None, children: dict[str, Prune]) -> Prune:
    def prune(x: Any) -> Any:
        if not isinstance(x, dict):
            return x
        changed, out = False, {}
        for key, value in x.items():
            if keep is not None and key not in keep:
                changed = True
                continue
            child = children.get(key)
            new = value if child is None else child(value)
            changed = changed or new is not value
            out[key] = new
        return out if changed else x

    return prune


def _prune_array(heads: tuple[Prune | None, ...], rest: Prune | None) -> Prune:
    def prune(x: Any) -> Any:
        if not isinstance(x, list):
            return x
        out = [_prune_at(heads, rest, i, value) for i, value in enumerate(x)]
        return out if any(n is not o for n, o in zip(out, x, strict=True)) else x

    return prune


def _prune_at(heads: tuple[Prune | None, ...], rest: Prune | None, i: int, value: Any) -> Any:
    child = heads[i] if i < len(heads) else rest
    return value if child is None else child(value)
