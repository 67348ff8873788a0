"""The ``grep`` built-in: search file contents with a regex, honouring ``.gitignore``.

Order of a call: validate the pattern and ``include`` (a bad one fails before anyone is
asked) → resolve the path (``external_directory`` when it leads outside the Location) →
assert ``grep`` on it → check it exists → list the files → search them.

The search runs on ripgrep when there is one, in Python otherwise, with the same
answer either way (``_run/grep.py``).

A symlinked file is searched only when it leads into the Location or the searched
directory, so a link cannot carry outside content into the answer unasked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from tooldeck._tool import Tool
from tooldeck.builtin_plugins._deferred import deferred
from tooldeck.builtin_plugins._model import Model
from tooldeck.hookspecs import hookimpl

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location
    from tooldeck.host.registry.editor import ToolEditor

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
MAX_LINE_CHARS = 500
"""Matched lines longer than this are cut (minified files would flood the answer)."""

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
    """Add ``grep``; its code (``_run/grep.py``) loads on the first call."""
    editor.add(
        Tool(
            name="grep",
            description=DESCRIPTION,
            input=GrepInput,
            output=GrepOutput,
            execute=deferred("grep", location),
            codemode=False,
            permission="grep",
        )
    )
