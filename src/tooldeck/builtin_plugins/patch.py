"""The ``patch`` built-in: apply a multi-file patch envelope, checked in full before writing.

The leaf owns the order of effects:

1. parse the envelope (a syntax error names the patch line);
2. resolve every path, asking ``external_directory`` for those outside the Location,
   and take the write lock of every file it touches;
3. read the files and apply every hunk in memory, so a hunk that does not match fails
   the call before anything is written;
4. ask ``edit`` once, for every touched file, with the combined diff;
5. check no file changed since it was read, write every new content to a temporary
   file beside its file (a full disk fails here, with nothing changed), then rename
   and delete in patch order; a rename failing after that says what is on disk.

Operations see the earlier ones of the same patch (delete then add the same path,
update a file twice). CRLF files stay CRLF and a UTF-8 byte-order mark is kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeAlias

from pydantic import Field

from tooldeck._tool import Tool
from tooldeck.builtin_plugins._deferred import deferred
from tooldeck.builtin_plugins._model import Model
from tooldeck.hookspecs import hookimpl

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location
    from tooldeck.host.registry.editor import ToolEditor

DESCRIPTION = """\
Add, delete, update and move files with one patch. Every hunk is checked against the \
current files before anything is written, and the user approves all changes at once.

The patch is an envelope of file operations:

*** Begin Patch
*** Add File: docs/notes.md
+every line of a new file starts with +
*** Delete File: old/unused.py
*** Update File: src/app.py
*** Move to: src/main.py
@@ def handler(request):
     context line (unchanged)
-    removed line
+    added line
*** End Patch

Rules:
- Paths are relative to the project root (or absolute).
- "*** Move to:" is optional and must follow its "*** Update File:" line.
- Each hunk starts with "@@", optionally followed by a line that appears above the change \
(a class or function line) to find the right place. Lines start with " " (context), "-" \
(remove) or "+" (add). Give about 3 lines of context above and below each change, copied \
exactly from the file; hunks must be in file order.
- End a hunk with "*** End of File" when it must match at the end of the file.
- Read a file before updating it. If a hunk does not apply, read the file again and \
rebuild the hunk from its current lines."""

Status: TypeAlias = Literal["A", "M", "D"]
EDIT = "edit"


class PatchInput(Model):
    patch_text: str = Field(
        description="The full patch text, from '*** Begin Patch' to '*** End Patch'."
    )


class PatchedFile(Model):
    status: Status = Field(description="A: added, M: modified or moved, D: deleted.")
    path: str = Field(description="Absolute path of the file (the destination of a move).")
    moved_from: str | None = Field(
        default=None, description="Absolute path the file was moved from, for a move."
    )
    additions: int = Field(description="Lines added.")
    deletions: int = Field(description="Lines removed.")


class PatchOutput(Model):
    files: list[PatchedFile] = Field(description="The files changed, in patch order.")


@hookimpl
def tool_transform(editor: ToolEditor, location: Location) -> None:
    """Add the ``patch`` tool; it shares the ``edit`` permission action with edit/write.

    Its code (``_run/patch.py``) loads on the first call.
    """
    editor.add(
        Tool(
            name="patch",
            description=DESCRIPTION,
            input=PatchInput,
            output=PatchOutput,
            execute=deferred("patch", location),
            codemode=False,
            permission=EDIT,
        )
    )
