"""Schema → closures: each node's keywords are gathered into ``Parts``, then fused into
as few checks as possible; ``$ref`` targets are compiled once and shared.

The compiler knows no keyword: each is a ``Handler`` of the table it is given
(``_keywords.HANDLERS``), which gathers into ``Parts`` and compiles subschemas back
through the compiler."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, TypeAlias

from tooldeck.host.schema.jsonschema_fast._base import (
    ANYTHING,
    NO_TYPES,
    NONE,
    PLAIN,
    TYPES,
    Check,
    Sub,
    Unsupported,
    always,
    never,
)
from tooldeck.host.schema.jsonschema_fast._checks import (
    all_of,
    array_check,
    node_check,
    object_by_keys,
    object_by_props,
    required_check,
    type_check,
)
from tooldeck.host.schema.jsonschema_fast._drafts import Draft, active_keywords, resolve

_SCAN_PROPS: Final = 12  # above this many properties, walk the instance's keys instead

Handler: TypeAlias = Callable[["Compiler", "Parts", str, Any, Mapping[str, Any]], None]
"""``handler(compiler, parts, key, value, schema)``: one keyword of one node into ``parts``;
raises ``Unsupported`` for a value it does not mirror exactly."""


def compile_schema(
    schema: Mapping[str, Any], draft: Draft, handlers: Mapping[str, Handler]
) -> Check | None:
    """The check for a whole schema, or ``None`` when only jsonschema can judge it (a
    keyword ``handlers`` lacks, or a value one of them refuses)."""
    try:
        return Compiler(schema, draft, handlers).node(schema, at_root=True) or always
    except Unsupported:
        return None


class Compiler:
    """Turns schema nodes into checks; ``$ref`` targets are compiled once, via cells."""

    def __init__(
        self, root: Mapping[str, Any], draft: Draft, handlers: Mapping[str, Handler]
    ) -> None:
        self.root = root
        self.draft = draft
        self.handlers = handlers
        self.cells: dict[str, list[Check]] = {}
        self.types: dict[Check, tuple[frozenset[type], bool]] = {}  # the type-only checks

    def node(self, schema: Any, *, at_root: bool = False) -> Check | None:
        """The check for one (sub)schema; ``None`` when it accepts everything."""
        if schema is True or schema is False:
            return None if schema else never
        if not isinstance(schema, dict):
            raise Unsupported(schema)
        parts = Parts()
        for key, value in active_keywords(schema, self.draft, at_root):
            handler = self.handlers.get(key)
            if handler is None:
                raise Unsupported(key)
            handler(self, parts, key, value, schema)
        return parts.build(self)

    def sub(self, schema: Any) -> Sub:
        """A child check with the instance types it accepts without being called."""
        check = self.node(schema)
        if check is None:
            return ANYTHING
        return check, self.types.get(check, (NO_TYPES, False))[0]

    def many(self, schemas: Any) -> list[Check | None]:
        if not isinstance(schemas, list):
            raise Unsupported(schemas)
        return [self.node(each) for each in schemas]

    def type_only(self, allowed: frozenset[type], float_int: bool) -> Check:
        check = type_check(allowed, float_int)
        self.types[check] = (allowed, float_int)
        return check

    def ref(self, ref: Any) -> Check:
        # Cycles are fine: the cell is filled once compiling ends, before any call.
        target, is_root = resolve(self.root, ref)
        cell = self.cells.get(ref)
        if cell is None:
            cell = self.cells[ref] = [never]
            cell[0] = self.node(target, at_root=is_root) or always
        return lambda instance: cell[0](instance)


class Parts:
    """What one schema node asks of each kind of instance, gathered before fusing."""

    def __init__(self) -> None:
        self.allowed: frozenset[type] = PLAIN
        self.float_int = False  # "integer" also admits floats with an integral value
        self.props: dict[str, Sub] = {}
        self.extra: Sub | bool = True  # additionalProperties; False forbids
        self.required: tuple[str, ...] = ()
        self.prefix: tuple[Sub, ...] = ()
        self.items: Sub | bool = True
        self.objs: list[Check] = []
        self.arrs: list[Check] = []
        self.strs: list[Check] = []
        self.nums: list[Check] = []
        self.anys: list[Check] = []

    def build(self, c: Compiler) -> Check | None:
        objs = [each for each in (self._object(),) if each] + self.objs
        arrs = [each for each in (self._array(),) if each] + self.arrs
        anys, kinds = tuple(self.anys), objs or arrs or self.strs or self.nums
        if not (kinds or anys):
            return None if self.allowed is PLAIN else c.type_only(self.allowed, self.float_int)
        if self.allowed is PLAIN and not kinds:
            return anys[0] if len(anys) == 1 else all_of(anys)
        if not (self.float_int or anys or self.strs or self.nums):
            # Exactly one object (or array) check: it does its own type gate.
            if self.allowed == TYPES["object"] and not (arrs or self.objs):
                return self._object(gate=True)
            if self.allowed == TYPES["array"] and not (objs or self.arrs):
                return self._array(gate=True)
        by_type = {
            dict: (*objs, *anys),
            list: (*arrs, *anys),
            str: (*self.strs, *anys),
            int: (*self.nums, *anys),
            float: (*self.nums, *anys),
            bool: anys,
            NONE: anys,
        }
        return node_check(self.allowed, self.float_int, by_type)

    def _object(self, *, gate: bool = False) -> Check | None:
        props, required = self.props, self.required
        extra = True if self.extra == ANYTHING else self.extra
        if not gate and extra is True and all(sub == ANYTHING for sub in props.values()):
            return required_check(required) if required else None
        if len(props) > _SCAN_PROPS:
            return object_by_keys(props, extra, required, gate)
        return object_by_props(props, extra, required, gate)

    def _array(self, *, gate: bool = False) -> Check | None:
        items = True if self.items == ANYTHING else self.items
        if not gate and items is True and all(sub == ANYTHING for sub in self.prefix):
            return None
        return array_check(self.prefix, items, gate)
