"""How ``glob`` runs (the tool is declared in ``builtin_plugins/glob.py``)."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

from tooldeck._tool import ToolContext, ToolFailure, ToolResult
from tooldeck.builtin_plugins._run.files import FileServices, file_executor
from tooldeck.builtin_plugins._run.ignore import GlobError, GlobMatcher, compile_glob, walk_files
from tooldeck.builtin_plugins._run.lookalikes import noted, recover
from tooldeck.builtin_plugins.glob import GlobInput, GlobOutput


async def _glob(services: FileServices, params: GlobInput, ctx: ToolContext) -> ToolResult:
    matcher = pattern_matcher(params.pattern)
    gate = services.gate(ctx)
    raw, note = recover(services.lexical(params.path or "."), params.path or ".")
    directory = await services.resolve(gate, raw, "directory", reading=True)
    metadata = {"pattern": params.pattern, "path": str(directory)}
    await services.ask(gate, "glob", directory, metadata)
    require_directory(directory, services.shown(directory))
    found = await _find(directory, services.location.root, matcher)
    return noted(_result(found, params, services, directory), note)


executor = file_executor(_glob)
"""``glob`` bound to the Location's file services (see ``files.file_executor``)."""


def pattern_matcher(pattern: str) -> GlobMatcher:
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


async def _find(directory: Path, root: Path, matcher: GlobMatcher) -> list[str]:
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
