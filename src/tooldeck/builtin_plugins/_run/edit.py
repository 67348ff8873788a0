"""How ``edit`` runs (the tool is declared in ``builtin_plugins/edit.py``)."""

from __future__ import annotations

import asyncio
import difflib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tooldeck._tool import ToolContext, ToolFailure, ToolResult
from tooldeck.builtin_plugins._run.files import (
    Diff,
    FileServices,
    TextFile,
    decode_text,
    file_executor,
    not_found,
    numbered_line,
    split_lines,
    unified_diff,
)
from tooldeck.builtin_plugins._run.format import with_report, write_then_format
from tooldeck.builtin_plugins._run.writes import Target, writing
from tooldeck.builtin_plugins.edit import EditInput, EditOutput, MatchKind

SNIPPET_CONTEXT = 2
SNIPPET_MAX_LINES = 30
HINT_LINES = 20_000
_WORD = re.compile(r"\w{3,}")


async def _edit(services: FileServices, data: EditInput, ctx: ToolContext) -> ToolResult:
    _check_strings(data)
    gate = services.gate(ctx)
    target = await Target.resolve(services, gate, data.path)
    async with writing(services.location, target):
        raw = target.read(verb="edit")
        if raw is None:
            raise not_found(target.path, target.shown, "To create a new file, use write.")
        change = await asyncio.to_thread(_plan, raw, data, target.shown)
        metadata = {"path": str(target.path), **change.diff.metadata()}
        await services.ask(gate, "edit", target.path, metadata)
        done = await write_then_format(
            services, gate, [target.path], lambda: target.replace(raw, change.data)
        )
    return with_report(_result(target.path, target.shown, change), done)


executor = file_executor(_edit)
"""``edit`` bound to the Location's file services (see ``files.file_executor``)."""


def _check_strings(data: EditInput) -> None:
    """Mistakes visible in the input alone fail before anything is asked or read."""
    if not data.old_string:
        raise ToolFailure(
            "old_string is empty. To create a file or replace all of its content, use "
            "write; to insert text, include the line before or after it in old_string."
        )
    if data.old_string == data.new_string:
        raise ToolFailure("old_string and new_string are identical, so there is nothing to do.")


@dataclass(frozen=True, slots=True)
class _Change:
    """A planned edit: where it matched, the new text and bytes, and the diff."""

    found: Found
    after: str
    data: bytes
    diff: Diff


def _plan(raw: bytes, data: EditInput, shown: str) -> _Change:
    """Decode, match, replace and diff. Runs in a worker thread: on a large file with a
    near miss, the fallback matchers and the diff take long enough to stall the loop."""
    file = decode_text(raw, shown, purpose="edited")
    old, new = _lf(data.old_string, file), _lf(data.new_string, file)
    found = find(file.text, old, new, replace_all=data.replace_all, shown=shown)
    after = found.apply(file.text)
    if after == file.text:
        raise ToolFailure(f"{shown} already has new_string where old_string matched; no change.")
    return _Change(found, after, file.encode(after), unified_diff(file.text, after, shown))


def _lf(text: str, file: TextFile) -> str:
    """The model's string with ``\\n`` endings, unless the file itself mixes endings."""
    return text if "\r\n" in file.text else text.replace("\r\n", "\n")


def _result(path: Path, shown: str, change: _Change) -> ToolResult:
    found = change.found
    lines = found.lines()
    count = len(lines)
    where = f"line {lines[0]}" if count == 1 else "lines " + _line_list(lines)
    text = f"Edited {shown}: {count} replacement{'' if count == 1 else 's'} at {where}."
    if found.kind != "exact":
        text += f" old_string did not match exactly; it matched one place {_NOTES[found.kind]}."
    if count == 1:
        text += "\n" + _snippet(change.after, found.spans[0], lines[0])
    output = EditOutput(path=str(path), replacements=count, match=found.kind, lines=lines)
    metadata = {
        "path": str(path),
        "replacements": count,
        "match": found.kind,
        **change.diff.metadata(),
    }
    return ToolResult(text, metadata, output)


def _snippet(after: str, span: Span, first: int) -> str:
    """The replaced lines and a little context, numbered like ``read`` numbers them."""
    last = first + span.replacement.count("\n")
    lines = split_lines(after)
    start = max(1, first - SNIPPET_CONTEXT)
    end = min(len(lines), last + SNIPPET_CONTEXT, start + SNIPPET_MAX_LINES - 1)
    return "\n".join(numbered_line(n, lines[n - 1]) for n in range(start, end + 1))


def _line_list(lines: list[int], limit: int = 10) -> str:
    shown = ", ".join(str(n) for n in lines[:limit])
    return shown + (f" and {len(lines) - limit} more" if len(lines) > limit else "")


# -- matching ------------------------------------------------------------------------------
# One-to-one character folds: lengths stay equal, so an index into the folded text is
# an index into the file.
_FOLD = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u00a0\u2007\u2009\u200a\u202f\u3000", " "),
    }
)
_NOTES: dict[MatchKind, str] = {
    "exact": "exactly",
    "unicode": "when typographic quotes, dashes and spaces count as plain ones",
    "trailing_whitespace": "when trailing whitespace is ignored",
    "indentation": "when the indentation of the block is ignored (new_string was re-indented)",
}
_LINE_NUMBERED = re.compile(r"^\s*\d+: ?")


@dataclass(frozen=True, slots=True)
class Span:
    """One place to replace: ``text[start:end]`` becomes ``replacement``."""

    start: int
    end: int
    replacement: str


@dataclass(frozen=True, slots=True)
class Found:
    """The places old_string matched, and which matcher found them."""

    kind: MatchKind
    spans: list[Span]
    text: str

    def apply(self, text: str) -> str:
        parts: list[str] = []
        position = 0
        for span in self.spans:
            parts += (text[position : span.start], span.replacement)
            position = span.end
        parts.append(text[position:])
        return "".join(parts)

    def lines(self) -> list[int]:
        """The 1-based line of each span's start, counted in one pass over the text."""
        numbers: list[int] = []
        line, position = 1, 0
        for span in self.spans:
            line += self.text.count("\n", position, span.start)
            position = span.start
            numbers.append(line)
        return numbers


Matcher = Callable[[str, str, str], list[Span]]


def find(text: str, old: str, new: str, *, replace_all: bool, shown: str) -> Found:
    """The exact matches, else the first fallback's single match; or a helpful failure."""
    for kind, matcher in _MATCHERS:
        spans = matcher(text, old, new)
        if len(spans) == 1 or (spans and kind == "exact" and replace_all):
            return Found(kind, spans, text)
        if spans:
            raise ToolFailure(_ambiguous(Found(kind, spans, text), shown))
    raise ToolFailure(_not_found(text, old, shown))


def _exact(text: str, old: str, new: str) -> list[Span]:
    spans: list[Span] = []
    start = text.find(old)
    while start >= 0:
        spans.append(Span(start, start + len(old), new))
        start = text.find(old, start + len(old))
    return spans


def _unicode(text: str, old: str, new: str) -> list[Span]:
    return _exact(text.translate(_FOLD), old.translate(_FOLD), new)


def _trailing_whitespace(text: str, old: str, new: str) -> list[Span]:
    def same(window: list[str], wanted: list[str]) -> bool:
        return _rstripped(window) == _rstripped(wanted)

    return [Span(start, end, new) for start, end, _ in _windows(text, old, same)]


def _indentation(text: str, old: str, new: str) -> list[Span]:
    def same(window: list[str], wanted: list[str]) -> bool:
        return _dedented(window) == _dedented(wanted)

    old_indent = _indent(old.split("\n"))
    return [
        Span(start, end, _reindent(new, old_indent, _indent(window)))
        for start, end, window in _windows(text, old, same)
    ]


_MATCHERS: tuple[tuple[MatchKind, Matcher], ...] = (
    ("exact", _exact),
    ("unicode", _unicode),
    ("trailing_whitespace", _trailing_whitespace),
    ("indentation", _indentation),
)


def _windows(
    text: str, old: str, same: Callable[[list[str], list[str]], bool]
) -> list[tuple[int, int, list[str]]]:
    """Runs of whole lines that ``same`` says equal old_string's lines: (start, end, lines).

    A final newline of old_string takes the newline after the run with it.
    """
    with_newline = old.endswith("\n")
    wanted = (old[:-1] if with_newline else old).split("\n")
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    first = wanted[0].translate(_FOLD).strip()
    found = []
    for i in range(len(lines) - len(wanted) + 1):
        window = lines[i : i + len(wanted)]
        if window[0].translate(_FOLD).strip() == first and same(window, wanted):
            last = i + len(wanted) - 1
            end = starts[last] + len(lines[last]) + (with_newline and last + 1 < len(lines))
            found.append((starts[i], end, window))
    return found


def _rstripped(lines: list[str]) -> list[str]:
    return [line.translate(_FOLD).rstrip() for line in lines]


def _dedented(lines: list[str]) -> list[str]:
    stripped = _rstripped(lines)
    indent = len(_indent(stripped))
    return [line[indent:] for line in stripped]


def _indent(lines: list[str]) -> str:
    """The whitespace prefix every non-blank line shares."""
    prefixes = [line[: len(line) - len(line.lstrip())] for line in lines if line.strip()]
    # A character prefix is exactly what is wanted here, not path components.
    return os.path.commonprefix(prefixes) if prefixes else ""  # noqa: RUF071


def _reindent(new: str, old_indent: str, file_indent: str) -> str:
    """Move new_string by the same amount old_string was off from the file."""
    return "\n".join(
        file_indent + line[len(old_indent) :]
        if line.strip() and line.startswith(old_indent)
        else line
        for line in new.split("\n")
    )


# -- failure messages ----------------------------------------------------------------------
def _ambiguous(found: Found, shown: str) -> str:
    count = len(found.spans)
    where = _line_list(found.lines())
    if found.kind == "exact":
        return (
            f"old_string matches {count} places in {shown} (lines {where}). Add more "
            "surrounding lines to old_string so it matches exactly one place, or set "
            f"replace_all to true to replace all {count}."
        )
    return (
        f"old_string does not match {shown} exactly, and it matches {count} places "
        f"{_NOTES[found.kind]} (lines {where}). Copy the exact text from read output, with "
        "enough surrounding lines to match one place."
    )


def _not_found(text: str, old: str, shown: str) -> str:
    message = (
        f"old_string was not found in {shown}. It must match the file exactly, including "
        "whitespace and indentation: read the file again and copy the text to replace."
    )
    old_lines = [line for line in old.split("\n") if line.strip()]
    if old_lines and all(_LINE_NUMBERED.match(line) for line in old_lines):
        return message + " old_string seems to include `N: ` line numbers from read; remove them."
    return message + _closest(text, old_lines[0] if old_lines else old)


def _closest(text: str, line: str) -> str:
    """Where the file has the line most like old_string's first line, if any is close.

    Comparing is costly (a ratio per line), so a file of more than ``HINT_LINES`` lines
    only compares the lines that share a long word with it.
    """
    lines = split_lines(text)
    wanted = line.strip()
    few = len(lines) <= HINT_LINES
    numbers = range(len(lines)) if few else _sharing_a_word(lines, wanted)
    stripped = {lines[n].strip(): n for n in reversed(numbers)}  # the first line wins
    close = difflib.get_close_matches(wanted, list(stripped), n=1, cutoff=0.6)
    if not close:
        return ""
    number = stripped[close[0]] + 1
    return f"\nThe most similar line is {number}: {lines[number - 1]}"


def _sharing_a_word(lines: list[str], wanted: str) -> list[int]:
    """Up to ``HINT_LINES`` line numbers (0-based) holding ``wanted``'s longest word that
    any line holds: the longest words are the rarest, so they find the near misses."""
    for word in sorted(set(_WORD.findall(wanted)), key=len, reverse=True)[:3]:
        numbers = [n for n, line in enumerate(lines) if word in line][:HINT_LINES]
        if numbers:
            return numbers
    return []
