"""What a search says when it found nothing, or nothing good: where the tools are.

A weak result (``Ranked.weak``: no tool, or the best one answers less than half of what
was asked, or scores less than half of what the query's parts score at best) comes with
a ``Hint``: the namespaces, those whose tools matched best first, each with its
description and how many tools it holds, the words no tool answered, and a suggested
query (the best namespace's name with the query's words that some tool knows), so the
model's next search can name a place instead of guessing other words.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from tooldeck.host.search.ranking import Ranked, ToolIndex

MAX_NAMESPACES = 30
"""Namespaces a hint lists at most (the rest are counted)."""
_SENTENCE_END = re.compile(r"[.!?](\s|$)")


@dataclass(frozen=True, slots=True)
class Space:
    """One namespace as a hint lists it."""

    name: str
    description: str
    tools: int


@dataclass(frozen=True, slots=True)
class Hint:
    """Where to look next, for a weak result."""

    namespaces: tuple[Space, ...]
    more: int
    """Namespaces left out past ``MAX_NAMESPACES``."""
    loose: int
    """Tools without a namespace."""
    unmatched: tuple[str, ...]
    """The query's words the best tool does not answer."""
    suggestion: str
    """A query to try next: the best matching namespace and the query's words some
    tool knows ("" when no namespace matched)."""

    def data(self) -> dict[str, Any]:
        """The hint as plain data (``search_tools``' structured output)."""
        return {
            "namespaces": [
                {"name": s.name, "description": s.description, "tools": s.tools}
                for s in self.namespaces
            ],
            "suggested_query": self.suggestion,
            "unmatched": list(self.unmatched),
        }

    def text(self, found: bool) -> str:
        """The hint as the lines a model reads after the tools ``found`` (or none)."""
        lines = []
        if self.unmatched:
            said = ", ".join(f'"{w}"' for w in self.unmatched)
            lines.append(
                f"The best match leaves out {said}." if found else f"No tool answers {said}."
            )
        if self.namespaces:
            lines.append("The tools are grouped in these namespaces:")
            for space in self.namespaces:
                about = f": {' '.join(space.description.split())}" if space.description else ""
                lines.append(f"- {space.name}{about} ({_tools(space.tools)})")
            if self.more:
                lines.append(f"- and {self.more} more namespaces")
        if self.loose:
            lines.append(f"{_tools(self.loose)} without a namespace.")
        if self.suggestion:
            lines.append(
                f'Try "{self.suggestion}", or other words of one namespace; '
                "a namespace's name alone lists its tools."
            )
        elif self.namespaces:
            lines.append(
                "Try a namespace's name with the words its tools would use; "
                "a namespace's name alone lists its tools."
            )
        return "\n".join(lines)


def hint(index: ToolIndex, ranked: Ranked, query: str) -> Hint:
    """The hint for ``ranked``, the result of ``query`` on ``index``."""
    counts = Counter(n for n in index.namespaces if n)
    matched, others = index.rank_namespaces(query)
    order = matched + others
    listed = tuple(Space(n, _summary(index, n), counts[n]) for n in order[:MAX_NAMESPACES])
    loose = sum(1 for n in index.namespaces if not n)
    return Hint(
        listed,
        max(0, len(order) - MAX_NAMESPACES),
        loose,
        tuple(ranked.unmatched),
        _suggestion(index, ranked, matched[0]) if matched else "",
    )


def _summary(index: ToolIndex, name: str) -> str:
    """A namespace's description, its first sentence only (a hint lists many)."""
    described = index.spaces.get(name)
    if described is None:
        return ""
    text = " ".join(described.description.split())
    cut = _SENTENCE_END.search(text)
    return text[: cut.start() + 1] if cut else text


def _suggestion(index: ToolIndex, ranked: Ranked, best: str) -> str:
    """``best`` (a namespace's name), then the query's words some tool knows."""
    known = [w for i, w in enumerate(ranked.query.words) if i in _answered(index, ranked)]
    own = set(best.lower().replace("_", " ").replace(".", " ").split())
    return " ".join([best, *(w for w in known if w.lower() not in own)])


def _answered(index: ToolIndex, ranked: Ranked) -> set[int]:
    """The query's words that some tool or namespace has a term for."""
    found: set[int] = set()
    for concept in ranked.query.concepts:
        if concept.sources and index.scores(concept):
            found |= concept.sources
    return found


def _tools(n: int) -> str:
    return f"{n} tool" if n == 1 else f"{n} tools"
