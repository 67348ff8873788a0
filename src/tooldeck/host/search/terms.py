"""Text to search terms, the same way for a tool's fields and for a query.

1. **Tokens.** Lower-cased runs of letters and digits, identifiers split first:
   ``snake_case``, ``kebab-case``, ``dotted.names`` and ``camelCase``/``HTTPServer``
   come apart; a run mixing letters and digits stays whole (``s3``, ``v2``, ``3pm``)
   and also gives its letters when there are three or more (``oauth2`` → ``oauth2``,
   ``oauth``), so ``oauth`` finds ``oauth2`` while ``3pm`` never matches ``s3``.
2. **Joins.** Spellings of one word in two (``on call``, ``to do``, ``e mail``,
   ``set up``) become that word (``oncall``), before stop words could drop half of it.
3. **Stop words** (``the``, ``my``, ``please``, question words) go, as do single letters.
4. **Stems** (``stemmer.py``): ``issues``, ``issued`` → ``issu``.

A query also loses its **frames** first (``unframed``: "show me how to", "is there a
way to"), words that wrap a request and ask for nothing.

Compounds written as one word (``webfetch``, ``playback``) are split where the index
knows both halves: ``compound_parts``, used by ``ranking.py`` with its vocabulary.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable
from functools import lru_cache

from tooldeck.host.search.stemmer import stem

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_RUNS = re.compile(r"[a-z0-9]+")
_LETTERS = re.compile(r"[a-z]{3,}")

_STOP_WORDS_TEXT = """a about also am an and any are as at be been being by can could did do does
    doing for from had has have he her here him his how i if im in into is it its just
    let me might mine my need of on or our ours please shall she should so some than that
    the their them then there these they this those to us want was we were what whats
    when where which who whom why will with would you your yours
    someone somebody something anyone anybody anything everyone everybody
    called named"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())
"""Words that say nothing about which tool is meant (``all`` and ``new`` are not here:
they ask for ``list`` and ``create``; "send an email to someone" is about the email)."""

_FRAMES_TEXT = """is there a way to, is there any way to, is there a tool that, is there a tool to,
    is there a tool for, a tool that, a tool to, a tool for, find a way to, a way to,
    show me how to, tell me how to, help me,
    i would like to, i d like to, id like to, be able to, lets me, allows me to,
    go ahead and, trying to, try to, looking for a way to, looking for something to,
    looking for something that, looking for a tool to, looking for a tool that,
    can you, could you, would you, will you, can i, could i"""
FRAMES = tuple(
    sorted(
        (tuple(f.split()) for f in " ".join(_FRAMES_TEXT.split()).split(", ")),
        key=len,
        reverse=True,
    )
)
"""Words that frame a request and ask for nothing ("show me how to rename a branch",
"is there a way to cancel an order", "help me find a file"): a query loses them
before it is read, so the request's own verb is its action, not ``show`` or ``find``.
Longest first; a frame's words go only together ("show me my invoices" keeps
``show``). "How do I..." is no frame: it stays a question (``query.py``), which asks to
see as well as to do."""

JOINS: dict[tuple[str, str], str] = {
    ("on", "call"): "oncall",
    ("to", "do"): "todo",
    ("e", "mail"): "email",
    ("set", "up"): "setup",
    ("sign", "in"): "signin",
    ("sign", "up"): "signup",
    ("back", "up"): "backup",
    ("look", "up"): "lookup",
    ("web", "hook"): "webhook",
    ("pull", "request"): "pullrequest",
    ("merge", "request"): "pullrequest",
    ("free", "busy"): "freebusy",
}
"""Two tokens that are one word. Joined on both sides, so ``oncall_shift``,
``on-call shift`` and "who is on call" meet at ``oncall`` (``on`` alone is a stop word).
Keys are the first token as written and the second's stem (``pull requests``)."""
_JOIN_FIRST = frozenset(first for first, _ in JOINS)
SPELLED = {word: f"{first} {second}" for (first, second), word in JOINS.items()}
"""A joined word as people write it (``oncall`` → ``on call``), for messages."""


def tokens(text: str) -> list[str]:
    """``text`` as lower-case tokens, identifiers split (step 1 of the module docstring)."""
    found: list[str] = []
    for run in _RUNS.findall(_CAMEL.sub(" ", text).lower()):
        found.append(run)
        if not run.isalpha() and not run.isdigit():
            found.extend(_LETTERS.findall(run))
    return found


def unframed(raw: list[str]) -> list[str]:
    """``raw`` without the ``FRAMES`` it holds (longest first at each place)."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        frame = next((f for f in FRAMES if tuple(raw[i : i + len(f)]) == f), None)
        if frame is None:
            out.append(raw[i])
            i += 1
        else:
            i += len(frame)
    return out


def joined(raw: list[str]) -> list[str]:
    """``raw`` with the two-token spellings of ``JOINS`` made one token (compared by
    stem: ``pull requests`` is joined too)."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        word = None
        if raw[i] in _JOIN_FIRST and i + 1 < len(raw):
            word = JOINS.get((raw[i], term(raw[i + 1])))
        if word is not None:
            out.append(word)
            i += 2
        else:
            out.append(raw[i])
            i += 1
    return out


def meaningful(raw: Iterable[str]) -> list[str]:
    """``raw`` without stop words and single letters (digits stay: ``v 2``, ``30``)."""
    return [t for t in raw if t not in STOP_WORDS and (len(t) > 1 or t.isdigit())]


@lru_cache(maxsize=65536)
def term(token: str) -> str:
    """The search term of one token (its stem; cached, tokens repeat a lot)."""
    return stem(token)


def words(text: str) -> list[str]:
    """``text`` as search terms: tokens, joins, no stop words, stems."""
    return [term(t) for t in meaningful(joined(tokens(text)))]


def compound_parts(token: str, known: Container[str]) -> tuple[str, str] | None:
    """``token`` split into two known terms of at least three letters each
    (``webfetch`` → ``web``, ``fetch``), preferring the longest known first part;
    ``None`` when no split has both halves known."""
    if len(token) < 6 or not token.isalpha():
        return None
    for cut in range(len(token) - 3, 2, -1):
        left, right = term(token[:cut]), term(token[cut:])
        if left in known and right in known:
            return left, right
    return None
