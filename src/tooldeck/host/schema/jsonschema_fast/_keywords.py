"""Per-keyword compilation: each handler mirrors one ``jsonschema`` keyword exactly, or
raises ``Unsupported`` for values it does not (the schema then falls back whole)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, Final

from tooldeck.host.schema.jsonschema_fast._base import TYPES, Check, Unsupported, always, never
from tooldeck.host.schema.jsonschema_fast._checks import all_of
from tooldeck.host.schema.jsonschema_fast._compile import Compiler, Handler, Parts
from tooldeck.host.schema.jsonschema_fast._equality import enum_check, is_plain, uniq
from tooldeck.host.schema.patterns import PatternError, compile_pattern


def _number(value: Any, *, positive: bool = False) -> int | float:
    if type(value) not in (int, float) or (positive and not value > 0):
        raise Unsupported(value)
    return value  # type: ignore[no-any-return]


def _kw_type(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(type(n) is str and n in TYPES for n in names):
        raise Unsupported(value)  # jsonschema raises UnknownType at validation time
    parts.allowed = frozenset(t for n in names for t in TYPES[n])
    parts.float_int = "integer" in names


def _kw_properties(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    if not isinstance(value, dict):
        raise Unsupported(value)
    parts.props = {name: c.sub(sub) for name, sub in value.items()}


def _kw_additional(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    parts.extra = value if isinstance(value, bool) else c.sub(value)


def _kw_required(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    if not isinstance(value, list) or not all(type(n) is str for n in value):
        raise Unsupported(value)
    parts.required = tuple(value)


def _kw_items(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    if isinstance(value, list):
        raise Unsupported(value)  # tuple validation (drafts before 2020-12)
    parts.items = value if isinstance(value, bool) else c.sub(value)


def _kw_prefix_items(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    if not isinstance(value, list):
        raise Unsupported(value)
    parts.prefix = tuple(c.sub(each) for each in value)


def _kw_enum(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    members = [value] if key == "const" else value
    if not isinstance(members, list) or not all(is_plain(m) for m in members):
        raise Unsupported(value)
    parts.anys.append(enum_check(members))


BOUND_FAILS: Final[Mapping[str, Callable[[Any, Any], bool]]] = {
    "minimum": operator.lt,
    "maximum": operator.gt,
    "exclusiveMinimum": operator.le,
    "exclusiveMaximum": operator.ge,
}


def _kw_bound(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    # ``not fails`` rather than the converse comparison: NaN passes, as in jsonschema.
    limit, fails = _number(value), BOUND_FAILS[key]
    parts.nums.append(lambda x: not fails(x, limit))


def _kw_multiple_of(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    parts.nums.append(_multiple_of(_number(value, positive=True)))


_SIZES: Final[Mapping[str, tuple[str, Callable[[Any, Any], bool]]]] = {
    "minLength": ("strs", operator.lt),
    "maxLength": ("strs", operator.gt),
    "minItems": ("arrs", operator.lt),
    "maxItems": ("arrs", operator.gt),
    "minProperties": ("objs", operator.lt),
    "maxProperties": ("objs", operator.gt),
}


def _kw_size(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    kind, fails = _SIZES[key]
    limit = _number(value)
    getattr(parts, kind).append(lambda x: not fails(len(x), limit))


def _kw_pattern(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    if not isinstance(value, str):
        raise Unsupported(value)
    try:
        # Linear (RE2) or time-bounded: a foreign pattern never backtracks without bound.
        parts.strs.append(compile_pattern(value).search)
    except PatternError as exc:
        raise Unsupported(value) from exc


def _kw_unique(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    if not isinstance(value, bool):
        raise Unsupported(value)
    if value:
        parts.arrs.append(uniq)


def _kw_all_of(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    checks = tuple(each for each in c.many(value) if each is not None)
    if checks:
        parts.anys.append(checks[0] if len(checks) == 1 else all_of(checks))


def _kw_any_of(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    checks = c.many(value)
    if None in checks:
        return  # one branch accepts everything
    branches = tuple(each for each in checks if each is not None)
    types = [c.types.get(each) for each in branches]
    if branches and all(types):  # e.g. Optional[int]: one type check, no calls
        allowed = frozenset(t for pair in types if pair for t in pair[0])
        parts.anys.append(c.type_only(allowed, any(pair and pair[1] for pair in types)))
        return

    def check(x: Any) -> bool:
        return any(each(x) for each in branches)

    parts.anys.append(check)


def _kw_one_of(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    branches = tuple(each or always for each in c.many(value))

    def check(x: Any) -> bool:
        matched = False
        for each in branches:
            if each(x):
                if matched:
                    return False
                matched = True
        return matched

    parts.anys.append(check)


def _kw_not(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    inner = c.node(value)
    parts.anys.append(never if inner is None else lambda x: not inner(x))


def _kw_ref(c: Compiler, parts: Parts, key: str, value: Any, schema: Any) -> None:
    parts.anys.append(c.ref(value))


HANDLERS: Final[Mapping[str, Handler]] = {
    "type": _kw_type,
    "properties": _kw_properties,
    "additionalProperties": _kw_additional,
    "required": _kw_required,
    "items": _kw_items,
    "prefixItems": _kw_prefix_items,
    "enum": _kw_enum,
    "const": _kw_enum,
    "multipleOf": _kw_multiple_of,
    "pattern": _kw_pattern,
    "uniqueItems": _kw_unique,
    "allOf": _kw_all_of,
    "anyOf": _kw_any_of,
    "oneOf": _kw_one_of,
    "not": _kw_not,
    "$ref": _kw_ref,
    **dict.fromkeys(BOUND_FAILS, _kw_bound),
    **dict.fromkeys(_SIZES, _kw_size),
}
"""The compiled keyword subset; a schema using any other keyword is left to jsonschema."""


def _multiple_of(divisor: int | float) -> Check:
    # jsonschema's arithmetic, step for step, so float rounding agrees too.
    if isinstance(divisor, float):

        def check(x: Any) -> bool:
            quotient = x / divisor
            try:
                return bool(int(quotient) == quotient)
            except OverflowError:
                return (Fraction(x) / Fraction(divisor)).denominator == 1

        return check
    return lambda x: not x % divisor
