"""The ``grep`` built-in: search file contents with a regex, honouring ``.gitignore``.

Order of a call: validate the pattern and ``include`` (a bad one fails before anyone is
asked) → resolve the path (``external_directory`` when it leads outside the Location) →
assert ``grep`` on it → check it exists → list the files → search them.

Two engines give the same answer: ripgrep when ``_grep_rg.find_ripgrep`` finds one, the
Python engine otherwise. Everything that decides the answer is shared: the files and
their order (``_ignore``), the binary rule, line splitting and the regex dialect
(``_grep_python``), and the rendering below. ripgrep only does the matching.

A symlinked file is searched only when it leads into the Location or the searched
directory, so a link cannot carry outside content into the answer unasked.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from tooldeck.builtin_plugins._model import Model
from tooldeck.builtin_plugins._run.files import FileServices, PathKind
from tooldeck.builtin_plugins._run.grep_python import (
    MAX_LINE_CHARS,
    Found,
    Pattern,
    PatternError,
    parse_pattern,
    search_python,
)
from tooldeck.builtin_plugins._run.grep_rg import find_ripgrep, search_rg
from tooldeck.builtin_plugins._run.ignore import Walked, walk_files
from tooldeck.builtin_plugins.glob import pattern_matcher
from tooldeck.hookspecs import hookimpl
from tooldeck.tool import Tool, ToolContext, ToolFailure, ToolResult

if TYPE_CHECKING:
    from tooldeck.host.editor import ToolEditor
    from tooldeck.host.location import Location

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
Engine = Literal["ripgrep", "python"]

DESCRIPTION = f"""\
Search file contents with a regular expression.

Returns `Found N matches in M files`, then the matching lines grouped by file: a \
`path:` line, then `  L<line>: <text>` lines. Files come sorted by path; paths are \
relative to the project root (absolute outside it). At most `limit` lines (default \
{DEFAULT_LIMIT}); the count always covers every match. Lines longer than \
{MAX_LINE_CHARS} characters are cut. Binary files, `.git` and files ignored by \
`.gitignore` are skipped.

`pattern` is a Python-style regular expression matched against one line at a time: \
`def \\w+\\(`, `(?i)todo`, `^import `. Escape `. ( ) [ ] {{ }} * + ? | ^ $ \\` to \
match them literally. Not supported: look-around, backreferences, and `\\n` (a match \
never spans lines). `include` keeps only files matching a glob: `*.py`, `*.{{ts,tsx}}` \
(names at any depth), `src/**/*.rs` (from the searched directory). `path` is a \
directory or one file. To find files by name, use `glob`."""


class GrepInput(Model):
    pattern: str = Field(min_length=1, description="Regular expression matched against each line.")
    path: str | None = Field(
        default=None,
        description="Directory or file to search, relative to the project root or "
        "absolute. Default: the project root.",
    )
    include: str | None = Field(
        default=None,
        description="Only search files matching this glob, e.g. '*.py', '*.{ts,tsx}'.",
    )
    limit: int = Field(
        default=DEFAULT_LIMIT,
        ge=1,
        le=MAX_LIMIT,
        description="The most matching lines to return.",
    )


class GrepMatch(Model):
    path: str = Field(description="The file, as shown (root-relative or absolute).")
    line: int = Field(description="1-based line number.")
    text: str = Field(description="The line, cut when very long.")


class GrepOutput(Model):
    matches: list[GrepMatch] = Field(description="The first `limit` matching lines.")
    total: int = Field(description="How many lines matched in all.")
    files: int = Field(description="How many files had a matching line.")
    truncated: bool = Field(description="True when more lines matched than `limit`.")


@hookimpl
def tool_transform(editor: ToolEditor, location: Location) -> None:
    """Add ``grep``; it captures the Location's services now, as every leaf does."""
    editor.add(grep_tool(FileServices.capture(location)))


def grep_tool(services: FileServices) -> Tool[GrepInput, GrepOutput]:
    """The ``grep`` tool bound to one Location's services."""

    async def grep(params: GrepInput, ctx: ToolContext) -> ToolResult:
        pattern = _pattern(params.pattern)
        include = pattern_matcher(params.include) if params.include else None
        raw = params.path or "."
        kind: PathKind = "file" if os.path.isfile(services.lexical(raw)) else "directory"
        gate = services.gate(ctx)
        target = await services.resolve(gate, raw, kind)
        await services.ask(gate, "grep", target, {"pattern": params.pattern, "path": str(target)})
        _require(target, services.shown(target))
        found, engine = await _search(target, services.location.root, pattern, include, params)
        return _result(found, engine, params, services, target)

    return Tool(
        name="grep",
        description=DESCRIPTION,
        input=GrepInput,
        output=GrepOutput,
        execute=grep,
        codemode=False,
        permission="grep",
    )


def _pattern(source: str) -> Pattern:
    try:
        return parse_pattern(source)
    except PatternError as exc:
        raise ToolFailure(str(exc), cause=exc) from exc


def _require(target: Path, shown: str) -> None:
    if not os.path.exists(target):
        raise ToolFailure(
            f"Path not found: {shown}. Check the path: relative paths start at the project root."
        )


async def _search(
    target: Path,
    root: Path,
    pattern: Pattern,
    include: re.Pattern[str] | None,
    params: GrepInput,
) -> tuple[Found, Engine]:
    """List the files, then run the engine there is; a pattern ripgrep refuses fails like
    an invalid one. Worker threads see ``stop`` once the call ends, even cancelled."""
    rg = find_ripgrep()
    stop = threading.Event()
    try:
        files = await asyncio.to_thread(candidates, target, root, include, stop)
        if rg is None:
            found = await asyncio.to_thread(search_python, files, pattern, params.limit, stop)
            return found, "python"
        return await search_rg(rg, files, pattern, params.limit), "ripgrep"
    except PatternError as exc:
        raise ToolFailure(str(exc), cause=exc) from exc
    finally:
        stop.set()


def candidates(
    target: Path, root: Path, include: re.Pattern[str] | None, stop: threading.Event
) -> list[str]:
    """The files to search, in order (binary ones are dropped by the engines)."""
    walked = (
        [Walked(target.name, str(target), os.path.islink(target))]
        if os.path.isfile(target)
        else walk_files(target, root, stop)
    )
    allowed = (root, Path(os.path.realpath(target)))
    return [file.path for file in walked if _wanted(file, include, allowed)]


def _wanted(file: Walked, include: re.Pattern[str] | None, allowed: tuple[Path, ...]) -> bool:
    if include is not None and not include.fullmatch(file.relative):
        return False
    if not file.link:
        return True
    real = Path(os.path.realpath(file.path))
    return any(real.is_relative_to(directory) for directory in allowed)


def _result(
    found: Found, engine: Engine, params: GrepInput, services: FileServices, target: Path
) -> ToolResult:
    matches = [
        GrepMatch(path=services.shown(Path(m.path)), line=m.line, text=m.text)
        for m in found.matches
    ]
    output = GrepOutput(
        matches=matches,
        total=found.total,
        files=found.files,
        truncated=found.total > len(matches),
    )
    return ToolResult(
        content=_render(output, params.pattern, services.shown(target)),
        metadata={"engine": engine, "count": found.total, "limit": params.limit},
        output=output,
    )


def _render(output: GrepOutput, pattern: str, where: str) -> str:
    place = "the project root" if where == "." else where
    if not output.matches:
        return (
            f"No matches for {pattern!r} in {place}. The pattern is a regular expression: "
            "escape . ( ) [ ] { } * + ? | to match them literally, or try (?i) for case."
        )
    noun = "match" if output.total == 1 else "matches"
    head = f"Found {output.total} {noun} in {output.files} file{'s' * (output.files != 1)}"
    if output.truncated:
        head += (
            f"; showing the first {len(output.matches)}. Narrow the pattern, path or "
            "include to see the rest."
        )
    blocks = [
        f"{path}:\n" + "\n".join(f"  L{m.line}: {m.text}" for m in group)
        for path, group in itertools.groupby(output.matches, key=lambda m: m.path)
    ]
    return head + "\n\n" + "\n\n".join(blocks)
