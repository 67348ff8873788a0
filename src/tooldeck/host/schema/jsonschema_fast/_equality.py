"""Equality as ``jsonschema._utils`` defines it (``True != 1``, ``1 == 1.0``), for
``enum``/``const`` and ``uniqueItems``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import islice
from typing import Any

from tooldeck.host.schema.jsonschema_fast._base import PLAIN, Bail, Check


def is_plain(value: Any) -> bool:
    t = type(value)
    if t is list:
        return all(is_plain(v) for v in value)
    if t is dict:
        return all(type(k) is str and is_plain(v) for k, v in value.items())
    return t in PLAIN


def enum_check(members: list[Any]) -> Check:
    strs = frozenset(m for m in members if type(m) is str)
    numbers = frozenset(m for m in members if type(m) in (int, float))
    bools = frozenset(m for m in members if type(m) is bool)
    has_none = any(m is None for m in members)
    nested = tuple(m for m in members if type(m) in (list, dict))

    def check(x: Any) -> bool:
        t = type(x)
        if t is str:
            return x in strs
        if t is int or t is float:
            return x in numbers
        if t is bool:
            return x in bools
        if x is None:
            return has_none
        if t is list or t is dict:
            return any(_equal(m, x) for m in nested)
        raise Bail

    return check


_TRUE, _FALSE = object(), object()


def _unbool(element: Any) -> Any:
    if element is True:
        return _TRUE
    if element is False:
        return _FALSE
    return element


def _equal(one: Any, two: Any) -> bool:
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(_equal(i, j) for i, j in zip(one, two, strict=True))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return len(one) == len(two) and all(
            key in two and _equal(value, two[key]) for key, value in one.items()
        )
    return bool(_unbool(one) == _unbool(two))


def uniq(container: list[Any]) -> bool:
    """jsonschema's ``uniq``, quirks included: when the items sort, only neighbours are
    compared, so ``[[1], [True], [1]]`` counts as unique there, and must here."""
    try:
        ordered = sorted(_unbool(each) for each in container)
        for one, two in zip(ordered, islice(ordered, 1, None), strict=False):
            if _equal(one, two):
                return False
    except (NotImplementedError, TypeError):
        seen: list[Any] = []
        for each in map(_unbool, container):
            if any(_equal(earlier, each) for earlier in seen):
                return False
            seen.append(each)
    return True
