"""What both ``grep`` engines share (the regex dialect, binary rule, results) and the
pure-Python engine used when ripgrep is not available.

**The dialect** is Python's ``re`` syntax restricted to what Rust's ``regex`` (ripgrep)
reads the same way. The pattern is compiled by ``re`` as written (so errors and positions
are Python's) and translated for ripgrep. Rejected, with a message saying what to write
instead, in both engines:

* look-around ``(?=`` ``(?!`` ``(?<=`` ``(?<!``, atomic groups ``(?>``, conditionals
  ``(?(``, backreferences ``\\1`` ``(?P=name)``, octal escapes ``\\0``, possessive
  quantifiers ``a*+``, comments ``(?#...)``, the flags ``a``, ``L`` and ``x``;
* ``\\Z`` (use ``$``), ``\\B``, ``\\<``/``\\>`` (use ``\\b``), ``\\N{...}``;
* anything matching a newline (``\\n``): a match never spans lines;
* an unescaped ``[`` inside a class (POSIX ``[:alpha:]``, nested classes) and doubled
  ``&& -- ~~ ||`` inside a class (Rust set operations).

Translated for ripgrep so it means what Python means: a ``{`` that does not start a
``{m}``/``{m,}``/``{m,n}``/``{,n}`` quantifier is a literal ``{``; ``{,n}`` is ``{0,n}``;
``\\s`` also covers ``\\x1c``-``\\x1f`` (Python counts them as whitespace); ``[\\b]`` is
a backspace. Known remaining difference: Unicode ``\\w``/``\\d``/``\\b`` and case folding
can disagree on rare non-ASCII characters (combining marks, superscript digits).

**The Python engine never backtracks without bound** (a pattern such as ``(a+)+$`` would
hold the GIL for minutes in ``re``, stalling the event loop): the pattern is also
translated for RE2 (``_run/grep_re2.py``), which matches in linear time and releases the
GIL. ``re`` only compiles the pattern, for its error messages.

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

from tooldeck.builtin_plugins._run.grep_re2 import PYTHON_WHITESPACE, Matcher, PatternError
from tooldeck.builtin_plugins.grep import MAX_LINE_CHARS

SNIFF_BYTES = 8192
_QUANTIFIER = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")
_WHITESPACE = r"\s\x1c-\x1f"


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
    translator = _Translator(source)
    rust = translator.run()
    try:
        re.compile(source)  # only compiled, never matched: its errors say what is wrong
    except re.error as exc:
        raise PatternError(f"Invalid regex {source!r}: {exc}. Fix the pattern.") from exc
    form = translator.re2_form()
    matcher = Matcher(source, form, translator.word_boundary, translator.re2_lacks)
    return Pattern(source, rust, matcher)


def _unsupported(what: str, instead: str) -> PatternError:
    return PatternError(f"{what} is not supported by grep's regex dialect; {instead}.")


class _Translator:
    """Walks a pattern once: rejects what the engines disagree on, builds the Rust form.

    Malformed input is copied through unchanged, so Python's compiler reports it.
    """

    def __init__(self, source: str) -> None:
        self.src = source
        self.at = 0
        self.out: list[str] = []
        self.re2: list[str] = []
        self.re2_lacks: str | None = None
        """What RE2 cannot express here (then the Python engine's slow path runs it)."""
        self.word_boundary = False
        self.class_start = 0
        self.complements: list[str] = []
        """RE2 members of the open class's ``\\W``/``\\S``, each to be negated."""
        """``\\b`` outside a class: RE2's is ASCII-only, exact on ASCII lines alone."""
        self.in_class = False
        self.quantified = False

    def run(self) -> str:
        while self.at < len(self.src):
            self._step(self.src[self.at])
        return "".join(self.out)

    def re2_form(self) -> str | None:
        """The pattern for RE2 (run ``run`` first), or None with ``re2_lacks`` set."""
        return None if self.re2_lacks else "".join(self.re2)

    def _step(self, char: str) -> None:
        if char == "\n":
            raise _unsupported("A newline in the pattern", "grep matches one line at a time")
        if char == "\\":
            self._escape()
        elif self.in_class:
            self._class_member(char)
        elif char == "[":
            self._open_class()
        elif char == "(":
            self._group()
        elif char == "{":
            self._brace()
        elif char in "*+?":
            self._quantifier(char)
        else:
            self._emit(char, 1)

    def _emit(
        self, text: str, width: int, *, quantifier: bool = False, re2: str | None = None
    ) -> None:
        self.out.append(text)
        self.re2.append(text if re2 is None else re2)
        self.at += width
        self.quantified = quantifier

    def _lacks(self, what: str) -> None:
        self.re2_lacks = self.re2_lacks or what

    def _quantifier(self, char: str) -> None:
        if char == "+" and self.quantified:
            raise _unsupported("A possessive quantifier (like a*+)", "drop the trailing +")
        lazy = char == "?" and self.quantified
        self._emit(char, 1, quantifier=not lazy)

    def _brace(self) -> None:
        found = _QUANTIFIER.match(self.src, self.at)
        if found is None or not (found[1] or found[2]):
            self._emit("\\{", 1)
            return
        low, comma, high = found[1] or "0", found[2] or "", found[3] or ""
        self._emit("{" + low + comma + high + "}", found.end() - self.at, quantifier=True)

    def _group(self) -> None:
        ahead = self.src[self.at + 1 : self.at + 4]
        if not ahead.startswith("?"):
            self._emit("(", 1)
            return
        self._check_extension(ahead[1:])
        self._emit("(?", 2)

    def _check_extension(self, ext: str) -> None:
        if ext[:1] in ("=", "!") or ext in ("<=", "<!"):
            raise _unsupported("Look-around", "match the surrounding text itself instead")
        if ext[:1] in (">", "(") or ext == "P=":
            raise _unsupported("Atomic groups, conditionals and backreferences", "rewrite")
        if ext[:1] == "#":
            raise _unsupported("A (?#...) comment", "remove it")
        flags = re.match(r"[aiLmsux-]*", self.src[self.at + 2 :])
        if flags is not None and set(flags[0]) & set("aLx"):
            raise _unsupported("The a, L and x flags", "use only i, m, s and u")
        if flags is not None and "u" in flags[0]:
            self._lacks("the u flag")

    def _escape(self) -> None:
        pair = self.src[self.at : self.at + 2]
        letter = pair[1:]
        if not letter or letter in "xuU":
            self._hex(pair, letter)
        elif letter.isdigit():
            raise _unsupported(f"{pair} (a backreference or octal escape)", "rewrite it")
        elif letter in "bBnNZ<>":
            self._special_escape(pair)
        elif letter in "sS":
            self._emit(self._whitespace(letter), 2, re2=self._re2_class(letter))
        elif letter in "dDwW":
            self._emit(pair, 2, re2=self._re2_class(letter))
        elif not letter.isascii():
            self._emit(letter, 2)
        else:
            self._emit(pair, 2)

    def _special_escape(self, pair: str) -> None:
        if pair == "\\b":  # a word boundary, but a backspace inside a class
            self.word_boundary = self.word_boundary or not self.in_class
            self._emit("\\x08" if self.in_class else pair, 2)
            return
        if self.in_class and pair in ("\\<", "\\>"):
            self._emit(pair[1], 2)
            return
        hints = {
            "\\n": "grep matches one line at a time",
            "\\N": "write the character itself",
            "\\Z": "use $ for the end of the line",
            "\\B": "use \\b or match the characters themselves",
        }
        raise _unsupported(pair, hints.get(pair, "use \\b for a word boundary"))

    def _hex(self, pair: str, letter: str) -> None:
        width = {"x": 2, "u": 4, "U": 8}.get(letter, 0)
        digits = self.src[self.at + 2 : self.at + 2 + width]
        if width and re.fullmatch(r"0*[aA]", digits):
            raise _unsupported("An escaped newline", "grep matches one line at a time")
        if letter in "uU" and len(digits) == width and re.fullmatch("[0-9a-fA-F]+", digits):
            self._emit(pair + digits, 2 + width, re2=f"\\x{{{digits}}}")  # RE2 lacks \\u
        else:
            self._emit(pair, len(pair))

    def _re2_class(self, letter: str) -> str:
        """``\\d \\w \\s`` as Python reads them (Unicode), spelled for RE2 (whose are ASCII)."""
        members = {"d": "\\p{Nd}", "w": "\\p{L}\\p{N}_", "s": PYTHON_WHITESPACE}[letter.lower()]
        if letter == "D":
            return "\\P{Nd}"
        if letter.islower():
            return members if self.in_class or letter == "d" else f"[{members}]"
        if self.in_class:  # RE2 cannot negate inside a class: ``_close_re2_class`` does
            self.complements.append(members)
            return ""
        return f"[^{members}]"

    def _close_re2_class(self) -> None:
        """Spell a class holding ``\\W`` or ``\\S`` for RE2: ``[x\\W]`` as
        ``(?:[x]|[^word])``, ``[^\\W]`` as ``[word]``; a negated class with more members
        than that is left to the slow path."""
        outside, self.complements = self.complements, []
        if not outside:
            return
        negated = self.re2[self.class_start + 1] == "^"
        rest = "".join(self.re2[self.class_start + 1 + negated : -1])
        del self.re2[self.class_start :]
        if not negated:
            parts = ([f"[{rest}]"] if rest else []) + [f"[^{each}]" for each in outside]
            self.re2.append("(?:" + "|".join(parts) + ")")
        elif not rest and len(outside) == 1:
            self.re2.append(f"[{outside[0]}]")
        else:
            self._lacks("\\W or \\S in a negated class with other members")

    def _whitespace(self, letter: str) -> str:
        if letter == "S":
            return f"[^{_WHITESPACE}]"
        return _WHITESPACE if self.in_class else f"[{_WHITESPACE}]"

    def _open_class(self) -> None:
        self.class_start = len(self.re2)
        self._emit("[", 1)
        self.in_class = True
        if self.src[self.at : self.at + 1] == "^":
            self._emit("^", 1)
        if self.src[self.at : self.at + 1] == "]":
            self._emit("\\]", 1)

    def _class_member(self, char: str) -> None:
        if char == "]":
            self.in_class = False
            self._emit("]", 1)
            self._close_re2_class()
        elif char == "[":
            raise _unsupported(
                "[ inside a character class (nested or POSIX classes like [:alpha:])",
                "escape it as \\[ or use \\d, \\w, \\s or ranges",
            )
        elif char in "-&~|" and self.src[self.at + 1 : self.at + 2] == char:
            raise _unsupported(f"{char}{char} inside a character class", f"escape it as \\{char}")
        else:
            self._emit(char, 1)


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
        text = _read_text(path)
        if text is None or not matcher.may_match(text):
            continue
        for number, line in enumerate(_lines(text), 1):
            if matcher.search(line):
                found.add(index, path, number, line)
    return found


def _read_text(path: str) -> str | None:
    """The file as text, or None when it is unreadable or binary."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    return None if is_binary(data) else data.decode("utf-8", "replace")


def _lines(text: str) -> list[str]:
    """Lines split on ``\\n`` only; a final terminator does not start another line."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines
