"""Read-only dict and list types for published schemas and definitions.

Snapshots hand the same schema objects to every caller, so they must not be mutable.
These subclass ``dict``/``list`` so ``json.dumps``, equality with plain values and
``isinstance`` checks keep working; ``copy.deepcopy`` returns ordinary mutable copies.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

from tooldeck._public import public


def _read_only(*_args: Any, **_kwargs: Any) -> NoReturn:
    raise TypeError("published tool schemas and definitions are read-only; copy.deepcopy() them")


@public
class FrozenDict(dict[str, Any]):
    """A ``dict`` that refuses mutation."""

    __slots__ = ()
    __setitem__ = __delitem__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only
    __ior__ = _read_only

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return thaw(self)  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))


class FrozenList(list[Any]):
    """A ``list`` that refuses mutation."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only
    append = extend = insert = pop = remove = clear = sort = reverse = _read_only

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return thaw(self)  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenList, (list(self),))


LEAF_CLASSES = frozenset({str, int, float, bool, type(None)})
"""Classes ``freeze`` returns as they are without a call (most values of a schema)."""


def freeze(value: Any) -> Any:
    """Return a deeply read-only copy of a JSON-like value."""
    # Hot: every schema and definition of a catalog is frozen (5,000 tools: ~150,000
    # values). Exact classes are decided by one lookup, and a leaf inside a dict or list
    # costs no call; anything else takes ``_freeze_any``, the plain rule. Pinned to it
    # by ``tests/host/schema/test_frozen.py`` (``bench/DECISIONS.md``).
    cls = value.__class__
    if cls in LEAF_CLASSES:
        return value
    if cls is dict:
        return FrozenDict(
            {k: v if v.__class__ in LEAF_CLASSES else freeze(v) for k, v in value.items()}
        )
    if cls is list or cls is tuple:
        return FrozenList([v if v.__class__ in LEAF_CLASSES else freeze(v) for v in value])
    return _freeze_any(value)


def _freeze_any(value: Any) -> Any:
    """``freeze`` by the plain rule: frozen stays, mappings and sequences are copied."""
    if isinstance(value, FrozenDict | FrozenList):
        return value
    if isinstance(value, Mapping):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return FrozenList([freeze(v) for v in value])
    return value


def thaw(value: Any) -> Any:
    """Return a deeply mutable plain copy of a (possibly frozen) JSON-like value."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    return value
