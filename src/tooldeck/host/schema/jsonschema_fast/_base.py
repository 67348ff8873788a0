"""What every part of the compiled validator shares: check types, the plain JSON types,
and the two signals that hand a decision back to ``jsonschema``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

Check = Callable[[Any], bool]
"""A compiled (sub)schema: ``True`` when the instance is valid."""
Prune = Callable[[Any], Any]
"""Returns its argument unchanged, or a copy without undeclared keys."""
Sub = tuple[Check, frozenset[type]]
"""A child check, and the instance types it accepts without being called."""

NONE: Final = type(None)
PLAIN: Final[frozenset[type]] = frozenset({dict, list, str, int, float, bool, NONE})
TYPES: Final[Mapping[str, frozenset[type]]] = {
    "object": frozenset({dict}),
    "array": frozenset({list}),
    "string": frozenset({str}),
    "boolean": frozenset({bool}),
    "null": frozenset({NONE}),
    "number": frozenset({int, float}),
    "integer": frozenset({int}),
}
NO_TYPES: Final[frozenset[type]] = frozenset()


class Unsupported(Exception):
    """The schema needs something the closures do not mirror: use jsonschema for it."""


class Bail(Exception):
    """The instance holds a value the closures do not judge: ask jsonschema."""


def always(_x: Any) -> bool:
    return True


def never(_x: Any) -> bool:
    return False


ANYTHING: Final[Sub] = (always, PLAIN)
