"""Permission patterns, and ``Ruleset``: ordered rules where the last match wins.

This module is pure (no I/O, no asks); ``tooldeck.host.permissions.permission`` layers the
Location's policy, saved approvals and the asker on top of it.

One small pattern language serves actions, paths and commands.

Only ``*``, ``?`` and ``**`` are special; every other character is literal (no
character classes, no escapes). A pattern always has to match the *whole* text.

A pattern is read in one of two modes, chosen from the pattern itself:

* **Path patterns** contain a ``/`` and no whitespace (``/home/me/src/*.py``,
  ``src/**``, ``~/notes/*``). They follow glob habits: ``*`` and ``?`` stay inside one
  path segment, ``**`` crosses segments, and ``**/`` matches zero or more directories
  (``src/**/*.py`` matches ``src/a.py`` and ``src/x/y/a.py``). A leading ``~`` is the
  home directory.
* **Everything else** (action names, commands such as ``git status *``, bare names
  such as ``*.env``): ``*`` matches any run of characters, ``/`` included, and ``?``
  any one character. So ``*`` alone matches everything, ``*.env`` matches an ``.env``
  file at any depth, and ``rm -rf /*`` matches ``rm -rf /usr/lib``.

In both modes ``**/`` means "zero or more directories", and a trailing ``" *"`` also
matches the bare text before it: ``git status *`` matches ``git status --short`` and
``git status`` alike (a command with any arguments, or none).

Why two modes: a rule about files wants ``src/*`` to mean "files directly in src", while
a rule about commands wants ``git diff *`` to cover ``git diff src/a.py``. Commands nearly
always contain a space and path patterns almost never do, so the pattern says which it
is. The cost, stated plainly: a path pattern containing a space is read as a command
pattern, where ``*`` also crosses ``/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeAlias

from tooldeck._public import public
from tooldeck.host.config.config import PermissionRule

if TYPE_CHECKING:
    from tooldeck.host.schema.patterns import LinearRegex

Effect: TypeAlias = Literal["allow", "ask", "deny"]
RuleLike: TypeAlias = PermissionRule | Mapping[str, str]
"""A rule as hosts may spell it: a config ``PermissionRule`` or a plain dict."""

_TAIL = " *"


def match(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches the whole of ``text``."""
    return compile_pattern(pattern).fullmatch(text)


def is_path_pattern(pattern: str) -> bool:
    """Path mode: the pattern contains ``/`` and no whitespace (see the module docstring)."""
    return "/" in pattern and not any(char.isspace() for char in pattern)


def matches_everything(pattern: str) -> bool:
    """Whether ``pattern`` matches every possible text (``*``, ``**``, ...)."""
    return bool(pattern) and pattern.strip("*") == ""


def compile_pattern(pattern: str) -> LinearRegex:
    """The compiled regular expression for ``pattern`` (cached per pattern). Matched by
    RE2, in time linear in the text: a resource is model input (a shell command, a path)
    and ``* --force *`` as a backtracking regex is quadratic in it."""
    path = is_path_pattern(pattern)
    if pattern == "~" or pattern.startswith("~/"):
        # Expanded on every call (cheap) so the cache never holds a stale home.
        pattern = str(Path.home()) + pattern[1:]
    return _compile(pattern, path)


@lru_cache(maxsize=2048)
def _compile(pattern: str, path: bool) -> LinearRegex:
    from tooldeck.host.schema.patterns import LinearRegex  # with the first rule matched

    if pattern.endswith(_TAIL) and not path:
        return LinearRegex("(?s)" + _translate(pattern[: -len(_TAIL)], path) + "(?: .*)?")
    return LinearRegex("(?s)" + _translate(pattern, path))


def _translate(pattern: str, path: bool) -> str:
    """Regex source for ``pattern``; ``path`` keeps ``*`` and ``?`` inside a segment."""
    star, one = ("[^/]*", "[^/]") if path else (".*", ".")
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            char = pattern[i]
            out.append(star if char == "*" else one if char == "?" else re.escape(char))
            i += 1
    return "".join(out)


@public
@dataclass(frozen=True, slots=True)
class Ruleset:
    """Ordered rules, last match wins; frozen and hashable.

    Also the ``Visibility`` a host passes to ``service.snapshot(permissions=...)``.
    Visibility is not authorization: a hidden tool is only left out of the catalog, and
    a visible one still asserts its permissions when it executes.
    """

    rules: tuple[PermissionRule, ...] = ()
    # Hashing pydantic rules is slow and a snapshot cache hashes the ruleset per request.
    _hash: int = field(default=0, init=False, repr=False, compare=False)
    # Whether any rule denies: without one, nothing is hidden (``hidden``), decided
    # without matching a pattern (the usual Location: a snapshot need not load RE2).
    _denies: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash(self.rules))
        object.__setattr__(self, "_denies", any(r.effect == "deny" for r in self.rules))

    def __hash__(self) -> int:
        return self._hash

    @classmethod
    def from_rules(cls, rules: Iterable[RuleLike]) -> Ruleset:
        """Build from ``PermissionRule`` objects or ``{action, resource, effect}`` dicts."""
        return cls(tuple(_rule(item) for item in rules))

    def rule_for(self, action: str, names: Sequence[str]) -> PermissionRule | None:
        """The last rule matching ``action`` and any of ``names`` (aliases of one resource)."""
        for rule in reversed(self.rules):
            if match(rule.action, action) and any(match(rule.resource, n) for n in names):
                return rule
        return None

    def evaluate(self, action: str, resource: str) -> Effect:
        """The effect for one resource; ``ask`` when no rule matches."""
        rule = self.rule_for(action, (resource,))
        return rule.effect if rule is not None else "ask"

    def hidden(self, action: str) -> bool:
        """True only when every resource of ``action`` is denied.

        Walking back from the last rule: a deny on a match-everything resource settles
        it (no later rule overrode it), while any later allow/ask rule for the action
        leaves at least one resource not denied. Narrower denies decide nothing.
        """
        if not self._denies:
            return False
        for rule in reversed(self.rules):
            if not match(rule.action, action):
                continue
            if rule.effect != "deny":
                return False
            if matches_everything(rule.resource):
                return True
        return False


def _rule(item: RuleLike) -> PermissionRule:
    return item if isinstance(item, PermissionRule) else PermissionRule.model_validate(item)
