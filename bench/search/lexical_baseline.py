"""The lexical ranking tool search used before synonyms, stems and concepts (kept as
the evaluation's baseline, unchanged but for this docstring).

BM25 over a tool's effective name (weight 3), namespace (2), description, namespace
description and parameters (1 each); words split on ``_ . -`` and camelCase, a few
stop words dropped, plurals and ``-ing``/``-ed`` folded.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tooldeck.host.registry.editor import CatalogEntry, NamespaceEntry
from tooldeck.host.registry.record import record_of

K1 = 1.2
B = 0.75
NAME_WEIGHT = 3
NAMESPACE_WEIGHT = 2

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORDS = re.compile(r"[a-z0-9]+")
_STOP_WORDS = """a an and any are as at be by can could do does for from have i in into is it
its me my of on or our please some that the their them these this those to us we what which
with would you your"""
_STOP = frozenset(_STOP_WORDS.split())


def words(text: str) -> list[str]:
    """``text`` as search terms: split (camelCase too), lower-cased, folded, no stop words."""
    found = _WORDS.findall(_CAMEL.sub(" ", text).lower())
    return [_fold(w) for w in found if w not in _STOP]


def _fold(word: str) -> str:
    """A crude, predictable stemmer: enough that ``issues`` finds ``issue``."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed") and not word.endswith("eed"):
        return word[:-2]
    return word


class ToolIndex:
    """BM25 over a fixed sequence of tool documents; ``search`` returns their positions."""

    __slots__ = ("_avg", "_docs", "_idf", "_lengths")

    def __init__(self, documents: Sequence[Counter[str]]) -> None:
        self._docs = tuple(documents)
        self._lengths = tuple(sum(d.values()) for d in self._docs)
        self._avg = (sum(self._lengths) / len(self._docs)) if self._docs else 1.0
        frequency: Counter[str] = Counter()
        for doc in self._docs:
            frequency.update(doc.keys())
        n = len(self._docs)
        self._idf = {t: math.log(1 + (n - df + 0.5) / (df + 0.5)) for t, df in frequency.items()}

    @classmethod
    def of(
        cls, entries: Iterable[CatalogEntry], namespaces: Mapping[str, NamespaceEntry]
    ) -> ToolIndex:
        """The index of ``entries`` (in the order given: it breaks ties)."""
        return cls([document(e, namespaces) for e in entries])

    def __len__(self) -> int:
        return len(self._docs)

    def search(self, query: str, limit: int) -> list[int]:
        """Positions of the best ``limit`` documents for ``query``, best first.

        Only documents sharing a term with the query are returned; a query with no
        terms (empty, or only stop words) lists the first ``limit`` in order.
        """
        terms = [t for t in dict.fromkeys(words(query)) if t in self._idf]
        if not words(query):
            return list(range(min(limit, len(self._docs))))
        scored = []
        for position, doc in enumerate(self._docs):
            score = self._score(doc, self._lengths[position], terms)
            if score > 0:
                scored.append((-score, position))
        scored.sort()
        return [position for _, position in scored[:limit]]

    def _score(self, doc: Counter[str], length: int, terms: list[str]) -> float:
        norm = K1 * (1 - B + B * length / self._avg)
        total = 0.0
        for term in terms:
            tf = doc.get(term)
            if tf:
                total += self._idf[term] * tf * (K1 + 1) / (tf + norm)
        return total


def document(entry: CatalogEntry, namespaces: Mapping[str, NamespaceEntry]) -> Counter[str]:
    """The weighted terms of one tool (see the module docstring for the weights)."""
    tool = entry.tool
    terms: Counter[str] = Counter()
    for term in words(entry.name.replace("-", " ")):
        terms[term] += NAME_WEIGHT
    if tool.namespace:
        for term in words(tool.namespace):
            terms[term] += NAMESPACE_WEIGHT
        described = namespaces.get(tool.namespace)
        if described is not None:
            terms.update(words(described.description))
    terms.update(words(tool.description))
    terms.update(words(" ".join(_parameter_text(record_of(tool).input_schema))))
    return terms


def _parameter_text(schema: Mapping[str, Any]) -> list[str]:
    """The top-level parameters' names and descriptions."""
    found: list[str] = []
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return found
    for key, sub in properties.items():
        found.append(str(key))
        text = sub.get("description") if isinstance(sub, Mapping) else None
        if isinstance(text, str):
            found.append(text)
    return found
