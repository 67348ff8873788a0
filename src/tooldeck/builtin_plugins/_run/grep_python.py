"""What both ``grep`` engines share (the pattern, binary rule, results) and the
pure-Python engine used when ripgrep is not available. The regex dialect and its
translations are ``_run/grep_dialect.py``; how the Python engine matches without ever
backtracking on the event loop is ``_run/grep_re2.py``.

**Lines** are split on ``\\n`` only; a trailing ``\\r`` stays part of the line while
matching (so ``foo$`` does not match ``foo\\r\\n``) and is dropped when shown. Text is
read as UTF-8; invalid bytes show as U+FFFD (Python matches against U+FFFD, ripgrep
against the raw bytes). **Binary files** (a NUL byte in the first 8 KiB) are skipped.
"""

from __future__ import annotations

import heapq
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

from tooldeck.builtin_plugins._run.grep_dialect import Translator
from tooldeck.builtin_plugins._run.grep_re2 import Matcher, PatternError
from tooldeck.builtin_plugins.grep import MAX_LINE_CHARS

SNIFF_BYTES = 8192


__all__ = ["Found", "Pattern", "PatternError", "parse_pattern", "search_python"]


@dataclass(frozen=True, slots=True)
class Pattern:
    """One validated pattern, as each engine needs it."""

    source: str
    rust: str
    matcher: Matcher
    """The Python engine's matcher (RE2, or a time-bounded fallback; ``grep_re2``)."""


def parse_pattern(source: str) -> Pattern:
    """Validate ``source`` against the dialect and compile it for both engines."""
    if "\0" in source:
        raise PatternError(
            "The pattern contains a NUL character. Files holding NUL bytes are binary and "
            "are not searched, so it cannot match; remove it."
        )
    translator = Translator(source)
    rust = translator.run()
    try:
        re.compile(source)  # only compiled, never matched: its errors say what is wrong
    except re.error as exc:
        raise PatternError(f"Invalid regex {source!r}: {exc}. Fix the pattern.") from exc
    form = translator.re2_form()
    matcher = Matcher(source, form, translator.word_boundary, translator.re2_lacks)
    return Pattern(source, rust, matcher)


# -- results ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class LineMatch:
    """One matching line: its file, 1-based number and text (cut, without terminator)."""

    path: str
    line: int
    text: str


@dataclass(slots=True)
class Found:
    """Every matching line counted; the first ``limit`` in walk order kept.

    Matches may arrive in any file order (ripgrep searches files in parallel), but a
    file's matches arrive together. Files are keyed by their walk ``index``; the kept
    matches are a bounded max-heap on ``(index, line)``, so memory stays ``O(limit)``.
    """

    limit: int
    total: int = 0
    files: int = 0
    _heap: list[tuple[int, int, str, str]] = field(default_factory=list)
    _last: str | None = None

    def keeps(self, index: int, line: int = 0) -> bool:
        """Whether a match at ``(index, line)`` would be kept, not only counted."""
        if len(self._heap) < self.limit:
            return True
        worst_index, worst_line = self._heap[0][:2]
        return (index, line) < (-worst_index, -worst_line)

    def add(self, index: int, path: str, line: int, text: str) -> None:
        """Count one matching line; keep it if it is among the first ``limit``."""
        self.count(path)
        if not self.keeps(index, line):
            return
        item = (-index, -line, path, shown_line(text))
        if len(self._heap) < self.limit:
            heapq.heappush(self._heap, item)
        else:
            heapq.heapreplace(self._heap, item)

    def count(self, path: str) -> None:
        """Count one matching line without keeping it."""
        if path != self._last:
            self.files += 1
            self._last = path
        self.total += 1

    @property
    def matches(self) -> list[LineMatch]:
        """The kept matches in walk order."""
        ordered = sorted(self._heap, reverse=True)
        return [LineMatch(path, -line, text) for _, line, path, text in ordered]


def shown_line(text: str) -> str:
    """A line as shown: terminator dropped, cut past ``MAX_LINE_CHARS``."""
    text = text.removesuffix("\n").removesuffix("\r")
    if len(text) > MAX_LINE_CHARS:
        return text[:MAX_LINE_CHARS] + "… [line cut]"
    return text


def is_binary(head: bytes) -> bool:
    """A NUL byte in the first ``SNIFF_BYTES`` bytes marks a binary file (git's rule)."""
    return b"\0" in head[:SNIFF_BYTES]


def sniff_text(path: str) -> bool:
    """Whether ``path`` is a readable text file, from its first ``SNIFF_BYTES`` bytes."""
    try:
        with open(path, "rb") as handle:
            return not is_binary(handle.read(SNIFF_BYTES))
    except OSError:
        return False


# -- the Python engine ----------------------------------------------------------------------------
def search_python(
    files: Iterable[str], pattern: Pattern, limit: int, stop: threading.Event | None = None
) -> Found:
    """Search ``files`` in order, line by line, as ripgrep would; ``stop`` ends it early.
    Never backtracks without bound (``grep_re2``): a pattern that would raises
    ``PatternError`` once its slow matches use up their budget."""
    found = Found(limit)
    matcher = pattern.matcher.start()
    for index, path in enumerate(files):
        if stop is not None and stop.is_set():
            break
        data = _read_utf8(path)
        if data is None or not matcher.may_match(data):
            continue
        for number, line in enumerate(_lines(data), 1):
            if matcher.search(line):
                found.add(index, path, number, line.decode("utf-8"))
    return found


def _read_utf8(path: str) -> bytes | None:
    """The file as valid UTF-8 (invalid bytes as U+FFFD), or None when it is unreadable
    or binary."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if is_binary(data):
        return None
    if data.isascii():
        return data
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace").encode("utf-8")
    return data


def _lines(data: bytes) -> list[bytes]:
    """Lines split on ``\\n`` only; a final terminator does not start another line."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines
