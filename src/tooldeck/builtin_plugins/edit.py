"""The ``edit`` built-in: replace one exact piece of a file (or every copy of it).

Order of a call: check the strings (identical or empty ``old_string`` fail before
anything else) → resolve the path (``external_directory`` when outside) → take the
file's write lock → read and decode the file → find the match (in a worker thread) →
assert ``edit`` with the diff in the ask → check the file is unchanged → replace it
atomically (``_run/writes.py``).

Matching is exact first. Models often get invisible details wrong (trailing spaces,
the indentation level of a block, typographic quotes or dashes, a no-break space), so
looser matchers follow, each used **only when it finds exactly one place**: a fuzzy
match is a guess, and a guess is safe only when there is nothing else it could mean.
Several exact matches without ``replace_all``, and several fuzzy ones at all, are
reported with their line numbers instead.

Line endings: the file is matched as ``\\n`` text and a CRLF file is written back as
CRLF; its BOM is kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from tooldeck._tool import Tool
from tooldeck.builtin_plugins._deferred import deferred
from tooldeck.builtin_plugins._model import Model
from tooldeck.hookspecs import hookimpl

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location
    from tooldeck.host.registry.editor import ToolEditor

MatchKind = Literal["exact", "unicode", "trailing_whitespace", "indentation"]

DESCRIPTION = """\
Replace text in an existing file: `old_string` becomes `new_string`.

`old_string` must match the file exactly, including whitespace and indentation: copy \
it from `read` output without the `N: ` line-number prefixes. It must match exactly \
one place; include a few surrounding lines to make it unique, or set `replace_all` to \
change every occurrence (for example to rename something). If the exact text is not \
found, differences in trailing whitespace, in the indentation of the whole block, or \
between typographic and plain quotes, dashes and spaces are tolerated, but only when \
that leaves a single match.

To create a file or replace all of its content, use `write`. The user may be asked to \
approve the change, shown as a diff."""


class EditInput(Model):
    path: str = Field(
        min_length=1,
        description="The file to edit, relative to the project root or absolute.",
    )
    old_string: str = Field(description="The exact text to replace (no line-number prefixes).")
    new_string: str = Field(description="The text to put in its place; must differ from it.")
    replace_all: bool = Field(
        default=False,
        description="Replace every exact occurrence of old_string instead of exactly one.",
    )


class EditOutput(Model):
    path: str = Field(description="The absolute path that was edited.")
    replacements: int = Field(description="How many places were replaced.")
    match: MatchKind = Field(description="How old_string matched: exactly, or which tolerance.")
    lines: list[int] = Field(description="The 1-based line where each replacement starts.")


@hookimpl
def tool_transform(editor: ToolEditor, location: Location) -> None:
    """Add ``edit``; its code (``_run/edit.py``) loads on the first call."""
    editor.add(
        Tool(
            name="edit",
            description=DESCRIPTION,
            input=EditInput,
            output=EditOutput,
            execute=deferred("edit", location),
            codemode=False,
            permission="edit",
        )
    )
