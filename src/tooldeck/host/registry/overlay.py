"""``Overlay``: a mapping that is a frozen base mapping plus a small set of changes.

A session's view of the catalog is the Location's catalog with a handful of the
session's own edits on top. Copying the Location's thousand entries for every session
(and for every checkpoint of its replay) would make each open session cost as much as
the Location itself, so a session's replay edits an ``Overlay`` instead: reads fall
through to the base, writes and removals land in ``changes`` (``None`` marks a name the
base has and the overlay removed), and a copy copies only the changes.

It supports exactly what the editor and the replay use on a plain ``dict``, so both
work on either without knowing which one they hold.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any, TypeAlias, TypeVar

V = TypeVar("V")


class Overlay(MutableMapping[str, V]):
    """``base`` (never modified) with ``changes`` on top; a removal is a ``None`` change."""

    __slots__ = ("_size", "base", "changes")

    def __init__(
        self,
        base: Mapping[str, V],
        changes: dict[str, V | None] | None = None,
        size: int | None = None,
    ) -> None:
        self.base = base
        self.changes: dict[str, V | None] = changes if changes is not None else {}
        self._size = len(base) if size is None else size

    # -- reading ---------------------------------------------------------------------------
    def get(self, name: str, default: Any = None) -> Any:
        changes = self.changes
        if name in changes:
            value = changes[name]
            return default if value is None else value
        return self.base.get(name, default)

    def __getitem__(self, name: str) -> V:
        value: V | None = self.get(name)
        if value is None:
            raise KeyError(name)
        return value

    def __contains__(self, name: object) -> bool:
        changes: dict[Any, V | None] = self.changes
        if name in changes:
            return changes[name] is not None
        return name in self.base

    def __iter__(self) -> Iterator[str]:
        changes = self.changes
        for name in self.base:
            if name not in changes:
                yield name
        for name, value in changes.items():
            if value is not None:
                yield name

    def __len__(self) -> int:
        return self._size

    def __eq__(self, other: object) -> bool:
        # Cheap in the common case (same base): only the changes are compared.
        if isinstance(other, Overlay) and other.base is self.base:
            return self._size == other._size and self.changes == other.changes
        return isinstance(other, Mapping) and dict(self.items()) == dict(other.items())

    __hash__ = None  # type: ignore[assignment]  # mutable, like dict

    # -- writing ---------------------------------------------------------------------------
    def __setitem__(self, name: str, value: V) -> None:
        if name not in self:
            self._size += 1
        self.changes[name] = value

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._drop(name)

    def pop(self, name: str, default: Any = None) -> Any:
        """Remove ``name`` and return its value, or ``default`` when it is absent."""
        value = self.get(name)
        if value is None:
            return default
        self._drop(name)
        return value

    def _drop(self, name: str) -> None:
        self._size -= 1
        if name in self.base:
            self.changes[name] = None
        else:
            del self.changes[name]

    def update(self, other: Any = (), /, **kwargs: V) -> None:
        """Set every item of ``other`` (a mapping); what ``dict.update`` does."""
        items = other.items() if isinstance(other, Mapping) else other
        for name, value in items:
            self[name] = value
        for name, value in kwargs.items():
            self[name] = value

    def copy(self) -> Overlay[V]:
        """A new overlay on the same base: copies only the changes."""
        return Overlay(self.base, dict(self.changes), self._size)

    def __repr__(self) -> str:
        return f"<Overlay of {len(self.base)} with {len(self.changes)} changes>"


Draft: TypeAlias = "dict[str, V] | Overlay[V]"
"""What a replay edits: a plain dict (the Location) or an overlay on it (a session)."""
