"""What the ``execute`` description shows when not every stub fits its budget.

When every stub fits, the description lists them all. Otherwise it shows, within
``[codemode] budget_tokens`` (characters / 4):

1. every namespace holding code-mode tools, as ``tools.<path>: <description>`` lines
   (the first sentence of a long description, or the bare path when even that does not
   fit), so the model knows what there is to ``search`` for;
2. stubs in *selection order*: the pinned tools, then one tool of each namespace in
   turn (each namespace's tools in stub order: effective name), then a second of each,
   and so on, stopping at the first stub that no longer fits.

Nothing here counts tools, and nothing after the stopping point is read: a tool beyond
the budget can change, come or go without changing a byte of the description. Adding a
tool never reorders the others: stubs are rendered in stub order (pinned first, then by
effective name) whatever selected them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from tooldeck.codemode.naming import Node, ToolTree
from tooldeck.codemode.stubs import StubFile, ToolStub
from tooldeck.host.registry.editor import NamespaceEntry

_SENTENCE = re.compile(r"(?<=[.!?])\s")


class Shown(NamedTuple):
    """The stubs a description lists, and the namespace lines heading them."""

    names: list[str]
    namespaces: list[str]  # empty when every stub is listed
    complete: bool


def choose(stubs: StubFile, budget_chars: int) -> Shown:
    """What fits in ``budget_chars``; see the module docstring."""
    everything = [s.entry.name for s in stubs.order]
    if _fits(stubs, stubs.order, budget_chars):
        return Shown(everything, [], True)
    lines = namespace_lines(stubs.tree, stubs.namespaces, budget_chars // 2)
    left = budget_chars - sum(len(line) + 1 for line in lines)
    names: list[str] = []
    seen: set[str] = set()
    for stub in selection_order(stubs):
        cost = stubs.cost(stub, seen)
        if cost > left:
            break
        left -= cost
        names.append(stub.entry.name)
    return Shown(names, lines, False)


def _fits(stubs: StubFile, order: Sequence[ToolStub], budget_chars: int) -> bool:
    seen: set[str] = set()
    used = 0
    for stub in order:
        used += stubs.cost(stub, seen)
        if used > budget_chars:
            return False
    return True


def selection_order(stubs: StubFile) -> list[ToolStub]:
    """Pinned tools, then round-robin over the namespaces (root tools count as one)."""
    pinned = [s for s in stubs.order if s.pinned]
    groups: dict[str, list[ToolStub]] = {}
    for stub in stubs.order:
        if not stub.pinned:
            groups.setdefault(stub.entry.tool.namespace or "", []).append(stub)
    queues = [groups[key] for key in sorted(groups)]
    rounds = max((len(q) for q in queues), default=0)
    return pinned + [q[k] for k in range(rounds) for q in queues if k < len(q)]


def namespace_lines(
    tree: ToolTree, described: Mapping[str, NamespaceEntry], budget_chars: int
) -> list[str]:
    """One line per namespace with tools, as long as fits ``budget_chars``: full
    descriptions, else first sentences, else bare paths."""
    nodes = [n for n in tree.root.walk() if n is not tree.root and _has_tools(n)]
    nodes.sort(key=lambda n: n.path)
    lines: list[str] = []
    for shorten in (_whole, _first_sentence, _nothing):
        lines = [_line(n, described, shorten) for n in nodes]
        if sum(len(line) + 1 for line in lines) <= budget_chars:
            break
    return lines


def _has_tools(node: Node) -> bool:
    return bool(node.tools) or node.callable is not None


def _line(
    node: Node, described: Mapping[str, NamespaceEntry], shorten: Callable[[str], str]
) -> str:
    path = ".".join(("tools", *node.path))
    entry = described.get(node.namespace or "")
    text = shorten(" ".join(entry.description.split())) if entry is not None else ""
    return f"- {path}: {text}" if text else f"- {path}"


def _whole(text: str) -> str:
    return text


def _first_sentence(text: str) -> str:
    return _SENTENCE.split(text, maxsplit=1)[0]


def _nothing(text: str) -> str:
    return ""
