"""The ``glob`` built-in: find files by name, honouring ``.gitignore``.

Order of a call: compile the pattern (a bad pattern fails before anyone is asked) →
resolve the directory (``external_directory`` when it leads outside the Location) →
assert ``glob`` on the absolute directory → check it is a directory → walk it.

Results are paths relative to the Location root (absolute outside it): the form every
other tool accepts, so a result can be passed to ``read`` or ``edit`` as it is. They
come in walk order (``_ignore``: sorted by path, depth first), which stays stable from
call to call, unlike modification times. The walk and the pattern rules are those of
``_ignore``, shared with ``grep``.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field

from tooldeck.builtin_plugins._model import Model
from tooldeck.builtin_plugins._run.files import FileServices
from tooldeck.builtin_plugins._run.ignore import GlobError, compile_glob, walk_files
from tooldeck.hookspecs import hookimpl
from tooldeck.tool import Tool, ToolContext, ToolFailure, ToolResult

if TYPE_CHECKING:
    from tooldeck.host.editor import ToolEditor
    from tooldeck.host.location import Location

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
    """Add ``glob``; it captures the Location's services now, as every leaf does."""
    editor.add(glob_tool(FileServices.capture(location)))


def glob_tool(services: FileServices) -> Tool[GlobInput, GlobOutput]:
    """The ``glob`` tool bound to one Location's services."""

    async def glob(params: GlobInput, ctx: ToolContext) -> ToolResult:
        matcher = pattern_matcher(params.pattern)
        gate = services.gate(ctx)
        directory = await services.resolve(gate, params.path or ".", "directory")
        metadata = {"pattern": params.pattern, "path": str(directory)}
        await services.ask(gate, "glob", directory, metadata)
        require_directory(directory, services.shown(directory))
        found = await _find(directory, services.location.root, matcher)
        return _result(found, params, services, directory)

    return Tool(
        name="glob",
        description=DESCRIPTION,
        input=GlobInput,
        output=GlobOutput,
        execute=glob,
        codemode=False,
        permission="glob",
    )


def pattern_matcher(pattern: str) -> re.Pattern[str]:
    """The compiled glob, or a ``ToolFailure`` saying what is wrong with it."""
    try:
        return compile_glob(pattern)
    except GlobError as exc:
        raise ToolFailure(str(exc), cause=exc) from exc


def require_directory(directory: Path, shown: str) -> None:
    """Fail, saying what to do instead, unless ``directory`` is an existing directory."""
    if os.path.isdir(directory):
        return
    if os.path.exists(directory):
        raise ToolFailure(
            f"{shown} is a file, not a directory. Pass the directory that contains it as "
            "`path`, or open the file with `read`."
        )
    raise ToolFailure(
        f"Directory not found: {shown}. Check the path: relative paths start at the project root."
    )


async def _find(directory: Path, root: Path, matcher: re.Pattern[str]) -> list[str]:
    """The matching files, walked in a worker thread that stops when the call ends."""
    stop = threading.Event()

    def walk() -> list[str]:
        walked = walk_files(directory, root, stop)
        return [file.path for file in walked if matcher.fullmatch(file.relative)]

    try:
        return await asyncio.to_thread(walk)
    finally:
        stop.set()


def _result(
    found: list[str], params: GlobInput, services: FileServices, directory: Path
) -> ToolResult:
    shown = [services.shown(Path(path)) for path in found[: params.limit]]
    output = GlobOutput(files=shown, total=len(found), truncated=len(found) > len(shown))
    return ToolResult(
        content=_render(output, params.pattern, services.shown(directory)),
        metadata={"count": len(found), "limit": params.limit},
        output=output,
    )


def _render(output: GlobOutput, pattern: str, where: str) -> str:
    place = "the project root" if where == "." else where
    if not output.files:
        return (
            f"No files found matching {pattern!r} in {place}. A pattern without '/' "
            "matches names at any depth ('*.py'); one with '/' starts at the searched "
            "directory ('src/**/*.py'). Files ignored by .gitignore are skipped."
        )
    listing = "\n".join(output.files)
    if not output.truncated:
        return listing
    return (
        f"Found {output.total} files; showing the first {len(output.files)} (sorted by "
        "path). Narrow the pattern or the path to see the rest.\n\n" + listing
    )
