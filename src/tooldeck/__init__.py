"""tooldeck: host LLM tools as pip-installable plugins.

The public API is this curated list. Names are resolved lazily (PEP 562) so that
``import tooldeck`` — and with it ``tooldeck --version`` — stays cheap: typing,
pydantic, jsonschema and the plugin machinery load only when a name that needs them
is used.
"""

from __future__ import annotations

import sys
import types

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (mypy knows it)
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from tooldeck.errors import PermissionBlocked as PermissionBlocked
    from tooldeck.errors import PermissionCorrected as PermissionCorrected
    from tooldeck.errors import PermissionDeclined as PermissionDeclined
    from tooldeck.errors import QuestionDismissed as QuestionDismissed
    from tooldeck.errors import TooldeckError as TooldeckError
    from tooldeck.function_tool import tool as tool
    from tooldeck.hookspecs import hookimpl as hookimpl
    from tooldeck.hookspecs import hookspec as hookspec
    from tooldeck.host.editor import ToolEditor as ToolEditor
    from tooldeck.host.host import Host as Host
    from tooldeck.host.location import Location as Location
    from tooldeck.host.permission import PermissionRequest as PermissionRequest
    from tooldeck.host.permission import Reject as Reject
    from tooldeck.host.service import Registration as Registration
    from tooldeck.host.service import ToolService as ToolService
    from tooldeck.host.session import ToolCallOutcome as ToolCallOutcome
    from tooldeck.host.session import run_tool_call as run_tool_call
    from tooldeck.host.snapshot import ExecutedTool as ExecutedTool
    from tooldeck.host.snapshot import Snapshot as Snapshot
    from tooldeck.host.snapshot import ToolCall as ToolCall
    from tooldeck.tool import FilePart as FilePart
    from tooldeck.tool import ImagePart as ImagePart
    from tooldeck.tool import TextPart as TextPart
    from tooldeck.tool import Tool as Tool
    from tooldeck.tool import ToolContext as ToolContext
    from tooldeck.tool import ToolFailure as ToolFailure
    from tooldeck.tool import ToolResult as ToolResult
else:

    def tool(fn: Any = None, /, **options: Any) -> Any:
        """Build a Tool from a typed function: ``tool(fn)`` or ``@tool(...)``."""
        from tooldeck.function_tool import tool as build

        return build(fn, **options) if fn is not None else build(**options)

    class _Package(types.ModuleType):
        """Keeps ``tooldeck.tool`` meaning the decorator.

        ``tooldeck.tool`` is also a submodule; importing it would otherwise rebind the
        package attribute to the module. (``from tooldeck.tool import Tool`` is
        unaffected: it reads the module from ``sys.modules``.)
        """

        def __setattr__(self, name: str, value: Any) -> None:
            if name == "tool" and isinstance(value, types.ModuleType):
                return
            super().__setattr__(name, value)

    sys.modules[__name__].__class__ = _Package


_LOCATIONS = {
    "ExecutedTool": "tooldeck.host.snapshot",
    "FilePart": "tooldeck.tool",
    "Host": "tooldeck.host.host",
    "ImagePart": "tooldeck.tool",
    "Location": "tooldeck.host.location",
    "PermissionBlocked": "tooldeck.errors",
    "PermissionCorrected": "tooldeck.errors",
    "PermissionDeclined": "tooldeck.errors",
    "PermissionRequest": "tooldeck.host.permission",
    "QuestionDismissed": "tooldeck.errors",
    "Registration": "tooldeck.host.service",
    "Reject": "tooldeck.host.permission",
    "Snapshot": "tooldeck.host.snapshot",
    "TextPart": "tooldeck.tool",
    "Tool": "tooldeck.tool",
    "ToolCall": "tooldeck.host.snapshot",
    "ToolCallOutcome": "tooldeck.host.session",
    "ToolContext": "tooldeck.tool",
    "ToolEditor": "tooldeck.host.editor",
    "ToolFailure": "tooldeck.tool",
    "ToolResult": "tooldeck.tool",
    "ToolService": "tooldeck.host.service",
    "TooldeckError": "tooldeck.errors",
    "hookimpl": "tooldeck.hookspecs",
    "hookspec": "tooldeck.hookspecs",
    "run_tool_call": "tooldeck.host.session",
}

__all__ = [
    "ExecutedTool",
    "FilePart",
    "Host",
    "ImagePart",
    "Location",
    "PermissionBlocked",
    "PermissionCorrected",
    "PermissionDeclined",
    "PermissionRequest",
    "QuestionDismissed",
    "Registration",
    "Reject",
    "Snapshot",
    "TextPart",
    "Tool",
    "ToolCall",
    "ToolCallOutcome",
    "ToolContext",
    "ToolEditor",
    "ToolFailure",
    "ToolResult",
    "ToolService",
    "TooldeckError",
    "__version__",
    "hookimpl",
    "hookspec",
    "run_tool_call",
    "tool",
]


def __getattr__(name: str) -> Any:
    module = _LOCATIONS.get(name)
    if module is None:
        raise AttributeError(f"module 'tooldeck' has no attribute {name!r}")
    import importlib  # here: ``import tooldeck`` alone does not need it

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
