"""What schema checks remember, and how much: bounded LRU memos and schema shapes.

Checking a JSON Schema against its metaschema is the largest share of a first snapshot
(``bench/RESULTS.md``, W9). Two memos keep the work to what is new:

- ``checked`` (``metaschema``): verdicts by the schema's ``repr``, least recently used
  first out once the keys pass ``CHECKED_MAX_CHARS`` characters in all (8 MB of text:
  about 10,000 typical tool schemas). A rebuild of a catalog that fits finds every
  verdict; one that does not evicts only what it has not used for longest, instead of
  starting over.
- ``shapes``: for a schema in the Draft 7 / 2020-12 common subset, validity decomposes
  into one check per node, and a node's check only depends on its *shape*: the node
  with each subschema replaced by ``true``, property and definition names, descriptions
  and titles replaced by placeholders, and ``default``/``const`` dropped (the metaschema
  accepts any value there). A catalog of thousands of tools has a few dozen shapes, so
  certifying a new schema valid costs a walk and a few dictionary hits. At most
  ``SHAPES_MAX`` (4,096) shapes are kept, least recently used first out.

``certified_valid`` only ever says "valid"; anything else (a shape that fails, a node
outside the subset or of an unusual type) leaves the verdict, and its message, to the
full check, so the messages stay exactly ``jsonschema``'s.
``tests/host/schema/test_memo.py`` pins both against the unremembered checks.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, TypeVar

V = TypeVar("V")

CHECKED_MAX_CHARS = 8_000_000
SHAPES_MAX = 4096

_ONE = ("additionalProperties", "items", "not", "if", "then", "else", "contains", "propertyNames")
_MANY = ("anyOf", "oneOf", "allOf")
_NAMED = ("properties", "definitions")  # names are free; patternProperties' are regexes
_TEXT = ("description", "title", "$comment")
_ANY_VALUE = ("default", "const")
_ANY_ITEMS = ("enum", "examples")  # arrays whose items may be anything


class BoundedMemo(Generic[V]):
    """A thread-safe LRU mapping bounded by a cost per key (default: 1 per entry)."""

    def __init__(self, limit: int, cost: Callable[[str], int] = lambda key: 1) -> None:
        self.limit = limit
        self._cost = cost
        self._used = 0
        self._items: OrderedDict[str, V] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, key: str) -> bool:
        return key in self._items

    def __getitem__(self, key: str) -> V:
        return self._items[key]

    def __len__(self) -> int:
        return len(self._items)

    def find(self, key: str) -> tuple[bool, V | None]:
        """(found, value) for ``key``; a found key becomes the most recently used."""
        with self._lock:
            if key not in self._items:
                return False, None
            self._items.move_to_end(key)
            return True, self._items[key]

    def put(self, key: str, value: V) -> None:
        """Remember ``key``; evict the least recently used keys past the limit."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
            else:
                self._used += self._cost(key)
            self._items[key] = value
            while self._used > self.limit and len(self._items) > 1:
                old, _ = self._items.popitem(last=False)
                self._used -= self._cost(old)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._used = 0


_shapes: BoundedMemo[bool] = BoundedMemo(SHAPES_MAX)


def certified_valid(
    schema: Any, keywords: frozenset[str], check_shape: Callable[[dict[str, Any]], bool]
) -> bool:
    """True when every node uses only ``keywords`` (the common subset) and its shape
    passes ``check_shape`` (the Draft 7 metaschema check of one shallow node); False
    means "not certified", never "invalid"."""
    return certify(schema, keywords, check_shape) is not None


def certify(
    schema: Any, keywords: frozenset[str], check_shape: Callable[[dict[str, Any]], bool]
) -> bool | None:
    """``certified_valid``, saying more: ``None`` when not certified, else whether any
    node holds a ``$ref`` (the only reference keyword of the common subset), so a
    schema without one needs no reference check."""
    refs = False
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, bool):
            continue
        if type(node) is not dict:
            return None
        shape = _shape(node, stack, keywords)
        if shape is None:
            return None
        refs = refs or "$ref" in node
        key = repr(shape)
        found, known = _shapes.find(key)
        if not found:
            known = check_shape(shape)
            _shapes.put(key, known)
        if not known:
            return None
    return refs


def _shape(
    node: dict[str, Any], children: list[Any], keywords: frozenset[str]
) -> dict[str, Any] | None:
    """``node`` with its subschemas (pushed on ``children``) replaced by ``true``, or
    ``None`` when it leaves the common subset (an unknown keyword, tuple-form items)."""
    shape: dict[str, Any] = {}
    for key, value in node.items():
        if key not in keywords or (key == "items" and isinstance(value, list)):
            return None
        if key in _ONE and isinstance(value, dict | bool):
            children.append(value)
            shape[key] = True
        elif key in _MANY and type(value) is list:
            children.extend(value)
            shape[key] = [True] * len(value)
        elif key in _NAMED and type(value) is dict:
            children.extend(value.values())
            shape[key] = {str(n): True for n in range(len(value))}
        elif key == "patternProperties" and type(value) is dict:
            children.extend(value.values())
            shape[key] = dict.fromkeys(value, True)
        elif key in _TEXT and isinstance(value, str):
            shape[key] = ""
        elif key in _ANY_VALUE:
            continue
        elif key in _ANY_ITEMS and type(value) is list:
            shape[key] = [None] * len(value)
        elif key == "required" and type(value) is list:
            shape[key] = _placeholders(value)
        else:
            shape[key] = value
    return shape


def _placeholders(names: list[Any]) -> list[Any]:
    """Strings renamed by first occurrence (equal stay equal), anything else kept."""
    seen: dict[str, str] = {}
    out: list[Any] = []
    for name in names:
        if type(name) is str:
            out.append(seen.setdefault(name, f"p{len(seen)}"))
        else:
            out.append(name)
    return out


def reset() -> None:
    """Forget every shape (tests)."""
    _shapes.clear()


def shape_count() -> int:
    """How many shapes are remembered."""
    return len(_shapes)
