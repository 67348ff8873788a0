"""A ranking's result, and whether it is **weak**: whether the best tool answers what
was asked, or only some of it.

Only the words a tool could be named for count (``asked``): a word some tool or
namespace has a term for, or one the synonym table knows (``oncall`` is a thing tools
are named for even when no tool here is). Other words are taken for values the
person will pass ("greet Ada", "from Boston"), and never make a result weak.

A result is weak when no tool answers anything, when its best tool shares no word with
the query (found by meaning alone, ``semantic.py``), when it answers less than
``WEAK_COVERAGE`` of the asked words, or when it answers them poorly: its score, each
concept's part capped at what a tool named for that concept would score, is less than
``WEAK_STRENGTH`` of that ideal (a tool mentioning ``--no-pager`` once is not an
on-call tool).
"""

from __future__ import annotations

from dataclasses import dataclass

from tooldeck.host.search.query import Query

WEAK_COVERAGE = 0.5
"""A result is weak when its best tool answers less than this share of the asked
words..."""
WEAK_STRENGTH = 0.5
"""...or scores less than this share of what tools named for them would."""


@dataclass(frozen=True, slots=True)
class Ranked:
    """A query's result: positions best first, and how well the best one answers."""

    positions: list[int]
    query: Query
    asked: frozenset[int] = frozenset()
    """The query's words (by index in ``query.words``) a tool could be named for."""
    matched: frozenset[int] = frozenset()
    """Those the best tool answers."""
    strength: float = 1.0
    """The best tool's score over an ideal one (see the module docstring), 0 to 1."""
    worded: bool = True
    """Whether the best tool shares a word with the query (not found by meaning alone)."""

    @property
    def weak(self) -> bool:
        """Whether the best tool answers too little of the query (module docstring)."""
        if not self.query.concepts:
            return False
        if not self.positions or not self.worded:
            return True
        if not self.asked:
            return False
        covered = len(self.matched & self.asked) / len(self.asked)
        return covered < WEAK_COVERAGE or self.strength < WEAK_STRENGTH

    @property
    def unmatched(self) -> list[str]:
        """The asked words the best tool does not answer, in query order."""
        missing = self.asked - self.matched
        return [w for i, w in enumerate(self.query.words) if i in missing]
