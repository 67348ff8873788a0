"""The Python stubs of the code-mode tools: what the model reads and what ``ty`` checks.

Each tool becomes ``async def name(self, *, param: T, ...) -> R`` with a docstring
(its description, then one line per described parameter) inside the class of its
level of the ``tools`` tree; the root class is ``Tools`` and ``tools: Tools`` is the
global a program uses. Output schemas become the return type; a tool without one
returns ``str`` (its text). The model's copy (``StubFile.render(shown)``) and the type
checker's (``StubFile.render()``, every tool) come from the same renderer, so what the
model reads is what is checked.

Order: pinned tools first, then by effective name, inside each class; namespace
classes follow the root in the order of their first tool. Which stubs the budget lets
into the description is ``budget.py``'s choice.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from typing import Any

from tooldeck.codemode.naming import Node, ToolTree
from tooldeck.codemode.pytypes import TypeBook, camel, literal, param_name
from tooldeck.host.registry.editor import CatalogEntry, NamespaceEntry
from tooldeck.host.registry.record import record_of
from tooldeck.host.search.ranking import ToolIndex

HEADER = "from typing import Any, Literal, NotRequired, TypedDict"
ROOT_CLASS = "Tools"
SEARCH = '''class ToolInfo(TypedDict):
    name: str  # the effective tool name
    namespace: str | None
    call: str  # how a program calls it, e.g. tools.acme.git.status
    signature: str
    description: str

async def search(query: str, limit: int = 10) -> list[ToolInfo]:
    """Find tools by words in their name, namespace, description or parameters
    (all tools, including those not listed here); best matches first."""'''


class ToolStub:
    """One tool's method: its source, the classes it needs, and its parameter names."""

    __slots__ = ("entry", "method", "params", "pinned", "signature", "uses")

    def __init__(
        self,
        entry: CatalogEntry,
        method: str,
        signature: str,
        uses: tuple[str, ...],
        params: dict[str, str],
    ) -> None:
        self.entry = entry
        self.method = method
        self.signature = signature
        self.uses = uses
        self.params = params  # keyword used in the program -> property name (when they differ)
        self.pinned = bool(entry.tool.pinned)


class StubFile:
    """Every code-mode tool of one snapshot rendered once; renders the whole file or a part."""

    def __init__(self, tree: ToolTree, namespaces: Mapping[str, NamespaceEntry]) -> None:
        self.tree = tree
        self.namespaces = namespaces
        self.book = TypeBook(
            reserved=(
                ROOT_CLASS,
                "ToolInfo",
                "Any",
                "Literal",
                "NotRequired",
                "TypedDict",
                "tools",
                "search",
            )
        )
        self.class_names = {id(n): self._class_name(n) for n in tree.root.walk()}
        self.stubs: dict[str, ToolStub] = {}
        self.call_stubs: dict[str, ToolStub] = {}  # tools called as a level: tools.acme.git()
        for node in tree.root.walk():
            for name, entry in node.tools.items():
                self.stubs[entry.name] = _safe_stub(self.book, entry, name, self.tree.paths)
            if node.callable is not None:
                entry = node.callable
                self.call_stubs[entry.name] = _safe_stub(
                    self.book, entry, "__call__", self.tree.paths
                )
        self.order = sorted(self.stubs.values(), key=lambda s: (not s.pinned, s.entry.name))

    @cached_property
    def index(self) -> ToolIndex:
        """The search index over ``order`` (built on the first ``search``)."""
        return ToolIndex.of((s.entry for s in self.order), self.namespaces)

    def cost(self, stub: ToolStub, seen: set[str]) -> int:
        """Characters ``stub`` adds to a file already holding the classes in ``seen``."""
        new = [c for c in self.book.closure(stub.uses) if c not in seen]
        seen.update(new)
        return len(stub.method) + sum(len(self.book.classes[c]) for c in new) + 1

    def render(self, shown: Iterable[str] | None = None) -> str:
        """The stub file with every tool, or only the tools named in ``shown``."""
        keep = set(self.stubs) if shown is None else set(shown)
        blocks = [HEADER]
        uses: list[str] = []
        for node in self._nodes(keep):
            block, used = self._class(node, keep)
            blocks.append(block)
            uses += used
        blocks.append(f"tools: {ROOT_CLASS}")
        blocks += [self.book.classes[c] for c in self.book.closure(uses)]
        blocks.append(SEARCH)
        return "\n\n".join(blocks) + "\n"

    # -- rendering ---------------------------------------------------------------------------
    def _nodes(self, keep: set[str]) -> list[Node]:
        """Levels with something kept in or below them: the root first, then by first tool."""

        def first(node: Node) -> tuple[bool, str]:
            keys = [(not e.tool.pinned, e.name) for e in _entries(node) if e.name in keep]
            return min(keys) if keys else (True, "\uffff" + node.dotted)

        wanted = [n for n in self.tree.root.walk() if n is self.tree.root or self._holds(n, keep)]
        return [wanted[0], *sorted(wanted[1:], key=first)]

    def _holds(self, node: Node, keep: set[str]) -> bool:
        return any(e.name in keep for n in node.walk() for e in _entries(n))

    def _class(self, node: Node, keep: set[str]) -> tuple[str, list[str]]:
        lines = [f"class {self.class_names[id(node)]}:"]
        doc = self._namespace_doc(node)
        if doc:
            lines.append(_docstring(doc, "    "))
        uses: list[str] = []
        # A tool that is also a kept namespace is called as that namespace (``__call__``).
        methods = [
            self.stubs[e.name]
            for name, e in node.tools.items()
            if e.name in keep
            and not (name in node.children and self._holds(node.children[name], keep))
        ]
        if node.callable is not None and node.callable.name in keep:
            methods.append(self.call_stubs[node.callable.name])
        members: list[str] = []
        for stub in sorted(methods, key=lambda s: (not s.pinned, s.entry.name)):
            members.append(stub.method)
            uses += stub.uses
        attributes = [
            f"    {name}: {self.class_names[id(child)]}"
            for name, child in sorted(node.children.items())
            if self._holds(child, keep)
        ]
        if attributes:
            members.append("\n".join(attributes))
        # A blank line between members, as in any Python file the model has read.
        lines.append("\n\n".join(members) if members else "    pass")
        return "\n".join(lines), uses

    def _namespace_doc(self, node: Node) -> str:
        if node is self.tree.root:
            return ""
        entry = self.namespaces.get(node.namespace or "")
        described = f": {entry.description.strip()}" if entry is not None else ""
        return f"{node.dotted}{described}"

    def _class_name(self, node: Node) -> str:
        if node is self.tree.root:
            return ROOT_CLASS
        return self.book.reserve("_".join(("tools", *node.path)))


def _entries(node: Node) -> list[CatalogEntry]:
    """The tools a level's class declares: its own, plus the one called as the level."""
    found = list(node.tools.values())
    if node.callable is not None:
        found.append(node.callable)
    return found


def _safe_stub(
    book: TypeBook, entry: CatalogEntry, method: str, paths: Mapping[str, str]
) -> ToolStub:
    """``_tool_stub``, or a permissive stub: one odd schema must not hide the catalog."""
    try:
        return _tool_stub(book, entry, method, paths)
    except Exception:  # a renderer bug: log it, keep the tool callable
        logging.getLogger("tooldeck").exception("code mode: no stub for %r", entry.name)
        doc = _docstring(entry.tool.description.strip() or entry.name, "        ")
        head = f"    async def {method}(self, **kwargs: Any) -> Any:"
        return ToolStub(entry, f"{head}\n{doc}", f"{paths[entry.name]}(**kwargs) -> Any", (), {})


def _tool_stub(
    book: TypeBook, entry: CatalogEntry, method: str, paths: Mapping[str, str]
) -> ToolStub:
    record = record_of(entry.tool)
    schema = record.input_schema
    hint = camel(entry.tool.name)
    params: list[str] = []
    described: list[str] = []
    mapping: dict[str, str] = {}
    uses: list[str] = []
    required = set(schema.get("required") or ())
    properties = schema.get("properties") or {}
    for key, sub in properties.items():
        name = param_name(str(key))
        if name != key:
            mapping[name] = str(key)
        annotation = book.annotation(sub, schema, f"{hint}{camel(str(key))}")
        uses += annotation.uses
        params.append(f"{name}: {annotation.text}{_default(sub, key in required)}")
        text = sub.get("description") if isinstance(sub, Mapping) else None
        if isinstance(text, str) and text.strip():
            described.append(f"{name}: {' '.join(text.split())}")
    keywords = ["*", *params] if params else []  # a bare * needs a named parameter after it
    extra = schema.get("additionalProperties", False)
    if extra is not False and extra is not None:
        annotation = book.annotation(extra if isinstance(extra, Mapping) else {}, schema, hint)
        uses += annotation.uses
        keywords.append(f"**kwargs: {annotation.text}")
    returns = "str"
    if record.output_schema is not None:
        annotation = book.annotation(record.output_schema, record.output_schema, f"{hint}Result")
        uses += annotation.uses
        returns = annotation.text
    arguments = ", ".join(["self", *keywords])
    head = f"    async def {method}({arguments}) -> {returns}:"
    doc = entry.tool.description.strip()
    if described:
        doc += "\n\nArgs:\n" + "\n".join(f"    {d}" for d in described)
    signature = f"{paths[entry.name]}({', '.join(keywords)}) -> {returns}"
    return ToolStub(
        entry,
        f"{head}\n{_docstring(doc, '        ')}",
        signature,
        tuple(dict.fromkeys(uses)),
        mapping,
    )


def _default(schema: Any, required: bool) -> str:
    if required:
        return ""
    if isinstance(schema, Mapping) and "default" in schema:
        text = literal(schema["default"])
        if text is not None:
            return f" = {text}"
    return " = ..."


def _docstring(text: str, indent: str) -> str:
    body = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = body.splitlines() or [""]
    if len(lines) == 1:
        return f'{indent}"""{lines[0]}"""'
    rest = [f"{indent}{line}" if line.strip() else "" for line in lines[1:]]
    return "\n".join([f'{indent}"""{lines[0]}', *rest, f'{indent}"""'])


def signatures(stubs: StubFile) -> Sequence[ToolStub]:
    """Every tool's stub in stub order (for ``search``)."""
    return stubs.order
