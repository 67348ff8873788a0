"""The patch envelope: parse it into file operations, and apply its hunks to text.

Pure functions over strings, no I/O: the ``patch`` leaf owns paths, permission and
writes. The format is the one models are trained on for ``apply_patch``::

    *** Begin Patch
    *** Add File: path          then the new file's lines, each prefixed "+"
    *** Delete File: path
    *** Update File: path
    *** Move to: new/path       optional, right after "*** Update File:"
    @@ optional context line    starts a hunk (the first hunk may omit the "@@")
     context                    " " context, "-" removed, "+" added
    *** End of File             optional: the hunk must match at the end of the file
    *** End Patch

Hunks match the way models write them: exactly first, then ignoring trailing
whitespace, then surrounding whitespace, then typographic punctuation (curly quotes,
dashes). Each hunk must come after the previous one in the file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File:"
DELETE = "*** Delete File:"
UPDATE = "*** Update File:"
MOVE = "*** Move to:"
END_OF_FILE = "*** End of File"
_OPERATIONS = (ADD, DELETE, UPDATE)
# "@@ -12,5 +12,6 @@ def f():" — a unified-diff header: line numbers are ignored and the
# text after the second "@@" (the enclosing line) is used as the context header.
_UNIFIED_HEADER = re.compile(r"^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?")


class PatchSyntaxError(ValueError):
    """The patch text is not a valid envelope; ``line`` is 1-based in the patch text."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass(frozen=True, slots=True)
class Hunk:
    """One ``@@`` section: ``lines`` keep their ``" "``/``"-"``/``"+"`` prefix."""

    header: str
    lines: tuple[str, ...]
    end_of_file: bool = False

    @property
    def old(self) -> list[str]:
        """The lines the file must contain: context and removed lines."""
        return [line[1:] for line in self.lines if line[0] != "+"]

    @property
    def new(self) -> list[str]:
        """What replaces them: context and added lines."""
        return [line[1:] for line in self.lines if line[0] != "-"]


@dataclass(frozen=True, slots=True)
class AddFile:
    path: str
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        """The new file's content; a non-empty file ends with a newline."""
        return "".join(line + "\n" for line in self.lines)


@dataclass(frozen=True, slots=True)
class DeleteFile:
    path: str


@dataclass(frozen=True, slots=True)
class UpdateFile:
    path: str
    move_to: str | None
    hunks: tuple[Hunk, ...]


Operation: TypeAlias = AddFile | DeleteFile | UpdateFile


# -- parsing ----------------------------------------------------------------------------------
class _Reader:
    """The lines between the envelope markers, with their 1-based numbers in the patch."""

    def __init__(self, lines: list[str], first: int) -> None:
        self.lines = lines
        self.first = first
        self.pos = 0

    def more(self) -> bool:
        return self.pos < len(self.lines)

    def peek(self) -> str:
        return self.lines[self.pos]

    def take(self) -> str:
        self.pos += 1
        return self.lines[self.pos - 1]

    @property
    def number(self) -> int:
        """The patch line number of the next line (``peek``)."""
        return self.first + self.pos


def parse_patch(text: str) -> tuple[Operation, ...]:
    """The operations of ``text``, in order; ``PatchSyntaxError`` names the bad line."""
    reader = _envelope(text)
    operations: list[Operation] = []
    while reader.more():
        operations.append(_operation(reader))
    if not operations:
        raise PatchSyntaxError(reader.number, "the patch contains no file operations")
    return tuple(operations)


def _envelope(text: str) -> _Reader:
    """Check the Begin/End markers (blank lines around them are fine) and strip them."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    start, stop = 0, len(lines)
    while start < stop and not lines[start].strip():
        start += 1
    while stop > start and not lines[stop - 1].strip():
        stop -= 1
    if start == stop:
        raise PatchSyntaxError(1, f"the patch is empty; it must start with {BEGIN!r}")
    if lines[start].strip() != BEGIN:
        raise PatchSyntaxError(start + 1, f"the patch must start with {BEGIN!r}")
    if stop - start < 2 or lines[stop - 1].strip() != END:
        raise PatchSyntaxError(stop, f"the patch must end with {END!r}")
    return _Reader(lines[start + 1 : stop - 1], start + 2)


def _operation(reader: _Reader) -> Operation:
    number, line = reader.number, reader.take()
    if line.startswith(ADD):
        return AddFile(_path(number, line, ADD), _added_lines(reader, line))
    if line.startswith(DELETE):
        return DeleteFile(_path(number, line, DELETE))
    if line.startswith(UPDATE):
        return _update(reader, number, _path(number, line, UPDATE))
    raise PatchSyntaxError(number, _unexpected(line))


def _unexpected(line: str) -> str:
    if line.startswith(MOVE):
        return f"{MOVE!r} must come right after its {UPDATE!r} line"
    if line.strip() == END:
        return f"unexpected {END!r} before the end of the patch (send one patch at a time)"
    return f"expected {ADD!r}, {DELETE!r} or {UPDATE!r} followed by a path, got {line!r}"


def _path(number: int, line: str, directive: str) -> str:
    path = line[len(directive) :].strip()
    if not path:
        raise PatchSyntaxError(number, f"{directive!r} needs a path")
    return path


def _is_directive(line: str) -> bool:
    return line.startswith("*** ")


def _added_lines(reader: _Reader, header: str) -> tuple[str, ...]:
    """The ``+`` lines of an Add File; a bare empty line is read as an empty line."""
    lines: list[str] = []
    while reader.more() and not _is_directive(reader.peek()):
        number, line = reader.number, reader.take()
        if line and not line.startswith("+"):
            raise PatchSyntaxError(
                number, f"every line of {header.strip()!r} must start with '+', got {line!r}"
            )
        lines.append(line[1:])
    return tuple(lines)


def _update(reader: _Reader, number: int, path: str) -> UpdateFile:
    move_to = None
    if reader.more() and reader.peek().startswith(MOVE):
        move_number = reader.number
        move_to = _path(move_number, reader.take(), MOVE)
    hunks: list[Hunk] = []
    while reader.more() and not _is_operation_line(reader.peek()):
        hunks.append(_hunk(reader, path, len(hunks) + 1))
    if not hunks and move_to is None:
        raise PatchSyntaxError(
            number, f"'{UPDATE} {path}' has no hunks; add '@@' sections with the changes"
        )
    return UpdateFile(path, move_to, tuple(hunks))


def _is_operation_line(line: str) -> bool:
    return _is_directive(line) and line.rstrip() != END_OF_FILE


def _hunk(reader: _Reader, path: str, index: int) -> Hunk:
    number = reader.number
    header = ""
    if reader.peek().startswith("@@"):
        header = _header(reader.take())
    lines: list[str] = []
    while reader.more() and not reader.peek().startswith("@@"):
        if _is_operation_line(reader.peek()):
            break
        line_number, line = reader.number, reader.take()
        if line.rstrip() == END_OF_FILE:
            return _finish(number, path, index, Hunk(header, tuple(lines), True))
        lines.append(_hunk_line(line_number, line, path, index))
    return _finish(number, path, index, Hunk(header, tuple(lines)))


def _header(line: str) -> str:
    text = line[2:].strip()
    return _UNIFIED_HEADER.sub("", text, count=1).strip()


def _hunk_line(number: int, line: str, path: str, index: int) -> str:
    if not line:
        return " "  # an empty context line whose leading space was trimmed
    if line[0] in " -+":
        return line
    raise PatchSyntaxError(
        number,
        f"unexpected line in hunk {index} of {path!r}: {line!r}; hunk lines start with "
        "' ' (context), '-' (remove) or '+' (add)",
    )


def _finish(number: int, path: str, index: int, hunk: Hunk) -> Hunk:
    if not hunk.lines:
        raise PatchSyntaxError(number, f"hunk {index} of {path!r} is empty")
    return hunk


# -- applying ---------------------------------------------------------------------------------
class HunkMismatch(Exception):
    """Hunk ``index`` (0-based) does not match the text; ``reason`` says which part."""

    def __init__(self, index: int, hunk: Hunk, reason: str) -> None:
        super().__init__(f"hunk {index + 1}: {reason}")
        self.index = index
        self.hunk = hunk
        self.reason = reason


def apply_hunks(text: str, hunks: Sequence[Hunk]) -> str:
    """``text`` (LF line endings) with every hunk applied; ``HunkMismatch`` if one fails.

    Whether the text ends with a newline is kept as it was.
    """
    lines, final_newline = _split(text)
    edits = _locate(lines, hunks)
    for start, length, new in reversed(edits):
        lines[start : start + length] = new
    return "\n".join(lines) + ("\n" if final_newline and lines else "")


def _split(text: str) -> tuple[list[str], bool]:
    if not text:
        return [], True
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
        return lines, True
    return lines, False


_Edit: TypeAlias = tuple[int, int, list[str]]


def _locate(lines: list[str], hunks: Sequence[Hunk]) -> list[_Edit]:
    """Where each hunk applies, each searched after the previous one."""
    edits: list[_Edit] = []
    cursor = 0
    for index, hunk in enumerate(hunks):
        if hunk.header:
            found = _seek_header(lines, hunk.header, cursor)
            if found is None:
                raise HunkMismatch(index, hunk, f"its '@@ {hunk.header}' line was not found")
            cursor = found + 1
        edit = _place(lines, hunk, cursor)
        if edit is None:
            raise HunkMismatch(index, hunk, _not_found(index, hunk))
        edits.append(edit)
        cursor = edit[0] + edit[1]
    return edits


def _not_found(index: int, hunk: Hunk) -> str:
    where = " at the end of the file" if hunk.end_of_file else ""
    after = " after the previous hunk" if index else ""
    return f"its context and '-' lines were not found{where}{after}"


def _place(lines: list[str], hunk: Hunk, cursor: int) -> _Edit | None:
    old, new = hunk.old, hunk.new
    if not old:  # only "+" lines: after the header line, or at the end of the file
        return (cursor if hunk.header else len(lines), 0, new)
    found = seek(lines, old, cursor, end_of_file=hunk.end_of_file)
    if found is None and old[-1] == "":  # a trailing blank line the file lacks
        old = old[:-1]
        new = new[:-1] if new and new[-1] == "" else new
        found = seek(lines, old, cursor, end_of_file=hunk.end_of_file) if old else None
    return None if found is None else (found, len(old), new)


_PUNCTUATION = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys("\u00a0\u2002\u2003\u2009\u202f", " "),
    }
)


def _canonical(line: str) -> str:
    return line.strip().translate(_PUNCTUATION)


def _exact(line: str) -> str:
    return line


_LEVELS: tuple[Callable[[str], str], ...] = (_exact, str.rstrip, str.strip, _canonical)


def seek(
    lines: Sequence[str], pattern: Sequence[str], start: int, *, end_of_file: bool = False
) -> int | None:
    """The first index ``>= start`` where ``pattern`` matches, trying stricter levels first.

    With ``end_of_file`` a match ending at the last line is preferred.
    """
    last = len(lines) - len(pattern)
    if last < start:
        return None
    for level in _LEVELS:
        wanted = [level(line) for line in pattern]
        candidates = range(start, last + 1)
        if end_of_file:
            candidates = range(last, start - 1, -1)
        for at in candidates:
            if all(level(lines[at + k]) == w for k, w in enumerate(wanted)):
                return at
    return None


def _seek_header(lines: Sequence[str], header: str, start: int) -> int | None:
    """The header line, or failing that the first line that begins with it (models often
    shorten ``def f(self, x):`` to ``def f``)."""
    found = seek(lines, [header], start)
    if found is not None:
        return found
    wanted = _canonical(header)
    for at in range(start, len(lines)):
        if _canonical(lines[at]).startswith(wanted):
            return at
    return None
