"""The ``write`` built-in: create a file or replace its whole content.

Order of a call: resolve the path (``external_directory`` when it leads outside the
Location) → take the file's write lock → read what is there now, for the diff (a FIFO
or a device is refused here) → assert ``edit`` with that diff in the ask → check the
file is unchanged → replace it atomically (``_run/writes.py``). Nothing is written
unless the ask returned, so a "reject" (a decline signal this module never catches)
leaves the disk untouched.

An existing file keeps its UTF-8 BOM and, when every line ended in CRLF and the new
content uses plain newlines, its CRLF line endings: a model rewriting a Windows file
should not turn every line of it into a change.
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
    """Add ``write``; its code (``_run/write.py``) loads on the first call."""
    editor.add(
        Tool(
            name="write",
            description=DESCRIPTION,
            input=WriteInput,
            output=WriteOutput,
            execute=deferred("write", location),
            codemode=False,
            permission="edit",
        )
    )
