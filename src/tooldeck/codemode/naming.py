"""Where each code-mode tool lives inside a program: ``tools.<namespace...>.<name>``.

Effective names are registry keys (``acme_git_status``); a program needs Python
identifiers in a tree (``tools.acme.git.status``). This module builds that tree once
per snapshot: dotted namespaces nest, names that are not identifiers are sanitized
(``search-records`` → ``search_records``, a leading digit gets a ``_`` prefix, then any
leading ``_`` a ``t`` prefix, since a program cannot reach ``_`` attributes; a Python
keyword, ``self`` or ``tools`` gets a ``_`` suffix), and names that collide inside one
level are told apart deterministically: a name that needed no change keeps it, the
others follow in effective-name order with ``_2``, ``_3``...

A name that is both a tool and a namespace (tool ``git`` in ``acme`` and namespace
``acme.git``) stays callable at both levels: ``tools.acme.git(...)`` calls the tool,
``tools.acme.git.status(...)`` the tool inside the namespace.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable

from tooldeck.host.registry.editor import CatalogEntry

_NOT_IDENTIFIER = re.compile(r"\W", re.ASCII)


def identifier(name: str) -> str:
    """``name`` as a Python identifier (ASCII letters, digits and ``_``)."""
    text = _NOT_IDENTIFIER.sub("_", name) or "_"
    if text[0].isdigit():
        text = "_" + text
    if text.startswith("_"):
        text = "t" + text  # the sandbox hides ``_`` attributes of host objects from programs
    if keyword.iskeyword(text) or keyword.issoftkeyword(text) or text in ("self", "tools"):
        text += "_"
    return text


class Node:
    """One level of the ``tools`` tree: its tools and its nested namespaces.

    ``namespace`` is the dotted namespace this level stands for (``None`` for the root);
    its description, if one is registered, heads the level's stubs. ``callable`` is the
    tool reached by calling this level itself (a name that is both tool and namespace).
    """

    __slots__ = ("callable", "children", "namespace", "path", "tools")

    def __init__(self, path: tuple[str, ...], namespace: str | None) -> None:
        self.path = path
        self.namespace = namespace
        self.tools: dict[str, CatalogEntry] = {}
        self.children: dict[str, Node] = {}
        self.callable: CatalogEntry | None = None

    @property
    def dotted(self) -> str:
        """``tools.acme.git``: how a program reaches this level."""
        return ".".join(("tools", *self.path))

    def walk(self) -> Iterable[Node]:
        """This level and every level below it, parents first, children by name."""
        yield self
        for name in sorted(self.children):
            yield from self.children[name].walk()


class ToolTree:
    """The ``tools`` tree of one snapshot and the way back from a path to a tool."""

    __slots__ = ("paths", "root")

    def __init__(self, root: Node, paths: dict[str, str]) -> None:
        self.root = root
        self.paths = paths  # effective name -> "tools.acme.git.status"

    def node(self, path: tuple[str, ...]) -> Node:
        node = self.root
        for part in path:
            node = node.children[part]
        return node


def build_tree(entries: Iterable[CatalogEntry]) -> ToolTree:
    """Place every entry (sorted by effective name) in the tree; collisions get suffixes."""
    root = Node((), None)
    nodes: dict[str, Node] = {"": root}
    paths: dict[str, str] = {}
    ordered = sorted(entries, key=lambda e: e.name)
    spaces = {entry.tool.namespace or "" for entry in ordered}
    for namespace in sorted(spaces, key=lambda n: (_changed(n), n)):
        _namespace_node(nodes, namespace)
    for entry in sorted(ordered, key=lambda e: (identifier(e.tool.name) != e.tool.name, e.name)):
        node = nodes[entry.tool.namespace or ""]
        name = _free(identifier(entry.tool.name), node.tools)
        node.tools[name] = entry
        paths[entry.name] = ".".join(("tools", *node.path, name))
        child = node.children.get(name)
        if child is not None and child.callable is None:
            child.callable = entry
    return ToolTree(root, paths)


def _namespace_node(nodes: dict[str, Node], namespace: str) -> Node:
    """The node of a dotted ``namespace``, creating it and its parents as needed."""
    node = nodes.get(namespace)
    if node is not None:
        return node
    parent_name, _, last = namespace.rpartition(".")
    parent = _namespace_node(nodes, parent_name)
    base = identifier(last)
    taken = {n for n, child in parent.children.items() if child.namespace != namespace}
    name = _free(base, taken) if base in taken else base
    node = Node((*parent.path, name), namespace)
    parent.children[name] = node
    nodes[namespace] = node
    return node


def _changed(namespace: str) -> bool:
    return any(identifier(part) != part for part in namespace.split(".") if part)


def _free(name: str, taken: Iterable[str] | dict[str, object]) -> str:
    """``name``, or ``name_2``, ``name_3``... whichever is not ``taken``."""
    used = set(taken)
    if name not in used:
        return name
    n = 2
    while f"{name}_{n}" in used:
        n += 1
    return f"{name}_{n}"
