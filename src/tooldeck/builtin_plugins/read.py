"""The ``read`` built-in: a text file as numbered lines, a directory listing, an image or a PDF.

Order of a call: resolve the path (``external_directory`` when it leads outside the
Location) → assert ``read`` on the absolute path → touch the file. The only earlier
filesystem access is one ``stat`` that decides whether the outside ask is about a
directory or a file's parent.

``read`` bounds its own output to the Location's ``[output]`` limits: a page stops at
``limit`` lines or at the byte budget, whichever comes first, and ends with the offset
to continue from. Its metadata then says ``truncated``, so the session runner does not
cut the page again and save a copy of a file that is already on disk.
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

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000  # also where ``_run/files.py`` cuts the lines it numbers
MAX_ATTACHMENT_BYTES = 32 * 1024 * 1024
"""The largest PDF ``read`` attaches: the smallest request limit of the providers that
take PDFs (Anthropic's 32 MB)."""

DESCRIPTION = f"""\
Read a file or list a directory in the project.

A text file comes back as numbered lines, `N: text`. The `N: ` prefix is not part of \
the file: leave it out when you copy text into `edit`. A page holds up to \
{DEFAULT_LIMIT} lines (less if they are very long); when the file goes on, the result \
ends with the `offset` to continue from. Lines longer than {MAX_LINE_CHARS} characters \
are cut. A directory lists its entries, subdirectories first with a trailing `/`. \
Images (PNG, JPEG, GIF, WEBP) are returned as images, PDFs as file attachments (up to \
{MAX_ATTACHMENT_BYTES // (1024 * 1024)} MiB). Other binary files and files that are not \
UTF-8 cannot be read.

`path` is relative to the project root, or absolute; paths outside the project need \
the user's approval."""


class ReadInput(Model):
    path: str = Field(
        min_length=1,
        description="The file or directory to read, relative to the project root or absolute.",
    )
    offset: int = Field(
        default=1,
        ge=0,
        description="The 1-based line (or directory entry) to start at; 0 also means the "
        "first. Use it to continue a long file from where the previous page ended.",
    )
    limit: int = Field(
        default=DEFAULT_LIMIT,
        ge=1,
        description=f"The most lines (or entries) to return; default {DEFAULT_LIMIT}.",
    )


class ReadOutput(Model):
    path: str = Field(description="The absolute path that was read.")
    kind: Literal["text", "directory", "image", "pdf"] = Field(description="What the path is.")
    total: int = Field(
        description="Lines in the file, entries in the directory or pages in the PDF "
        "(0 if unknown); 0 for images."
    )
    first: int = Field(description="The first line or entry shown (1-based); 0 if none.")
    last: int = Field(description="The last line or entry shown; 0 if none.")
    next_offset: int | None = Field(
        description="The offset that continues the read, or null when nothing is left."
    )
    mime_type: str | None = Field(default=None, description="The media type, for images and PDFs.")


@hookimpl
def tool_transform(editor: ToolEditor, location: Location) -> None:
    """Add ``read``; its code (``_run/read.py``) loads on the first call."""
    editor.add(
        Tool(
            name="read",
            description=DESCRIPTION,
            input=ReadInput,
            output=ReadOutput,
            execute=deferred("read", location),
            codemode=False,
            permission="read",
        )
    )
