"""The closures a compiled schema node is made of.

These run on every validated call: each factory captures what it needs so the returned
check does as little as possible per instance (see ``SIM110`` notes: no generators).
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from tooldeck.host.schema.jsonschema_fast._base import PLAIN, Bail, Check, Sub


def type_check(allowed: frozenset[type], float_int: bool) -> Check:
    def check(x: Any) -> bool:
        t = type(x)
        if t in allowed:
            return True
        if float_int and t is float:
            return bool(x.is_integer())
        if t in PLAIN:
            return False
        raise Bail

    return check


def mismatch(x: Any) -> bool:
    """A type gate failed: plain values are invalid, others are for jsonschema to judge."""
    if type(x) in PLAIN:
        return False
    raise Bail


def node_check(
    allowed: frozenset[type], float_int: bool, by_type: dict[type, tuple[Check, ...]]
) -> Check:
    # Hot: one closure per schema node, so the type gate and the loop are inlined here.
    def check(x: Any) -> bool:
        t = type(x)
        if t not in allowed and not (float_int and t is float and x.is_integer()):
            return mismatch(x)
        for each in by_type[t]:  # noqa: SIM110 - hot: all() would allocate a generator
            if not each(x):
                return False
        return True

    return check


def required_check(required: tuple[str, ...]) -> Check:
    def check(x: Any) -> bool:
        for key in required:  # noqa: SIM110 - hot: all() would allocate a generator
            if key not in x:
                return False
        return True

    return check


def object_by_props(
    props: dict[str, Sub], extra: Sub | bool, required: tuple[str, ...], gate: bool
) -> Check:
    """The object keywords fused, walking the declared properties (few of them)."""
    entries = tuple((key, sub, quick) for key, (sub, quick) in props.items())
    must = frozenset(required)
    others = tuple(key for key in required if key not in props)
    forbid = extra is False
    rest = None if isinstance(extra, bool) else extra

    def check(x: Any) -> bool:
        # Hot: the usual tool input; ``quick`` spares a call for type-only properties.
        if gate and type(x) is not dict:
            return mismatch(x)
        seen = 0
        for key, sub, quick in entries:
            if key in x:
                seen += 1
                value = x[key]
                if type(value) not in quick and not sub(value):
                    return False
            elif key in must:
                return False
        if seen != len(x) and (forbid or (rest is not None and not _extras_valid(x, props, rest))):
            return False
        for key in others:  # noqa: SIM110 - hot: all() would allocate a generator
            if key not in x:
                return False
        return True

    return check


def object_by_keys(
    props: dict[str, Sub], extra: Sub | bool, required: tuple[str, ...], gate: bool
) -> Check:
    """The object keywords fused, walking the instance (many declared properties)."""
    get = props.get
    forbid = extra is False
    rest = None if isinstance(extra, bool) else extra

    def check(x: Any) -> bool:
        if gate and type(x) is not dict:
            return mismatch(x)
        for key in required:
            if key not in x:
                return False
        for key, value in x.items():
            entry = get(key, rest)
            if entry is None:
                if forbid:
                    return False
            elif type(value) not in entry[1] and not entry[0](value):
                return False
        return True

    return check


def _extras_valid(x: dict[Any, Any], props: dict[str, Sub], extra: Sub) -> bool:
    sub, quick = extra
    for key, value in x.items():
        if key not in props and type(value) not in quick and not sub(value):
            return False
    return True


def array_check(prefix: tuple[Sub, ...], items: Sub | bool, gate: bool) -> Check:
    start = len(prefix)
    rest = None if isinstance(items, bool) else items

    def check(x: Any) -> bool:
        if gate and type(x) is not list:
            return mismatch(x)
        for (sub, quick), value in zip(prefix, x, strict=False):
            if type(value) not in quick and not sub(value):
                return False
        if items is False:
            return len(x) <= start
        if rest is not None:
            sub, quick = rest
            for value in islice(x, start, None) if start else x:
                if type(value) not in quick and not sub(value):
                    return False
        return True

    return check


def all_of(checks: tuple[Check, ...]) -> Check:
    def check(x: Any) -> bool:
        for each in checks:  # noqa: SIM110 - hot: all() would allocate a generator
            if not each(x):
                return False
        return True

    return check
