"""BM25 over documents of weighted terms, scoring a query's concepts.

A concept counts as one term. Its frequency in a document is the best of its terms'
(each frequency times the term's weight: 1 for the query's own word, less for a
synonym), and its rarity (idf) is that of the query's own words, or of all its terms
when it has none (a phrase, an implied lookup). So a rare synonym never outweighs the
word the person used, a common one never dilutes it, and a document naming two
synonyms of one concept is not counted twice.

k1 = 1.2 and b = 0.75, the usual values; the document frequencies and length norms are
computed once, when the index is built.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from tooldeck.host.search.query import Concept

K1 = 1.2
B = 0.75


class Bm25:
    """The postings and length norms of a fixed sequence of documents."""

    __slots__ = ("_norms", "_postings", "size")

    def __init__(self, counted: Sequence[Mapping[str, float]]) -> None:
        self.size = len(counted)
        lengths = [sum(c.values()) for c in counted]
        average = (sum(lengths) / len(lengths)) if lengths else 1.0
        self._norms = [K1 * (1 - B + B * n / average) for n in lengths]
        self._postings: dict[str, dict[int, float]] = {}
        for doc, counts in enumerate(counted):
            for key, tf in counts.items():
                self._postings.setdefault(key, {})[doc] = tf

    def __contains__(self, term: object) -> bool:
        """Whether any document has ``term``."""
        return term in self._postings

    def scores(
        self, concept: Concept, rarity: Concept | None = None, extra_idf: float = 0.0
    ) -> dict[int, float]:
        """The concept's BM25 score in each document that has any of its terms; its idf
        is ``rarity``'s (default: its own) plus ``extra_idf``."""
        tf: dict[int, float] = {}
        for alternative, weight in concept.alternatives:
            for doc, count in self._postings.get(alternative, {}).items():
                value = count * weight
                if value > tf.get(doc, 0.0):
                    tf[doc] = value
        idf = self.idf(rarity or concept) + extra_idf
        norms = self._norms
        return {doc: idf * f * (K1 + 1) / (f + norms[doc]) for doc, f in tf.items()}

    def idf(self, concept: Concept) -> float:
        """How rare the concept is: by the documents with the query's own words, or
        with any of its terms when it has none (a phrase, an implied lookup)."""
        own = [t for t, weight in concept.alternatives if weight == 1.0]
        df = _union(self._postings, own) or _union(
            self._postings, (t for t, _ in concept.alternatives)
        )
        return math.log(1 + (self.size - df + 0.5) / (df + 0.5))

    def ideal(self, concept: Concept, frequency: float, extra_idf: float = 0.0) -> float:
        """The score of a document of average length holding the concept's own word
        ``frequency`` times (what a tool named for it would score)."""
        return (self.idf(concept) + extra_idf) * frequency * (K1 + 1) / (frequency + K1)


def _union(postings: Mapping[str, Mapping[int, float]], terms: Iterable[str]) -> int:
    """How many documents hold any of ``terms``."""
    found = [postings[t] for t in terms if t in postings]
    if len(found) == 1:
        return len(found[0])
    docs: set[int] = set()
    for posting in found:
        docs.update(posting)
    return len(docs)
