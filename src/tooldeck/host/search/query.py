"""A query as **concepts**: what the person asked for, each with the terms that say it.

"send an email" → ``send`` (or ``create``, ``post``, ``add``...) and ``email`` (or
``message``, ``mail``...); "undo a payment" → the ``refund`` group, found as one of its
phrases. A concept scores a tool by its best term (``bm25.py``), so a word with many
synonyms counts once, never once per synonym.

Steps (``terms.py`` for tokens, frames, joins, stop words and stems; frames such as
"show me how to" go before anything is read):

1. phrases of the synonym table are found first, stop words between their words
   skipped ("how many", "undo a payment", "get rid of"); a phrase's own words stay
   literal where its group lists them alone ("direct message" keeps ``message``);
2. the other words, stop words dropped, are looked up: a word gives one concept per
   synonym group it is in (``pause`` is an ``update`` and a ``playback`` word), and a
   word in no group a concept of its own;
3. a word the index does not know is split into two words it knows when it can be
   (``todolist`` → ``todo``, ``list``), or joined with the next one (``time zone`` →
   ``timezone``); failing both, with the ``semantic`` extra, it is searched as the
   catalog's words closest to it in meaning (``related``: "altitude" → ``elevation``),
   each at ``SYNONYM_WEIGHT`` times its closeness;
4. words of one group make one concept ("create a new" asks for one thing); a
   possessive ("a customer's order") counts ``POSSESSIVE_WEIGHT``;
5. a question ("what's on my agenda today") or a request that names no action
   ("storm warnings near me") gets an implied ``LOOKUP`` concept (get, list,
   search...): it asks to see something; but a request whose first word is followed
   by a determiner uses that word as a verb ("pin a message", "charge a card", "email
   the team"), and a noun used as a verb asks to make one: an implied ``MAKE``
   concept (create, add...) instead;
6. a request names one action, its first: an action word after it is part of what
   the request is about ("set up a database for my reading list", "a play count"),
   so only the first action word's concepts are *actions* (``Concept.action``), the
   others plain words.

Each concept remembers which of the query's words (its *sources*) it answers, so the
weak-result test (``ranked.py``) counts words, not synonyms.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, replace

from tooldeck.host.search.synonyms import (
    DETERMINERS,
    QUESTION_WORDS,
    SYNONYM_WEIGHT,
    Table,
    table,
)
from tooldeck.host.search.terms import (
    SPELLED,
    STOP_WORDS,
    compound_parts,
    joined,
    term,
    tokens,
    unframed,
)

Related = Callable[[str], Sequence[tuple[str, float]]]
"""A word → the catalog's terms closest to it in meaning, with their closeness."""

POSSESSIVE_WEIGHT = 0.5
"""What a possessive's concept counts ("cancel a customer's order": the order)."""


@dataclass(frozen=True, slots=True)
class Concept:
    """One thing the query asks for, and the terms that say it."""

    alternatives: tuple[tuple[str, float], ...]
    """``(term, weight)``: the query's own terms at 1.0 first, then synonyms."""
    sources: frozenset[int]
    """Which of the query's words (``Query.words``) it answers."""
    group: int | None = None
    """Its synonym group (``synonyms.GROUPS``), ``None`` for a word in none."""
    weight: float = 1.0
    """How much it counts: less for a possessive ("a customer's order" is an order)."""
    action: bool = False
    """What the request does (``ranking.py`` matches it at a name's head): the implied
    concept, or the request's first action word (step 6)."""

    @property
    def implied(self) -> bool:
        """Not asked in words (the ``LOOKUP`` of a request that names no action)."""
        return not self.sources


@dataclass(frozen=True, slots=True)
class Query:
    """A query read: its words (and phrases) as written, and its concepts."""

    words: tuple[str, ...]
    concepts: tuple[Concept, ...]


def parse(text: str, known: Container[str], related: Related | None = None) -> Query:
    """``text`` as concepts; ``known`` is the index's vocabulary (for compounds),
    ``related`` what stands in for a word it lacks (step 3; none without it)."""
    raw = joined(unframed(tokens(text)))
    stems = [term(t) for t in raw]
    synonyms = table()
    words: list[str] = []
    found: list[Concept] = []
    i = 0
    while i < len(raw):
        matched = _longest_phrase(stems, raw, i, synonyms)
        if matched is not None:
            end, phrase = matched
            words.append(" ".join(raw[i:end]))
            for group in synonyms.phrases[phrase]:
                found.append(_grouped((), group, set(phrase), len(words) - 1, synonyms))
            i = end
            continue
        if _is_stop(raw[i]):
            i += 1
            continue
        step = _joined_with_next(raw, i, known)
        if step is not None:
            words.append(f"{raw[i]} {raw[step - 1]}")
            stem = term(raw[i] + raw[step - 1])
            found += _word(raw[step - 1], stem, known, synonyms, len(words) - 1, related)
            i = step
            continue
        words.append(SPELLED.get(raw[i], raw[i]))
        concepts = _word(raw[i], stems[i], known, synonyms, len(words) - 1, related)
        if i + 1 < len(raw) and raw[i + 1] == "s":  # customer's: says whose, not what
            concepts = [replace(c, weight=POSSESSIVE_WEIGHT) for c in concepts]
        found += concepts
        i += 1
    merged = _first_action(_merged(found), synonyms)
    question = bool(raw) and raw[0] in QUESTION_WORDS
    if merged and (question or not any(c.group in synonyms.actions for c in merged)):
        verb = not question and _opens_with_verb(raw)
        implied = synonyms.make if verb else synonyms.lookup
        said = tuple((t, SYNONYM_WEIGHT) for t in implied)
        merged.append(Concept(said, frozenset(), action=True))
    return Query(tuple(words), tuple(merged))


def _first_action(concepts: list[Concept], synonyms: Table) -> list[Concept]:
    """``concepts`` with those of the first action word marked ``action`` (step 6):
    a word in two action groups ("close": ``update``, ``archive``) marks both."""
    acting = [c for c in concepts if c.group in synonyms.actions]
    if not acting:
        return concepts
    first = min(min(c.sources) for c in acting)
    return [
        replace(c, action=True) if c.group in synonyms.actions and first in c.sources else c
        for c in concepts
    ]


def _opens_with_verb(raw: list[str]) -> bool:
    """Whether the request's first word is a verb: a word of its own followed by a
    determiner ("pin a message"; not "storm warnings", not "my calendar")."""
    return len(raw) > 1 and not _is_stop(raw[0]) and raw[1] in DETERMINERS


def _is_stop(token: str) -> bool:
    return token in STOP_WORDS or (len(token) == 1 and not token.isdigit())


def _longest_phrase(
    stems: list[str], raw: list[str], start: int, synonyms: Table
) -> tuple[int, tuple[str, ...]] | None:
    """The longest synonym phrase starting at ``start``: where it ends (exclusive) and
    its terms; ``None`` when none starts there."""
    for phrase in synonyms.starts.get(stems[start], ()):  # longest first
        end = _match(phrase, stems, raw, start)
        if end is not None:
            return end, phrase
    return None


def _match(phrase: tuple[str, ...], stems: list[str], raw: list[str], start: int) -> int | None:
    """Where ``phrase`` ends if the query has it at ``start``, stop words between its
    words skipped (a phrase's own stop words, like ``how``, must be there)."""
    k, i = 0, start
    while i < len(stems) and k < len(phrase):
        if stems[i] == phrase[k]:
            k += 1
        elif not _is_stop(raw[i]):
            return None
        i += 1
    return i if k == len(phrase) else None


def _joined_with_next(raw: list[str], i: int, known: Container[str]) -> int | None:
    """Where a two-word compound starting at ``i`` ends, when the index knows it as one
    word (``sun rise`` → ``sunrise``, ``time zone`` → ``timezone``); two short words
    it knows apart stay apart (``to do`` is ``JOINS``' business)."""
    nxt = i + 1
    if nxt >= len(raw) or _is_stop(raw[nxt]):
        return None
    if not (raw[i].isalpha() and raw[nxt].isalpha()) or term(raw[i] + raw[nxt]) not in known:
        return None
    halves_known = term(raw[i]) in known and term(raw[nxt]) in known
    return nxt + 1 if not halves_known or len(raw[i]) + len(raw[nxt]) >= 7 else None


def _word(
    token: str,
    stem: str,
    known: Container[str],
    synonyms: Table,
    source: int,
    related: Related | None = None,
) -> list[Concept]:
    """The concepts of one word: one per group it is in, or its own (with the words
    ``related`` lends when the index does not know it)."""
    groups = synonyms.groups.get(stem, ())
    if not groups and stem not in known:
        parts = compound_parts(token, known)
        if parts is not None:
            return [c for part in parts for c in _word(part, part, known, synonyms, source)]
        if related is not None and token.isalpha():
            lent = tuple((t, SYNONYM_WEIGHT * near) for t, near in related(token))
            return [Concept(((stem, 1.0), *lent), frozenset({source}))]
    if not groups:
        return [Concept(((stem, 1.0),), frozenset({source}))]
    # The word itself counts in its first group only: in two groups (``file`` a ticket,
    # a ``file``), a tool naming it must not score it twice.
    first, *others = groups
    return [
        _grouped((stem,), first, {stem}, source, synonyms),
        *(_grouped((), g, set(), source, synonyms, leave=stem) for g in others),
    ]


def _grouped(
    literal: tuple[str, ...],
    group: int,
    own: set[str],
    source: int,
    synonyms: Table,
    leave: str = "",
) -> Concept:
    """A concept of ``group``: ``literal`` and the members among ``own`` at 1.0, the
    group's other one-word members (but ``leave``) at ``SYNONYM_WEIGHT``."""
    weights = {t: 1.0 for t in literal}
    for member in synonyms.members[group]:
        if member != leave and member not in weights:
            weights[member] = 1.0 if member in own else SYNONYM_WEIGHT
    return Concept(_ordered(weights), frozenset({source}), group)


def _ordered(weights: dict[str, float]) -> tuple[tuple[str, float], ...]:
    """Heaviest first; among equals, the order they came in."""
    return tuple(sorted(weights.items(), key=lambda tw: -tw[1]))


def _merged(found: list[Concept]) -> list[Concept]:
    """One concept per group, and per word outside any group."""
    out: list[Concept] = []
    for concept in found:
        into = next((i for i, c in enumerate(out) if _same(c, concept)), None)
        if into is None:
            out.append(concept)
            continue
        weights = dict(out[into].alternatives)
        for t, w in concept.alternatives:
            weights[t] = max(w, weights.get(t, 0.0))
        sources = out[into].sources | concept.sources
        out[into] = replace(out[into], alternatives=_ordered(weights), sources=sources)
    return out


def _same(a: Concept, b: Concept) -> bool:
    """Whether ``b`` says what ``a`` says: the same group, or the same lone word."""
    if a.group is not None or b.group is not None:
        return a.group == b.group
    return a.alternatives == b.alternatives
