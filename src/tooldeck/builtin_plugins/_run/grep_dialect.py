"""The regex dialect of ``grep``: checking a pattern and spelling it for ripgrep and RE2.

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
"""

from __future__ import annotations

import re

from tooldeck.builtin_plugins._run.grep_re2 import PYTHON_WHITESPACE, PatternError

_QUANTIFIER = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")
_WHITESPACE = r"\s\x1c-\x1f"


def _unsupported(what: str, instead: str) -> PatternError:
    return PatternError(f"{what} is not supported by grep's regex dialect; {instead}.")


class Translator:
    """Walks a pattern once: rejects what the engines disagree on, builds the Rust and
    RE2 forms.

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
