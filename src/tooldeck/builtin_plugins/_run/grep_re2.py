"""How the Python engine of ``grep`` matches lines without ever stalling the event loop.

The model writes the pattern, and Python's ``re`` backtracks without bound (``(a+)+$``
over a line of ``a``s runs for minutes) while holding the GIL, so every coroutine of the
host would wait. ``re`` therefore never matches here:

* **RE2** (``google-re2``) runs the pattern as ``grep_dialect.Translator`` spells it for
  RE2: Python's Unicode ``\\d``, ``\\w`` and ``\\s`` written out as Unicode classes (RE2's
  are ASCII), ``\\uXXXX`` as ``\\x{XXXX}``. RE2 matches in time linear in the line and
  releases the GIL while it does. Its ``\\b`` is ASCII-only, so a pattern using ``\\b``
  goes to RE2 for ASCII lines only (where the two agree).
* **The rest** (``\\b`` on a non-ASCII line, and the few patterns RE2 refuses: ``\\W`` or
  ``\\S`` inside a class, the ``u`` flag, repeats over 1000) run on the ``regex`` engine,
  which reads the pattern as ``re`` does, releases the GIL and stops at a deadline. All
  of one search's slow matches share ``SLOW_MATCH_BUDGET_S``; past it the search fails
  with a ``PatternError`` naming the limit and why the fast engine could not be used.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import Any, Final

SLOW_MATCH_BUDGET_S: Final = 5.0
"""Seconds one search may spend on lines the linear-time engine cannot match."""

PYTHON_WHITESPACE: Final = (
    "\\t-\\r\\x1c-\\x20\\x85\\xa0\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}"
    "\\x{202f}\\x{205f}\\x{3000}"
)
"""The characters Python's ``\\s`` matches (``str.isspace``), as RE2 class members."""


class PatternError(ValueError):
    """A pattern outside the shared dialect, or one that took too long to match; the
    message tells the model what to write."""


class Matcher:
    """One pattern's line matcher for one search at a time (``start`` resets the budget)."""

    def __init__(
        self, source: str, re2_form: str | None, ascii_only: bool, lacks: str | None
    ) -> None:
        self.source = source
        self.ascii_only = ascii_only
        self._line: Callable[[bytes], Any] | None = None
        self._file: Callable[[bytes], Any] | None = None
        self._why = f"{lacks or 'a feature'}, which RE2 lacks"
        if re2_form is not None:
            self._compile_re2(re2_form)
        if ascii_only and self._line is not None:
            self._why = "\\b on non-ASCII text (the linear-time engine's \\b is ASCII-only)"
        self._slow: Any = None
        self._deadline: float | None = None

    def _compile_re2(self, form: str) -> None:
        import re2  # type: ignore[import-untyped, unused-ignore]

        options = re2.Options()
        options.log_errors = False  # a refused pattern takes the slow path; not news
        try:
            self._line = re2.compile(form, options).search
            self._file = re2.compile("(?m)" + form, options).search
        except re2.error as exc:
            self._why = f"what RE2 refuses ({_text(exc)})"
            self._line = self._file = None

    def start(self) -> Matcher:
        """A fresh copy for one search: its slow matches get their own budget."""
        fresh = copy.copy(self)
        fresh._deadline = None
        return fresh

    def may_match(self, data: bytes) -> bool:
        """Whether a whole file (valid UTF-8) may hold a matching line: a cheap pre-check,
        False means no line matches (``^``/``$`` read at line ends). ``\\A`` means each
        line's start in a line search, so patterns with it are never pre-checked."""
        if self._file is None or "\\A" in self.source:
            return True
        if self.ascii_only and not data.isascii():
            return True
        return self._file(data) is not None

    def search(self, line: bytes) -> bool:
        """Whether ``line`` (valid UTF-8: RE2 reads bytes many times faster than ``str``,
        which it converts on every call) holds a match."""
        if self._line is not None and (not self.ascii_only or line.isascii()):
            return self._line(line) is not None
        return self._search_slow(line.decode("utf-8"))

    def _search_slow(self, line: str) -> bool:
        now = time.monotonic()
        if self._deadline is None:
            self._deadline = now + SLOW_MATCH_BUDGET_S
        left = self._deadline - now
        if left <= 0:
            raise self._timeout()
        if self._slow is None:
            import regex  # type: ignore[import-untyped, unused-ignore]

            self._slow = regex.compile(self.source)
        try:
            return self._slow.search(line, timeout=left, concurrent=True) is not None
        except TimeoutError:
            raise self._timeout() from None

    def _timeout(self) -> PatternError:
        return PatternError(
            f"The pattern {self.source!r} took more than {SLOW_MATCH_BUDGET_S:g} s to match "
            f"(it backtracks on these lines). It uses {self._why}, so it cannot be matched in "
            "linear time: simplify it (avoid nested repeats such as (a+)+)."
        )


def _text(exc: BaseException) -> str:
    message = exc.args[0] if exc.args else exc
    return message.decode(errors="replace") if isinstance(message, bytes) else str(message)
