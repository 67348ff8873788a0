"""tooldeck-git: read-only git tools in namespace ``git``.

``git_status``, ``git_log``, ``git_diff`` and ``git_show`` run the real ``git`` binary in
the project (or in a ``path`` inside it), declare pydantic outputs, are code-mode tools,
and all assert one permission action, ``git.read``, on the directory they run in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck import hookimpl

from tooldeck_git._tools import ACTION, NAMESPACE, TOOLS

if TYPE_CHECKING:
    from tooldeck import ToolEditor

__all__ = ["ACTION", "NAMESPACE", "TOOLS", "namespace_descriptions", "tool_transform"]

DESCRIPTION = (
    "Read-only git: the status, history, diffs and commits of the project's repository. "
    "Nothing here changes the repository; every call asks for `git.read` on the directory "
    "it runs in."
)


@hookimpl
def namespace_descriptions(editor: ToolEditor) -> None:
    """Describe namespace ``git``."""
    editor.namespace(NAMESPACE, DESCRIPTION)


@hookimpl
def tool_transform(editor: ToolEditor) -> None:
    """Add the four tools; they were built once, at import."""
    for tool in TOOLS:
        editor.add(tool)
