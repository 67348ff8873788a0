"""How ``write`` runs (the tool is declared in ``builtin_plugins/write.py``)."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass

from tooldeck._tool import ToolContext, ToolFailure, ToolResult
from tooldeck.builtin_plugins._run.files import (
    Diff,
    FileServices,
    TextFile,
    file_executor,
    text_file,
    unified_diff,
)
from tooldeck.builtin_plugins._run.format import with_report, write_then_format
from tooldeck.builtin_plugins._run.writes import Target, writing
from tooldeck.builtin_plugins.write import WriteInput, WriteOutput
from tooldeck.host.call.sizes import count_lines, format_size


async def _write(services: FileServices, data: WriteInput, ctx: ToolContext) -> ToolResult:
    gate = services.gate(ctx)
    target = await Target.resolve(services, gate, data.path)
    if os.path.isdir(target.real):
        raise ToolFailure(f"{target.shown} is a directory; write needs the path of a file.")
    async with writing(services.location, target):
        before = target.read(verb="write")
        plan = await asyncio.to_thread(_plan, before, data.content, target.shown)
        path = str(target.path)
        if plan.diff is None:
            text = f"{target.shown} already has this content ({plan.size}); not written."
            return ToolResult(text, {"path": path}, plan.output(path, changed=False))
        await services.ask(gate, "edit", target.path, {"path": path, **plan.diff.metadata()})
        done = await write_then_format(
            services, gate, [target.path], lambda: target.replace(before, plan.data)
        )
    text = f"{'Overwrote' if before is not None else 'Created'} {target.shown} ({plan.size})."
    metadata = {"path": path, "created": before is None, **plan.diff.metadata()}
    return with_report(ToolResult(text, metadata, plan.output(path, changed=True)), done)


executor = file_executor(_write)
"""``write`` bound to the Location's file services (see ``files.file_executor``)."""


@dataclass(frozen=True, slots=True)
class _Plan:
    """What the write will do: the bytes, and the diff (``None``: nothing changes)."""

    data: bytes
    lines: int
    created: bool
    diff: Diff | None

    @property
    def size(self) -> str:
        return f"{self.lines:,} line{'' if self.lines == 1 else 's'}, {format_size(len(self.data))}"

    def output(self, path: str, *, changed: bool) -> WriteOutput:
        return WriteOutput(
            path=path,
            created=self.created and changed,
            changed=changed,
            lines=self.lines,
            bytes=len(self.data),
        )


def _plan(before: bytes | None, content: str, shown: str) -> _Plan:
    """The new bytes (keeping the old file's BOM and CRLF endings) and the diff.

    Runs in a worker thread: a diff of a large file takes long enough to stall the loop.
    The old file is decoded leniently, only for the diff, the BOM and the line endings.
    """
    old = text_file(before.decode("utf-8", errors="replace")) if before is not None else None
    data = (old or TextFile("")).encode(content)
    if before == data:
        return _Plan(data, count_lines(content), False, None)
    diff = unified_diff(old.text if old else None, text_file(content).text, shown)
    return _Plan(data, count_lines(content), before is None, diff)
