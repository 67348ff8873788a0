"""How ``grep`` runs (the tool is declared in ``builtin_plugins/grep.py``).

Two engines give the same answer: ripgrep when ``_run/grep_rg.find_ripgrep`` finds one,
the Python engine otherwise. Everything that decides the answer is shared: the files and
their order (``_run/ignore.py``), the binary rule and line splitting
(``_run/grep_python.py``), the regex dialect (``_run/grep_dialect.py``), and the
rendering below. ripgrep only does the matching.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import threading
from pathlib import Path
from typing import Literal

from tooldeck._tool import ToolContext, ToolFailure, ToolResult
from tooldeck.builtin_plugins._run.files import FileServices, PathKind, file_executor
from tooldeck.builtin_plugins._run.glob import pattern_matcher
from tooldeck.builtin_plugins._run.grep_python import (
    Found,
    Pattern,
    PatternError,
    parse_pattern,
    search_python,
)
from tooldeck.builtin_plugins._run.grep_rg import find_ripgrep, search_rg
from tooldeck.builtin_plugins._run.ignore import GlobMatcher, Walked, walk_files
from tooldeck.builtin_plugins._run.lookalikes import noted, recover
from tooldeck.builtin_plugins.grep import GrepInput, GrepMatch, GrepOutput

Engine = Literal["ripgrep", "python"]


async def _grep(services: FileServices, params: GrepInput, ctx: ToolContext) -> ToolResult:
    pattern = _pattern(params.pattern)
    include = pattern_matcher(params.include) if params.include else None
    raw, note = recover(services.lexical(params.path or "."), params.path or ".")
    kind: PathKind = "file" if os.path.isfile(services.lexical(raw)) else "directory"
    gate = services.gate(ctx)
    target = await services.resolve(gate, raw, kind, reading=True)
    await services.ask(gate, "grep", target, {"pattern": params.pattern, "path": str(target)})
    _require(target, services.shown(target))
    found, engine = await _search(target, services.location.root, pattern, include, params)
    return noted(_result(found, engine, params, services, target), note)


executor = file_executor(_grep)
"""``grep`` bound to the Location's file services (see ``files.file_executor``)."""


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
    include: GlobMatcher | None,
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
    target: Path, root: Path, include: GlobMatcher | None, stop: threading.Event
) -> list[str]:
    """The files to search, in order (binary ones are dropped by the engines)."""
    walked = (
        [Walked(target.name, str(target), os.path.islink(target))]
        if os.path.isfile(target)
        else walk_files(target, root, stop)
    )
    allowed = (root, Path(os.path.realpath(target)))
    return [file.path for file in walked if _wanted(file, include, allowed)]


def _wanted(file: Walked, include: GlobMatcher | None, allowed: tuple[Path, ...]) -> bool:
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
