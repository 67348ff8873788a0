"""The ``write`` built-in: create a file or replace its whole content.

Order of a call: resolve the path (``external_directory`` when it leads outside the
Location) → read what is there now, for the diff → assert ``edit`` with that diff in
the ask → write. Nothing is written unless the ask returned, so a "reject" (a decline
signal this module never catches) leaves the disk untouched.

An existing file keeps its UTF-8 BOM and, when every line ended in CRLF and the new
content uses plain newlines, its CRLF line endings: a model rewriting a Windows file
should not turn every line of it into a change.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field

from tooldeck.builtin_plugins._files import (
    FileServices,
    TextFile,
    count_lines,
    os_failure,
    text_file,
    unified_diff,
    write_bytes,
)
from tooldeck.builtin_plugins._model import Model
from tooldeck.hookspecs import hookimpl
from tooldeck.tool import Tool, ToolContext, ToolFailure, ToolResult

if TYPE_CHECKING:
    from tooldeck.host.editor import ToolEditor
    from tooldeck.host.location import Location

DESCRIPTION = """\
Create a file, or replace the whole content of an existing one, with `content`.

Missing parent directories are created. To change part of an existing file, prefer \
`edit`: it sends only the change and cannot lose the rest of the file by accident. \
If the file exists, read it first so the new content keeps what should stay.

`path` is relative to the project root, or absolute; the user may be asked to approve \
the change, shown as a diff, and paths outside the project need their approval too."""


class WriteInput(Model):
    path: str = Field(
        min_length=1,
        description="The file to write, relative to the project root or absolute.",
    )
    content: str = Field(description="The complete new content of the file.")


class WriteOutput(Model):
    path: str = Field(description="The absolute path that was written.")
    created: bool = Field(description="True if the file did not exist before.")
    changed: bool = Field(description="False if the file already had exactly this content.")
    lines: int = Field(description="Lines in the file now.")
    bytes: int = Field(description="Size of the file now, in bytes.")


@hookimpl
def tool_transform(editor: ToolEditor, location: Location) -> None:
    """Add ``write``; its executor captures the Location's services now."""
    services = FileServices.capture(location)

    async def write(data: WriteInput, ctx: ToolContext) -> ToolResult:
        return await _write(services, data, ctx)

    editor.add(
        Tool(
            name="write",
            description=DESCRIPTION,
            input=WriteInput,
            output=WriteOutput,
            execute=write,
            codemode=False,
            permission="edit",
        )
    )


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
