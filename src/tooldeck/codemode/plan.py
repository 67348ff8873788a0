"""``ProgramPlan``: what one snapshot's code-mode tools look like from inside a program.

Built when a snapshot first needs ``execute``, and computed on first use, piece by
piece: the ``tools``
tree (names), the stubs (the ``execute`` description and the type-check file), and the
sandbox values (``tools`` and ``search``). A snapshot that is only listed never renders
a stub; one that only runs programs with type checking off never renders the
description.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

from tooldeck.codemode.budget import choose
from tooldeck.codemode.describe import description
from tooldeck.codemode.naming import Node, ToolTree, build_tree
from tooldeck.codemode.pytypes import param_name
from tooldeck.codemode.sandbox import SandboxPool
from tooldeck.codemode.stubs import StubFile
from tooldeck.host.call.path import finishes_in_place
from tooldeck.host.registry.editor import CatalogEntry, NamespaceEntry
from tooldeck.host.registry.record import record_of

CHARS_PER_TOKEN = 4


class Target:
    """Where a method call on a ``Namespace`` value goes: a tool and how it is reached."""

    __slots__ = ("__dict__", "entry", "path")

    def __init__(self, entry: CatalogEntry, path: str) -> None:
        self.entry = entry
        self.path = path

    @cached_property
    def params(self) -> dict[str, str]:
        """Program keyword → property name, for properties that are not identifiers
        (read from the tool's input schema on a program's first call of it)."""
        schema = record_of(self.entry.tool).input_schema
        keys = [str(k) for k in schema.get("properties") or {}]
        return {param_name(k): k for k in keys if param_name(k) != k}

    @cached_property
    def finishes_in_place(self) -> bool:
        """Whether a call of this tool finishes without awaiting (``finishes_in_place``
        in ``host/call/path.py``): one the program's own thread may run."""
        return finishes_in_place(record_of(self.entry.tool))


Targets = dict[Any, dict[str, Target]]
"""Method name → ``Target``, by the id of the ``Namespace`` value the method is called on."""


class ProgramPlan:
    """The code-mode view of one snapshot; thread-safe, every part computed once."""

    def __init__(
        self,
        entries: Sequence[CatalogEntry],
        namespaces: Mapping[str, NamespaceEntry],
        *,
        budget_tokens: int,
        limits_text: str,
    ) -> None:
        self.entries = tuple(entries)
        self.namespaces = namespaces
        self.budget_tokens = budget_tokens
        self.limits_text = limits_text
        self._lock = threading.Lock()
        self._tree: ToolTree | None = None
        self._stubs: StubFile | None = None
        self._description: str | None = None
        self._checked: str | None = None
        self._values: tuple[dict[str, Any], Targets] | None = None

    @property
    def tree(self) -> ToolTree:
        if self._tree is None:
            self._tree = build_tree(self.entries)
        return self._tree

    @property
    def stubs(self) -> StubFile:
        with self._lock:
            if self._stubs is None:
                self._stubs = StubFile(self.tree, self.namespaces)
            return self._stubs

    @property
    def description(self) -> str:
        """The ``execute`` tool's description: the guide, then the stubs that fit."""
        if self._description is None:
            shown = choose(self.stubs, self.budget_tokens * CHARS_PER_TOKEN)
            stub_text = self.stubs.render(shown.names)
            self._description = description(
                stub_text, shown.namespaces, self.limits_text, complete=shown.complete
            )
        return self._description

    @property
    def checked_stubs(self) -> str:
        """The type checker's stub file: every code-mode tool, left-out ones included."""
        if self._checked is None:
            self._checked = self.stubs.render()
        return self._checked

    def values(self, pool: SandboxPool, search: Any) -> tuple[dict[str, Any], Targets]:
        """(globals a program may read, method targets by ``Namespace`` value id)."""
        with self._lock:
            if self._values is None:
                targets: dict[Any, dict[str, Target]] = {}
                root = self._namespace_value(pool, self.tree.root, targets)
                self._values = ({"tools": root, "search": search}, targets)
            return self._values

    def _namespace_value(
        self, pool: SandboxPool, node: Node, targets: dict[Any, dict[str, Target]]
    ) -> Any:
        children = {
            name: self._namespace_value(pool, child, targets)
            for name, child in sorted(node.children.items())
        }
        value = pool.namespace(children)
        methods = {name: self._target(entry) for name, entry in node.tools.items()}
        if node.callable is not None:
            methods["__call__"] = self._target(node.callable)
        targets[pool.value_id(value)] = methods
        return value

    def _target(self, entry: CatalogEntry) -> Target:
        return Target(entry, self.tree.paths[entry.name])
