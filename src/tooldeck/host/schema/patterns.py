"""Matching a JSON Schema ``pattern`` that tooldeck did not write, in bounded time.

A schema's patterns come from packs and mounted MCP servers, and a backtracking engine
(Python's ``re``) can take minutes on a pattern such as ``^(a+)+$``, holding the GIL the
whole time. So no foreign pattern ever reaches ``re``:

* a pattern RE2 accepts (almost all of them) is matched by RE2 (``google-re2``), in time
  linear in the text: safe anywhere, the event loop included;
* the rest (lookaround and backreferences, ECMA-262 features RE2 lacks) are matched by
  the ``regex`` engine under a time bound, releasing the GIL while they run. Every match
  made during one validation draws on one budget (``PATTERN_BUDGET_S``, see
  ``pattern_budget``); past it the match raises ``PatternTimeout``, which the validators
  report as that value's issue. Schemas holding such a pattern are validated off the event
  loop (``has_slow_patterns`` tells the execution boundary so).

Both validators (the compiled fast path and ``jsonschema``'s keywords, replaced in
``bounded_validator_class``) match through ``compile_pattern``, so they agree.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

PATTERN_BUDGET_S: Final = 1.0
"""Seconds one validation may spend matching patterns RE2 cannot run."""

PATTERN_THREADS: Final = 4
"""Worker threads for validations that may meet a slow pattern (``pattern_executor``)."""

_budget = threading.local()
_executor: list[ThreadPoolExecutor] = []
_executor_lock = threading.Lock()


class PatternError(ValueError):
    """Neither engine can compile the pattern; the message says why."""


class PatternTimeout(Exception):
    """A pattern did not finish matching within the validation's budget."""

    def __init__(self, pattern: str) -> None:
        super().__init__(pattern)
        self.pattern = pattern

    def __str__(self) -> str:
        return timeout_message(self.pattern)


def timeout_message(pattern: str) -> str:
    """The issue text for a value that could not be matched against ``pattern`` in time."""
    shown = pattern if len(pattern) <= 80 else pattern[:77] + "..."
    return (
        f"could not be checked against the pattern {shown!r} within "
        f"{PATTERN_BUDGET_S:g} s (the pattern backtracks on this value); send a shorter "
        "or simpler value"
    )


@dataclass(frozen=True, slots=True)
class Pattern:
    """One compiled pattern: ``search(text)`` says whether it matches anywhere in ``text``."""

    source: str
    linear: bool
    search: Callable[[str], bool]


@lru_cache(maxsize=1024)
def compile_pattern(source: str) -> Pattern:
    """The matcher for ``source`` (RE2 when it can, else the bounded ``regex`` engine);
    ``PatternError`` when neither compiles it."""
    linear = _re2_search(source)
    if linear is not None:
        return Pattern(source, True, linear)
    return Pattern(source, False, _bounded_search(source))


def _re2_search(source: str) -> Callable[[str], bool] | None:
    import re2  # type: ignore[import-untyped, unused-ignore]

    options = re2.Options()
    options.log_errors = False  # an unsupported pattern is expected here, not news
    try:
        compiled = re2.compile(source, options)
    except re2.error:
        return None
    search = compiled.search

    def run(text: str) -> bool:
        try:
            return search(text) is not None
        except UnicodeEncodeError:  # lone surrogates: RE2 reads UTF-8, they read as U+FFFD
            return search(_without_surrogates(text)) is not None

    return run


class LinearRegex:
    """A regex tooldeck translated from a foreign pattern (a glob, a permission wildcard)
    whose ``fullmatch`` runs in linear time (RE2): translations such as ``.*a.*a.*b``
    backtrack polynomially in Python's ``re``, on text a model chose."""

    __slots__ = ("_fullmatch", "source")

    def __init__(self, source: str) -> None:
        import re2  # type: ignore[import-untyped, unused-ignore]

        options = re2.Options()
        options.log_errors = False
        try:
            self._fullmatch = re2.compile(source, options).fullmatch
        except re2.error as exc:
            raise PatternError(f"the pattern {source!r} does not compile: {exc}") from None
        self.source = source

    def fullmatch(self, text: str) -> bool:
        """Whether the whole of ``text`` matches."""
        try:
            return self._fullmatch(text) is not None
        except UnicodeEncodeError:  # lone surrogates: each stays one character
            return self._fullmatch(_without_surrogates(text)) is not None


def _without_surrogates(text: str) -> str:
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _bounded_search(source: str) -> Callable[[str], bool]:
    import regex  # type: ignore[import-untyped, unused-ignore]

    try:
        compiled = regex.compile(source)
    except regex.error as exc:
        raise PatternError(f"the pattern {source!r} does not compile: {exc}") from None
    search = compiled.search

    def run(text: str) -> bool:
        deadline = getattr(_budget, "deadline", None)
        left = PATTERN_BUDGET_S if deadline is None else deadline - time.monotonic()
        if left <= 0:
            raise PatternTimeout(source)
        try:
            return search(text, timeout=left, concurrent=True) is not None
        except TimeoutError:
            raise PatternTimeout(source) from None

    return run


@contextmanager
def pattern_budget() -> Iterator[None]:
    """Let every slow-pattern match inside share one ``PATTERN_BUDGET_S`` (re-entrant:
    an inner block keeps the outer deadline)."""
    if getattr(_budget, "deadline", None) is not None:
        yield
        return
    _budget.deadline = time.monotonic() + PATTERN_BUDGET_S
    try:
        yield
    finally:
        _budget.deadline = None


def has_slow_patterns(schema: Any) -> bool:
    """Whether ``schema`` holds a pattern RE2 cannot run (or one that does not compile).

    Over-approximates on purpose: any ``"pattern"`` string and any ``patternProperties``
    key counts, wherever it sits, so a schema judged fast never meets a slow pattern.
    Walked without recursion: a deep schema cannot exhaust the stack.
    """
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, Mapping):
            for key, value in node.items():
                if key == "pattern" and isinstance(value, str) and not _is_linear(value):
                    return True
                keys = value if key == "patternProperties" and isinstance(value, Mapping) else ()
                if any(not _is_linear(str(p)) for p in keys):
                    return True
                pending.append(value)
        elif isinstance(node, list | tuple):
            pending.extend(node)
    return False


def _is_linear(source: str) -> bool:
    try:
        return compile_pattern(source).linear
    except PatternError:
        return False


def pattern_executor() -> ThreadPoolExecutor:
    """The threads that validate schemas with slow patterns, kept apart from the event
    loop's default executor so a burst of them cannot starve other work there."""
    # Deferred: concurrent.futures loads logging, which opening a host never needs.
    from concurrent.futures import ThreadPoolExecutor

    with _executor_lock:
        if not _executor:
            _executor.append(
                ThreadPoolExecutor(PATTERN_THREADS, thread_name_prefix="tooldeck-pattern")
            )
        return _executor[0]
