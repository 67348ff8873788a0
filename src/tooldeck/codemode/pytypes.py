"""JSON Schema → Python type annotations for the stubs a program is written against.

Object schemas become ``TypedDict`` classes (optional properties ``NotRequired[...]``),
``enum``/``const`` become ``Literal[...]``, arrays ``list[...]``, unions ``A | B``;
anything the mapping cannot express precisely becomes ``Any`` rather than a wrong
type. ``TypeBook`` names and collects the ``TypedDict`` classes of a whole stub file:
two tools sharing a model share one class; different shapes with one title get
``Title_2``.
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Mapping, Sequence
from typing import Any

from tooldeck.codemode.naming import identifier

_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
_WORD = re.compile(r"[A-Za-z0-9]+")


def camel(text: str) -> str:
    """``search-records`` → ``SearchRecords`` (for class names derived from tool names)."""
    words = _WORD.findall(text)
    name = "".join(w[:1].upper() + w[1:] for w in words) or "T"
    return "_" + name if name[0].isdigit() else name


def literal(value: Any) -> str | None:
    """Python source for a JSON value, or ``None`` when it has none (NaN, say)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int | str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float):
        return repr(value) if value == value and abs(value) != float("inf") else None
    if isinstance(value, Sequence):
        items = [literal(v) for v in value]
        return None if None in items else "[" + ", ".join(i for i in items if i) + "]"
    if isinstance(value, Mapping):
        pairs = [(json.dumps(str(k)), literal(v)) for k, v in value.items()]
        if any(v is None for _, v in pairs):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    return None


class TypeBook:
    """The ``TypedDict`` classes of one stub file, in the order they were first needed."""

    def __init__(self, reserved: Sequence[str] = ()) -> None:
        self._taken: set[str] = set(reserved)
        self._by_key: dict[str, str] = {}
        self.classes: dict[str, str] = {}  # class name -> its source
        self.uses: dict[str, tuple[str, ...]] = {}  # class name -> classes it refers to

    def reserve(self, name: str) -> str:
        """Claim ``name`` (or ``name_2``, ...) for a class that is not a ``TypedDict``."""
        chosen = self._free(name)
        self._taken.add(chosen)
        return chosen

    def annotation(self, schema: Any, root: Mapping[str, Any], hint: str) -> Annotated:
        """The annotation for ``schema`` (refs resolve in ``root``) and the classes it uses."""
        used: list[str] = []
        text = _Render(self, root, used).type(schema, hint)
        return Annotated(text, tuple(dict.fromkeys(used)))

    def closure(self, names: Sequence[str]) -> list[str]:
        """``names`` and every class they refer to, in definition order."""
        seen: set[str] = set()
        stack = list(names)
        while stack:
            name = stack.pop()
            if name not in seen:
                seen.add(name)
                stack.extend(self.uses.get(name, ()))
        return [name for name in self.classes if name in seen]

    # -- internals used by _Render ------------------------------------------------------------
    def _free(self, name: str) -> str:
        if name not in self._taken:
            return name
        n = 2
        while f"{name}_{n}" in self._taken:
            n += 1
        return f"{name}_{n}"

    def _class_for(self, key: str, name: str) -> tuple[str, bool]:
        """(class name, new?) for the shape ``key``; new names are claimed at once."""
        known = self._by_key.get(key)
        if known is not None:
            return known, False
        chosen = self._free(name)
        self._taken.add(chosen)
        self._by_key[key] = chosen
        self.classes[chosen] = ""  # placeholder: keeps first-use order, allows recursion
        return chosen, True


class Annotated:
    """An annotation's source text and the ``TypedDict`` classes it mentions."""

    __slots__ = ("text", "uses")

    def __init__(self, text: str, uses: tuple[str, ...]) -> None:
        self.text = text
        self.uses = uses


class _Render:
    """One annotation's rendering: resolves ``$ref`` in ``root`` and records classes used."""

    def __init__(self, book: TypeBook, root: Mapping[str, Any], used: list[str]) -> None:
        self.book = book
        self.root = root
        self.used = used

    def type(self, schema: Any, hint: str) -> str:
        if not isinstance(schema, Mapping):
            return "Any"
        if "$ref" in schema:
            target = self._resolve(schema["$ref"])
            if target is None:
                return "Any"
            name = schema["$ref"].rsplit("/", 1)[-1]
            return self.type(target, camel(str(target.get("title") or name)))
        if "const" in schema:
            return self._literal([schema["const"]]) or "Any"
        if "enum" in schema and isinstance(schema["enum"], Sequence):
            return self._literal(schema["enum"]) or "Any"
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), Sequence):
                return self._union([self.type(s, hint) for s in schema[key]])
        if isinstance(schema.get("allOf"), Sequence) and len(schema["allOf"]) == 1:
            return self.type(schema["allOf"][0], hint)
        kind = schema.get("type")
        if isinstance(kind, Sequence) and not isinstance(kind, str):
            return self._union([self.type({**schema, "type": k}, hint) for k in kind])
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "array" or (kind is None and "items" in schema):
            return self._array(schema, hint)
        if kind == "object" or (kind is None and "properties" in schema):
            return self._object(schema, hint)
        return "Any"

    def _array(self, schema: Mapping[str, Any], hint: str) -> str:
        prefix = schema.get("prefixItems")
        if isinstance(prefix, Sequence) and schema.get("items") is False:
            parts = [self.type(s, f"{hint}Item") for s in prefix]
            return f"tuple[{', '.join(parts) or '()'}]"
        return f"list[{self.type(schema.get('items', {}), f'{hint}Item')}]"

    def _object(self, schema: Mapping[str, Any], hint: str) -> str:
        properties = schema.get("properties")
        if not isinstance(properties, Mapping) or not properties:
            extra = schema.get("additionalProperties", True)
            value = self.type(extra, f"{hint}Value") if isinstance(extra, Mapping) else "Any"
            return f"dict[str, {value}]"
        title = schema.get("title")
        name = camel(title) if isinstance(title, str) and title.strip() else hint
        key = json.dumps([schema, self._reachable(schema)], sort_keys=True, default=str)
        chosen, new = self.book._class_for(key, name)
        self.used.append(chosen)
        if new:
            used: list[str] = []
            self.book.classes[chosen] = _Render(self.book, self.root, used)._typed_dict(
                chosen, schema
            )
            self.book.uses[chosen] = tuple(dict.fromkeys(used))
        return chosen

    def _typed_dict(self, name: str, schema: Mapping[str, Any]) -> str:
        required = set(schema.get("required") or ())
        fields: list[tuple[str, str, str]] = []
        for key, sub in schema["properties"].items():
            annotation = self.type(sub, f"{name}{camel(str(key))}")
            if key not in required:
                annotation = f"NotRequired[{annotation}]"
            note = _one_line(sub.get("description")) if isinstance(sub, Mapping) else ""
            fields.append((str(key), annotation, note))
        doc = _one_line(schema.get("description"))
        if all(k.isidentifier() and not keyword.iskeyword(k) for k, _, _ in fields):
            lines = [f"class {name}(TypedDict):"]
            if doc:
                lines.append(f'    """{doc}"""')
            lines += [f"    {k}: {t}" + (f"  # {n}" if n else "") for k, t, n in fields]
            return "\n".join(lines)
        body = ", ".join(f"{json.dumps(k)}: {t}" for k, t, _ in fields)
        comment = f"  # {doc}" if doc else ""
        return f'{name} = TypedDict("{name}", {{{body}}}){comment}'

    def _literal(self, values: Sequence[Any]) -> str | None:
        if not values or not all(
            v is None or (isinstance(v, bool | int | str) and not isinstance(v, float))
            for v in values
        ):
            return None
        return f"Literal[{', '.join(literal(v) or 'None' for v in values)}]"

    def _union(self, parts: list[str]) -> str:
        unique = list(dict.fromkeys(parts))
        return "Any" if "Any" in unique else " | ".join(unique)

    def _resolve(self, ref: Any) -> Mapping[str, Any] | None:
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return None
        node: Any = self.root
        for part in ref[2:].split("/"):
            if not isinstance(node, Mapping) or part not in node:
                return None
            node = node[part]
        return node if isinstance(node, Mapping) else None

    def _reachable(self, schema: Any) -> list[Any]:
        """The definitions ``schema`` refers to, transitively (part of its identity)."""
        found: dict[str, Any] = {}
        stack = [schema]
        while stack:
            node = stack.pop()
            if isinstance(node, Mapping):
                ref = node.get("$ref")
                if isinstance(ref, str) and ref not in found:
                    found[ref] = self._resolve(ref)
                    stack.append(found[ref])
                stack.extend(v for k, v in node.items() if k != "$defs")
            elif isinstance(node, list | tuple):
                stack.extend(node)
        return sorted(found.items(), key=lambda kv: kv[0])


def _one_line(text: Any) -> str:
    if not isinstance(text, str):
        return ""
    return " ".join(text.split())


def param_name(key: str) -> str:
    """A property name as a keyword parameter (``from`` → ``from_``, ``my-key`` → ``my_key``)."""
    return identifier(key)
