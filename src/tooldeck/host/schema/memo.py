"""What schema checks remember, and how much: bounded LRU memos and schema shapes.

Checking a JSON Schema against its metaschema is the largest share of a first snapshot
(``bench/RESULTS.md``, W9). Two memos keep the work to what is new:

- ``shapes``: for a schema in the Draft 7 / 2020-12 common subset, validity decomposes
  into one check per node, and a node's check only depends on its *shape*: the node
  with each subschema replaced by ``true``, property and definition names, descriptions
  and titles replaced by placeholders, and ``default``/``const`` dropped (the metaschema
  accepts any value there). A catalog of thousands of tools has a few dozen shapes, so
  certifying a new schema valid costs a walk and a few dictionary hits. At most
  ``SHAPES_MAX`` (4,096) shapes are kept, oldest first out.
- ``checked`` (``metaschema``): for a schema the shapes do not certify (outside the
  subset, or invalid), its verdict by the schema's ``repr``, least recently used first
  out once the keys pass ``CHECKED_MAX_CHARS`` characters in all (8 MB of text: about
  10,000 typical tool schemas). A rebuild of a catalog that fits finds every verdict;
  one that does not evicts only what it has not used for longest, instead of starting
  over.

``certified_valid`` only ever says "valid"; anything else (a shape that fails, a node
outside the subset or of an unusual type) leaves the verdict, and its message, to the
full check, so the messages stay exactly ``jsonschema``'s.
``tests/host/schema/test_memo.py`` pins both against the unremembered checks.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
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

    def __init__(self, limit: int, cost: Callable[[Any], int] = lambda key: 1) -> None:
        self.limit = limit
        self._cost = cost
        self._used = 0
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, key: Hashable) -> bool:
        return key in self._items

    def __getitem__(self, key: Hashable) -> V:
        return self._items[key]

    def __len__(self) -> int:
        return len(self._items)

    def find(self, key: Hashable) -> tuple[bool, V | None]:
        """(found, value) for ``key``; a found key becomes the most recently used."""
        with self._lock:
            if key not in self._items:
                return False, None
            self._items.move_to_end(key)
            return True, self._items[key]

    def peek(self, key: Hashable) -> V | None:
        """The value of ``key``, or ``None``, without taking the lock or making it the most
        recently used: for lookups too frequent for either (``certify``, once per node),
        whose memo then forgets the oldest entries first rather than the least used."""
        return self._items.get(key)

    def put(self, key: Hashable, value: V) -> None:
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
    known_shapes = _shapes.peek
    while stack:
        node = stack.pop()
        if node.__class__ is bool:
            continue
        if node.__class__ is not dict:
            return None
        key = _key(node, stack, keywords)
        if key is None:
            return None
        refs = refs or "$ref" in node
        known = known_shapes(key)
        if known is None:
            found = _shape(node, [], keywords)
            assert found is not None  # the same keywords as ``_key``'s
            known = check_shape(found[0])
            _shapes.put(key, known)
        if not known:
            return None
    return refs


_KIND = {
    **dict.fromkeys(_ONE, "one"),
    **dict.fromkeys(_MANY, "many"),
    **dict.fromkeys(_NAMED, "named"),
    "patternProperties": "patterns",
    **dict.fromkeys(_TEXT, "text"),
    **dict.fromkeys(_ANY_VALUE, "any"),
    **dict.fromkeys(_ANY_ITEMS, "items"),
    "required": "required",
}
"""How ``_shape`` treats a keyword's value (keywords not here are kept as they are)."""


def _shape(
    node: dict[str, Any], children: list[Any], keywords: frozenset[str]
) -> tuple[dict[str, Any], tuple[Any, ...]] | None:
    """``node`` with its subschemas (pushed on ``children``) replaced by ``true``, and the
    key it is remembered by; ``None`` when it leaves the common subset (an unknown
    keyword, tuple-form items).

    The key stands for the shape's ``repr``, built as the shape is (a ``repr`` per node
    was a third of a 5,000-tool catalog's checks, ``bench/DECISIONS.md``): one part per
    keyword, tagged by how its value was treated, a kept value with its class (``1``,
    ``1.0`` and ``True`` are equal in Python, not to the metaschema).
    ``tests/host/schema/test_memo.py`` pins equal keys to equal ``repr`` s.
    """
    shape: dict[str, Any] = {}
    key: list[Any] = []
    for name, value in node.items():
        if name not in keywords:
            return None
        kind = _KIND.get(name)
        cls = value.__class__
        if kind == "one" and isinstance(value, dict | bool):
            children.append(value)
            shape[name] = True
            key.append((name, 1))
        elif name == "items" and isinstance(value, list):
            return None
        elif kind == "many" and cls is list:
            children.extend(value)
            shape[name] = [True] * len(value)
            key.append((name, 2, len(value)))
        elif kind == "named" and cls is dict:
            children.extend(value.values())
            shape[name] = {str(n): True for n in range(len(value))}
            key.append((name, 3, len(value)))
        elif kind == "patterns" and cls is dict:
            children.extend(value.values())
            shape[name] = dict.fromkeys(value, True)
            key.append((name, 4, repr(shape[name])))
        elif kind == "text" and isinstance(value, str):
            shape[name] = ""
            key.append((name, 5))
        elif kind == "any":
            continue
        elif kind == "items" and cls is list:
            shape[name] = [None] * len(value)
            key.append((name, 7, len(value)))
        elif kind == "required" and cls is list:
            shape[name] = _placeholders(value)
            key.append((name, 8, repr(shape[name])))
        else:
            shape[name] = value
            key.append((name, 9, cls, value) if cls is str else (name, 10, repr(value)))
    return shape, tuple(key)


def _key(
    node: dict[str, Any], children: list[Any], keywords: frozenset[str]
) -> tuple[Any, ...] | None:
    """``_shape``'s key alone, its subschemas pushed on ``children``: the shape itself is
    built only for a key not seen before (hot: once per node of every schema of a
    catalog, and almost every key is known; ``bench/DECISIONS.md``, W9). Pinned to
    ``_shape``'s key by ``tests/host/schema/test_memo.py``."""
    key: list[Any] = []
    append = key.append
    for name, value in node.items():
        if name not in keywords:
            return None
        kind = _KIND.get(name)
        cls = value.__class__
        if kind == "one" and (cls is dict or cls is bool or isinstance(value, dict | bool)):
            children.append(value)
            append((name, 1))
        elif name == "items" and isinstance(value, list):
            return None
        elif kind == "many" and cls is list:
            children.extend(value)
            append((name, 2, len(value)))
        elif kind == "named" and cls is dict:
            children.extend(value.values())
            append((name, 3, len(value)))
        elif kind == "patterns" and cls is dict:
            children.extend(value.values())
            append((name, 4, repr(dict.fromkeys(value, True))))
        elif kind == "text" and (cls is str or isinstance(value, str)):
            append((name, 5))
        elif kind == "any":
            continue
        elif kind == "items" and cls is list:
            append((name, 7, len(value)))
        elif kind == "required" and cls is list:
            append((name, 8, repr(_placeholders(value))))
        else:
            append((name, 9, cls, value) if cls is str else (name, 10, repr(value)))
    return tuple(key)


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
