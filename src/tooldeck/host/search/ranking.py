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
(``create``, ``list``... the first groups of ``synonyms.py``, said by the request's
first action word or implied) matches the head of a tool's name (its first word)
fully and other text at ``ACTION_PLAIN``, with ``ACTION_IDF`` added to its idf:
every tool has an action, yet the action is what tells apart the tools of one thing
(``create_refund``, ``get_refund``). A tool must match something the query says in
words; the implied lookup only orders them. Ties keep the order the entries were
given in, so a result never depends on hashing or on which tools happen to score
alike.

With the ``semantic`` extra installed (``semantic.py``), the tools closest in meaning
to the query are ranked too, and the two rankings are fused by reciprocal rank
(``FUSION_K``, ``SEMANTIC_SHARE``): a tool both find rises, and one no word of the query
names can still rise ("a programming mistake to fix" → ``update_issue``). Meaning
only joins words: a query no tool shares a word with still finds nothing (and
``search_tools`` shows where the tools are); a tool found by meaning alone joins only
when it is at least as close in meaning as one of the first ``limit`` tools the words
found (so a small catalog's unrelated tools do not fill the limit); and a best tool
found by meaning alone makes the result weak (``ranked.py``). The extra also lends the
words a query uses and no tool does their closest catalog words (``Neighbours``,
``query.py``).

The index is built once per snapshot (``ToolIndex.of``, on the first search) and a
query only touches the tools that share a term with it (or with their namespace), plus
one matrix-vector product with the extra.
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
from tooldeck.host.search.semantic import Neighbours, Vectors, installed, tool_text
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
FUSION_K = 5
"""Reciprocal-rank fusion: a tool at rank ``r`` (from 0) of a ranking scores
``share / (FUSION_K + r)``; a small ``FUSION_K`` keeps each ranking's first places
decisive."""
SEMANTIC_SHARE = 0.5
"""The meaning ranking's share in the fusion (the word ranking's is 1): words the
person used still come first."""
FUSION_DEPTH = 100
"""How deep each ranking is read for the fusion (at least the limit asked)."""


class ToolIndex:
    """The tools and namespaces of one catalog, ready to rank; ``search`` returns the
    tools' positions in the order they were given."""

    __slots__ = (
        "_members",
        "_neighbours",
        "_spaces",
        "_tools",
        "_vectors",
        "namespaces",
        "space_names",
        "spaces",
    )

    def __init__(
        self,
        tools: Sequence[Sequence[Field]],
        namespaces: Sequence[str | None] = (),
        spaces: Mapping[str, NamespaceEntry] | None = None,
        semantic: bool = True,
    ) -> None:
        self.namespaces = tuple(namespaces) or (None,) * len(tools)
        """Each tool's namespace."""
        self.spaces: Mapping[str, NamespaceEntry] = spaces or {}
        """The namespaces' descriptions the index was given."""
        self.space_names = tuple(sorted({n for n in self.namespaces if n}))
        """The namespaces of the tools, sorted (a namespace document each)."""
        described = [namespace_fields(n, self.spaces.get(n)) for n in self.space_names]
        embedder = installed() if semantic else None
        spelled: dict[str, str] = {}  # filled only for the embedder's neighbours
        counted = count([*tools, *described], spelled if embedder is not None else None)
        self._tools = Bm25(counted[: len(tools)])
        self._spaces = Bm25(counted[len(tools) :])
        number = {n: i for i, n in enumerate(self.space_names)}
        members: list[list[int]] = [[] for _ in self.space_names]
        for position, n in enumerate(self.namespaces):
            if n:
                members[number[n]].append(position)
        self._members = tuple(tuple(m) for m in members)
        self._vectors = self._neighbours = None
        if embedder is not None:
            said = {n: f"{n}. {s.description}" for n, s in self.spaces.items()}
            texts = [_tool_text(fields) for fields in tools]
            self._vectors = Vectors(embedder, texts, self.namespaces, said)
            self._neighbours = Neighbours(embedder, spelled)

    @classmethod
    def of(
        cls,
        entries: Iterable[CatalogEntry],
        namespaces: Mapping[str, NamespaceEntry],
        semantic: bool = True,
    ) -> ToolIndex:
        """The index of ``entries`` (in the order given: it breaks ties); ``semantic``
        ranks by meaning too when the extra is installed (``semantic.py``)."""
        listed = list(entries)
        return cls(
            [fields(e) for e in listed], [e.tool.namespace for e in listed], namespaces, semantic
        )

    @property
    def semantic(self) -> bool:
        """Whether this index ranks by meaning too (the extra is installed and wanted)."""
        return self._vectors is not None

    def __len__(self) -> int:
        return len(self.namespaces)

    def __contains__(self, term: object) -> bool:
        """Whether any tool or namespace has ``term`` (a stem)."""
        return term in self._tools or term in self._spaces

    def search(self, query: str, limit: int) -> list[int]:
        """Positions of the best ``limit`` tools for ``query``, best first.

        Tools that share a term with the query (or whose namespace does), and with
        the ``semantic`` extra those closest in meaning when any tool shares a term;
        a query with no terms (empty, or only stop words) lists the first ``limit``
        in order.
        """
        return self.rank(query, limit).positions

    def rank(self, query: str, limit: int, semantic: bool = True) -> Ranked:
        """``search``, with what a weak-result message needs (``ranked.py``);
        ``semantic=False`` ranks by words only, even with the extra."""
        neighbours = self._neighbours if semantic else None
        read = parse(query, self, neighbours.of if neighbours is not None else None)
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
        vectors = self._vectors if semantic else None
        depth = limit if vectors is None else max(limit, FUSION_DEPTH)
        best = heapq.nsmallest(depth, ((-s, d) for d, s in totals.items()))
        positions = [d for _, d in best]
        if vectors is not None and positions:  # nothing worded: nothing, and a hint
            meant = vectors.closest(query, depth, anchors=positions[:limit])
            positions = _fused(positions, meant, limit)
        top = positions[0] if positions else None
        parts = [(c, scored) for c, scored in parts if self._asked(c, scored, top)]
        asked = frozenset(s for c, _ in parts for s in c.sources)
        if top is None:
            return Ranked(positions, read, asked)
        if top not in hits:  # found by meaning alone: it answers no word asked
            return Ranked(positions, read, asked, strength=0.0, worded=False)
        matched = frozenset(i for i in range(len(read.words)) if hits[top] >> i & 1)
        return Ranked(positions, read, asked, matched, self._strength(parts, top))

    def _asked(self, concept: Concept, scored: dict[int, float], top: int | None) -> bool:
        """Whether the weak-result test counts ``concept`` (``ranked.py``): a word some
        tool has, or the synonym table knows; a word no tool has, searched as its
        neighbours in meaning, only when the best tool answers it (the neighbours are
        a guess: they may help, they never make a result weak)."""
        if concept.group is not None:
            return True
        if concept.alternatives[0][0] not in self:  # lent neighbours, or nothing
            return top in scored
        return bool(scored)

    def _strength(self, parts: list[tuple[Concept, dict[int, float]]], doc: int) -> float:
        """``doc``'s score over an ideal tool's, each concept capped at its ideal."""
        got = ideal = 0.0
        for concept, scored in parts:
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
        for position in self.rank(query, len(self), semantic=False).positions:
            space = self.namespaces[position]
            if space:
                seen.setdefault(space)
        return list(seen), [n for n in self.space_names if n not in seen]


def _fused(worded: list[int], meant: list[int], limit: int) -> list[int]:
    """The best ``limit`` of two rankings by reciprocal rank (``FUSION_K``; the meaning
    ranking at ``SEMANTIC_SHARE``); ties in position order."""
    score: dict[int, float] = {}
    for rank, doc in enumerate(worded):
        score[doc] = 1.0 / (FUSION_K + rank)
    for rank, doc in enumerate(meant):
        score[doc] = score.get(doc, 0.0) + SEMANTIC_SHARE / (FUSION_K + rank)
    return [d for _, d in heapq.nsmallest(limit, ((-s, d) for d, s in score.items()))]


def _tool_text(tool: Sequence[Field]) -> str:
    """What a tool's vector is made of (``semantic.tool_text``): its name field and the
    first field after it, its description."""
    name = next((f.text for f in tool if f.name), "")
    described = next((f.text for f in tool if not f.identifier), "")
    return tool_text(name, described)


def _as_scored(concept: Concept) -> tuple[Concept, Concept, float]:
    """How tools score ``concept``: the terms to match, the terms whose rarity is its
    idf, and what to add to that idf. An action matches a name's head (``^creat``)
    fully and other text at ``ACTION_PLAIN``, and is as rare as tools doing it."""
    if not concept.action:
        return concept, concept, 0.0
    heads = tuple((HEAD + t, w) for t, w in concept.alternatives)
    plain = tuple((t, w * ACTION_PLAIN) for t, w in concept.alternatives)
    return (
        replace(concept, alternatives=heads + plain),
        replace(concept, alternatives=heads),
        ACTION_IDF,
    )
