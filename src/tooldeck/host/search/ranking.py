"""One ranking for every tool search: BM25 over what a model can read about a tool,
with the query read as a person means it.

Code mode's ``search()``, the native ``search_tools`` tool and a client-executed
Responses ``tool_search_call`` all rank with ``ToolIndex``, so a query finds the same
tools whichever way the model asks.

Two kinds of document (``documents.py``), each scored with BM25 (``bm25.py``): a
**tool** (its name, description and parameters) and a **namespace** (its path and
description). A tool gets ``NAMESPACE_SHARE`` of its namespace's score, so "gmail" or
"support tickets" point at the right namespace, while the words all of a namespace's
tools share (its description) do not make those words look common among tools.

The query becomes concepts (``query.py``: words, their synonyms, phrases, an implied
lookup); a tool's score is the sum of its concepts' scores. An **action** concept
(``create``, ``list``... the first groups of ``synonyms.py``) matches the head of a
tool's name (its first word) fully and other text at ``ACTION_PLAIN``, with
``ACTION_IDF`` added to its idf: every tool has an action, yet the action is what tells
apart the tools of one thing (``create_refund``, ``get_refund``). A tool must match
something the query says in words; the implied lookup only orders them. Ties keep the
order the entries were given in, so a result never depends on hashing or on which
tools happen to score alike.

The index is built once per snapshot (``ToolIndex.of``, on the first search) and a
query only touches the tools that share a term with it (or with their namespace).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from tooldeck.host.registry.editor import CatalogEntry, NamespaceEntry
from tooldeck.host.search.bm25 import Bm25
from tooldeck.host.search.documents import (
    HEAD,
    NAME_WEIGHT,
    Field,
    count,
    document,
    fields,
    namespace_fields,
)
from tooldeck.host.search.query import Concept, parse
from tooldeck.host.search.ranked import Ranked
from tooldeck.host.search.synonyms import table
from tooldeck.host.search.terms import words

__all__ = ["Ranked", "ToolIndex", "document", "words"]

NAMESPACE_SHARE = 1.0
"""A namespace's score, as a share added to each of its tools'."""
ACTION_PLAIN = 0.3
"""An action matches a name's head fully, anywhere else at this share."""
ACTION_IDF = 1.0
"""Added to an action's idf (``create``, ``list``...): every tool has an action, so
each is common, yet it is what tells apart the tools of one thing (``create_refund``,
``get_refund``)."""


class ToolIndex:
    """The tools and namespaces of one catalog, ready to rank; ``search`` returns the
    tools' positions in the order they were given."""

    __slots__ = ("_members", "_spaces", "_tools", "namespaces", "space_names", "spaces")

    def __init__(
        self,
        tools: Sequence[Sequence[Field]],
        namespaces: Sequence[str | None] = (),
        spaces: Mapping[str, NamespaceEntry] | None = None,
    ) -> None:
        self.namespaces = tuple(namespaces) or (None,) * len(tools)
        """Each tool's namespace."""
        self.spaces: Mapping[str, NamespaceEntry] = spaces or {}
        """The namespaces' descriptions the index was given."""
        self.space_names = tuple(sorted({n for n in self.namespaces if n}))
        """The namespaces of the tools, sorted (a namespace document each)."""
        described = [namespace_fields(n, self.spaces.get(n)) for n in self.space_names]
        counted = count([*tools, *described])
        self._tools = Bm25(counted[: len(tools)])
        self._spaces = Bm25(counted[len(tools) :])
        number = {n: i for i, n in enumerate(self.space_names)}
        members: list[list[int]] = [[] for _ in self.space_names]
        for position, n in enumerate(self.namespaces):
            if n:
                members[number[n]].append(position)
        self._members = tuple(tuple(m) for m in members)

    @classmethod
    def of(
        cls, entries: Iterable[CatalogEntry], namespaces: Mapping[str, NamespaceEntry]
    ) -> ToolIndex:
        """The index of ``entries`` (in the order given: it breaks ties)."""
        listed = list(entries)
        return cls([fields(e) for e in listed], [e.tool.namespace for e in listed], namespaces)

    def __len__(self) -> int:
        return len(self.namespaces)

    def __contains__(self, term: object) -> bool:
        """Whether any tool or namespace has ``term`` (a stem)."""
        return term in self._tools or term in self._spaces

    def search(self, query: str, limit: int) -> list[int]:
        """Positions of the best ``limit`` tools for ``query``, best first.

        Only tools that share a term with the query (or whose namespace does) are
        returned; a query with no terms (empty, or only stop words) lists the first
        ``limit`` in order.
        """
        return self.rank(query, limit).positions

    def rank(self, query: str, limit: int) -> Ranked:
        """``search``, with what a weak-result message needs (``ranked.py``)."""
        read = parse(query, self)
        if not read.concepts:
            return Ranked(list(range(min(limit, len(self)))), read)
        totals: dict[int, float] = {}
        hits: dict[int, int] = {}  # a tool -> the query's words it answers, as bits
        parts: list[tuple[Concept, dict[int, float]]] = []
        for concept in read.concepts:
            if concept.implied:
                continue
            scored = self.scores(concept)
            bits = sum(1 << s for s in concept.sources)
            for doc, score in scored.items():
                totals[doc] = totals.get(doc, 0.0) + score * concept.weight
                hits[doc] = hits.get(doc, 0) | bits
            parts.append((concept, scored))
        # A tool must answer something asked in words: the implied lookup only orders.
        for concept in read.concepts:
            if concept.implied:
                for doc, score in self.scores(concept).items():
                    if doc in totals:
                        totals[doc] += score
        best = heapq.nsmallest(limit, ((-s, d) for d, s in totals.items()))
        positions = [d for _, d in best]
        asked = frozenset(
            s for c, scored in parts if scored or c.group is not None for s in c.sources
        )
        if not positions:
            return Ranked(positions, read, asked)
        top = positions[0]
        matched = frozenset(i for i in range(len(read.words)) if hits[top] >> i & 1)
        return Ranked(positions, read, asked, matched, self._strength(parts, top))

    def _strength(self, parts: list[tuple[Concept, dict[int, float]]], doc: int) -> float:
        """``doc``'s score over an ideal tool's, each concept capped at its ideal."""
        got = ideal = 0.0
        for concept, scored in parts:
            if not (scored or concept.group is not None):
                continue
            _, rarity, extra = _as_scored(concept)
            most = self._tools.ideal(rarity, NAME_WEIGHT, extra)
            got += min(scored.get(doc, 0.0), most) * concept.weight
            ideal += most * concept.weight
        return got / ideal if ideal else 1.0

    def scores(self, concept: Concept) -> dict[int, float]:
        """Each tool's score for one concept: its own, plus its namespace's share."""
        found = self._tools.scores(*_as_scored(concept))
        for space, score in self._spaces.scores(concept).items():
            share = score * NAMESPACE_SHARE
            for doc in self._members[space]:
                found[doc] = found.get(doc, 0.0) + share
        return found

    def rank_namespaces(self, query: str) -> tuple[list[str], list[str]]:
        """The namespaces whose tools match ``query``, in the order their best tool
        ranks, and the others in name order."""
        seen: dict[str, None] = {}
        for position in self.rank(query, len(self)).positions:
            space = self.namespaces[position]
            if space:
                seen.setdefault(space)
        return list(seen), [n for n in self.space_names if n not in seen]


def _as_scored(concept: Concept) -> tuple[Concept, Concept, float]:
    """How tools score ``concept``: the terms to match, the terms whose rarity is its
    idf, and what to add to that idf. An action matches a name's head (``^creat``)
    fully and other text at ``ACTION_PLAIN``, and is as rare as tools doing it."""
    if not _is_action(concept):
        return concept, concept, 0.0
    heads = tuple((HEAD + t, w) for t, w in concept.alternatives)
    plain = tuple((t, w * ACTION_PLAIN) for t, w in concept.alternatives)
    return (
        replace(concept, alternatives=heads + plain),
        replace(concept, alternatives=heads),
        ACTION_IDF,
    )


def _is_action(concept: Concept) -> bool:
    return concept.implied or concept.group in table().actions
