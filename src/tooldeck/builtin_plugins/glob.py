"""The ``glob`` built-in: find files by name, honouring ``.gitignore``.

Order of a call: compile the pattern (a bad pattern fails before anyone is asked) →
resolve the directory (``external_directory`` when it leads outside the Location) →
assert ``glob`` on the absolute directory → check it is a directory → walk it.

Results are paths relative to the Location root (absolute outside it): the form every
other tool accepts, so a result can be passed to ``read`` or ``edit`` as it is. They
come in walk order (``_run/ignore.py``: sorted by path, depth first), which stays
stable from call to call, unlike modification times. The walk and the pattern rules are
those of ``_run/ignore.py``, shared with ``grep``.
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

DESCRIPTION = f"""\
Find files by name with a glob pattern.

Returns matching file paths, one per line, sorted by path: relative to the project \
root (absolute outside it), ready to pass to `read`. At most `limit` paths \
(default {DEFAULT_LIMIT}); when more match, the answer says how many in all. Files \
ignored by `.gitignore` and the `.git` directory are skipped.

Patterns follow `.gitignore` rules: without a `/` they match file names at any depth \
(`*.py`, `test_*.py`); with a `/` they start at the searched directory \
(`src/*.py`, `src/**/*.ts`). `**` spans directories, `*` and `?` stay within one name, \
`{{a,b}}` gives alternatives (`*.{{ts,tsx}}`), `[abc]` character classes. To search \
inside files, use `grep`."""


class GlobInput(Model):
    pattern: str = Field(
        min_length=1,
        description="Glob pattern, e.g. '*.py' (any depth), 'src/**/*.ts', '*.{ts,tsx}'.",
    )
    path: str | None = Field(
        default=None,
        description="Directory to search, relative to the project root or absolute. "
        "Default: the project root.",
    )
    limit: int = Field(
        default=DEFAULT_LIMIT,
        ge=1,
        le=MAX_LIMIT,
        description="The most paths to return.",
    )


class GlobOutput(Model):
    files: list[str] = Field(description="Matching files, as shown (root-relative or absolute).")
    total: int = Field(description="How many files matched in all; may exceed len(files).")
    truncated: bool = Field(description="True when more files matched than `limit`.")


@hookimpl
def tool_transform(editor: ToolEditor, location: Location) -> None:
    """Add ``glob``; its code (``_run/glob.py``) loads on the first call."""
    editor.add(
        Tool(
            name="glob",
            description=DESCRIPTION,
            input=GlobInput,
            output=GlobOutput,
            execute=deferred("glob", location),
            codemode=False,
            permission="glob",
        )
    )
