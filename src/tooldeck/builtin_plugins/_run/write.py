"""How ``write`` runs (the tool is declared in ``builtin_plugins/write.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tooldeck._tool import ToolContext, ToolFailure, ToolResult
from tooldeck.builtin_plugins._run.files import (
    FileServices,
    TextFile,
    count_lines,
    file_executor,
    os_failure,
    text_file,
    unified_diff,
    write_bytes,
)
from tooldeck.builtin_plugins.write import WriteInput, WriteOutput


async def _write(services: FileServices, data: WriteInput, ctx: ToolContext) -> ToolResult:
    gate = services.gate(ctx)
    path = await services.resolve(gate, data.path, "file")
    shown = services.shown(path)
    before = _existing(path, shown)
    after = (before.file if before else TextFile("")).encode(data.content)
    if before is not None and before.raw == after:
        text = f"{shown} already has this content ({_size(data.content, after)}); not written."
        return ToolResult(text, {"path": str(path)}, _output(path, data.content, after, False))
    diff = unified_diff(before.file.text if before else None, text_file(data.content).text, shown)
    await services.ask(gate, "edit", path, {"path": str(path), **diff.metadata()})
    write_bytes(path, after, shown)
    verb = "Overwrote" if before else "Created"
    text = f"{verb} {shown} ({_size(data.content, after)})."
    metadata = {"path": str(path), "created": before is None, **diff.metadata()}
    return ToolResult(text, metadata, _output(path, data.content, after, True, before is None))


executor = file_executor(_write)
"""``write`` bound to the Location's file services (see ``files.file_executor``)."""


@dataclass(frozen=True, slots=True)
class _Existing:
    raw: bytes
    file: TextFile  # decoded leniently: only for the diff, the BOM and the line endings


def _existing(path: Path, shown: str) -> _Existing | None:
    """What the file holds now, or ``None`` when it does not exist yet."""
    if path.is_dir():
        raise ToolFailure(f"{shown} is a directory; write needs the path of a file.")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:  # e.g. a parent that is a file: the write would fail too
        raise os_failure(exc, shown, "write") from exc
    return _Existing(raw, text_file(raw.decode("utf-8", errors="replace")))


def _size(content: str, data: bytes) -> str:
    lines = count_lines(content)
    return f"{lines:,} line{'' if lines == 1 else 's'}, {len(data):,} bytes"


def _output(
    path: Path, content: str, data: bytes, changed: bool, created: bool = False
) -> WriteOutput:
    return WriteOutput(
        path=str(path),
        created=created,
        changed=changed,
        lines=count_lines(content),
        bytes=len(data),
    )
