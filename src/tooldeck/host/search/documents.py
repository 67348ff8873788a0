"""What the index reads about a tool and a namespace: weighted fields, counted as terms.

A **tool** is its name without the namespace prefix (weight ``NAME_WEIGHT``), its
description and each parameter's name and description (weight 1). A **namespace** is
its path (``NAMESPACE_WEIGHT``) and its description. Text becomes terms with
``terms.py``; then three things tool names need:

- the name's first word is also counted as its **head** (``HEAD`` + term), because
  that is where names put what the tool does (``create_issue``, ``list_files``);
- an action word later in a name is part of what the tool acts on
  (``move_send_as_alias``, ``delete_scheduled_message``) and counts as description
  text (weight 1), not as the name's action;
- a name or namespace token that is two known words in one (``webfetch``,
  ``playback``) also counts as its halves, at ``COMPOUND_SHARE`` of its weight, the
  vocabulary being every term of the catalog and of the synonym table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tooldeck.host.registry.editor import CatalogEntry, NamespaceEntry
from tooldeck.host.registry.record import record_of
from tooldeck.host.search.synonyms import table
from tooldeck.host.search.terms import compound_parts, joined, meaningful, term, tokens

NAME_WEIGHT = 3
NAMESPACE_WEIGHT = 2
COMPOUND_SHARE = 0.5
"""A compound's halves count this share of the compound's own weight."""
HEAD = "^"
"""Prefix of a name's first word counted again as its head (``^creat``)."""


@dataclass(frozen=True, slots=True)
class Field:
    """Raw text of one field of a document, and its weight."""

    text: str
    weight: float
    identifier: bool = False
    """Names and namespaces: their compounds are split (``webfetch``)."""
    name: bool = False
    """A tool's name: its first word is its head, later action words count as text."""


def fields(entry: CatalogEntry) -> list[Field]:
    """The weighted fields of one tool (see the module docstring for the weights)."""
    tool = entry.tool
    name = entry.name
    prefix = f"{tool.namespace.replace('.', '_')}_" if tool.namespace else ""
    if prefix and name.startswith(prefix):
        name = name[len(prefix) :]  # the namespace is a document of its own
    return [
        Field(name, NAME_WEIGHT, identifier=True, name=True),
        Field(tool.description, 1),
        *(Field(text, 1) for text in _parameter_text(record_of(tool).input_schema)),
    ]


def namespace_fields(name: str, described: NamespaceEntry | None) -> list[Field]:
    """The weighted fields of one namespace."""
    found = [Field(name, NAMESPACE_WEIGHT, identifier=True)]
    if described is not None:
        found.append(Field(described.description, 1))
    return found


def document(entry: CatalogEntry) -> dict[str, float]:
    """The weighted terms of one tool, as the index counts them (for tests and tuning)."""
    return count([fields(entry)])[0]


def count(
    documents: Sequence[Sequence[Field]], spelled: dict[str, str] | None = None
) -> list[dict[str, float]]:
    """Weighted term counts of each document (heads, action words in names and
    compounds as the module docstring says); ``spelled``, when given, gets each term
    of three letters or more and the first token written for it (``semantic.py``
    embeds words, not stems)."""
    # Catalogs repeat texts (parameter descriptions, boilerplate sentences): each
    # distinct text is read once per build.
    read: dict[str, list[tuple[str, str]]] = {}
    tokenized = []
    for doc in documents:
        fields = []
        for f in doc:
            pairs = read.get(f.text)
            if pairs is None:
                pairs = read[f.text] = [(t, term(t)) for t in meaningful(joined(tokens(f.text)))]
            fields.append((f, pairs))
        tokenized.append(fields)
    if spelled is not None:
        for pairs in read.values():
            for token, key in pairs:
                if len(token) > 2 and token.isalpha():
                    spelled.setdefault(key, token)
    synonyms = table()
    known: set[str] = set(synonyms.groups)
    for pairs in read.values():
        known.update(key for _, key in pairs)
    actions = {t for t, groups in synonyms.groups.items() if set(groups) & synonyms.actions}
    splits: dict[str, tuple[str, str] | None] = {}
    counted = []
    for fields in tokenized:
        counts: dict[str, float] = {}
        for field, pairs in fields:
            for place, (token, key) in enumerate(pairs):
                weight = field.weight
                if field.name and place and key in actions:
                    weight = 1.0
                counts[key] = counts.get(key, 0.0) + weight
                if field.name and not place:
                    counts[HEAD + key] = counts.get(HEAD + key, 0.0) + weight
                if not field.identifier:
                    continue
                if token not in splits:
                    splits[token] = compound_parts(token, known)
                for part in splits[token] or ():
                    counts[part] = counts.get(part, 0.0) + weight * COMPOUND_SHARE
        counted.append(counts)
    return counted


def _parameter_text(schema: Mapping[str, Any]) -> list[str]:
    """The top-level parameters' names and descriptions, one text each."""
    found: list[str] = []
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return found
    for key, sub in properties.items():
        text = sub.get("description") if isinstance(sub, Mapping) else None
        found.append(f"{key} {text}" if isinstance(text, str) else str(key))
    return found
