"""tooldeck: host LLM tools as pip-installable plugins.

The public API is this curated list. Names are resolved lazily (PEP 562) so that
``import tooldeck`` — and with it ``tooldeck --version`` — stays cheap: typing,
pydantic, jsonschema and the plugin machinery load only when a name that needs them
is used.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (mypy knows it)
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from tooldeck._function_tool import tool as tool
    from tooldeck._tool import FilePart as FilePart
    from tooldeck._tool import ImagePart as ImagePart
    from tooldeck._tool import TextPart as TextPart
    from tooldeck._tool import Tool as Tool
    from tooldeck._tool import ToolContext as ToolContext
    from tooldeck._tool import ToolFailure as ToolFailure
    from tooldeck._tool import ToolResult as ToolResult
    from tooldeck.errors import PermissionBlocked as PermissionBlocked
    from tooldeck.errors import PermissionCorrected as PermissionCorrected
    from tooldeck.errors import PermissionDeclined as PermissionDeclined
    from tooldeck.errors import QuestionDismissed as QuestionDismissed
    from tooldeck.errors import TooldeckError as TooldeckError
    from tooldeck.hookspecs import hookimpl as hookimpl
    from tooldeck.hookspecs import hookspec as hookspec
    from tooldeck.host.execution.outcome import ToolCallOutcome as ToolCallOutcome
    from tooldeck.host.execution.outcome import run_tool_call as run_tool_call
    from tooldeck.host.execution.snapshot import ExecutedTool as ExecutedTool
    from tooldeck.host.execution.snapshot import Snapshot as Snapshot
    from tooldeck.host.execution.snapshot import ToolCall as ToolCall
    from tooldeck.host.location.location import Location as Location
    from tooldeck.host.location.permission import PermissionRequest as PermissionRequest
    from tooldeck.host.location.permission import Reject as Reject
    from tooldeck.host.plugins.host import Host as Host
    from tooldeck.host.registry.editor import ToolEditor as ToolEditor
    from tooldeck.host.service import Registration as Registration
    from tooldeck.host.service import ToolService as ToolService


_LOCATIONS = {
    "ExecutedTool": "tooldeck.host.execution.snapshot",
    "FilePart": "tooldeck._tool",
    "Host": "tooldeck.host.plugins.host",
    "ImagePart": "tooldeck._tool",
    "Location": "tooldeck.host.location.location",
    "PermissionBlocked": "tooldeck.errors",
    "PermissionCorrected": "tooldeck.errors",
    "PermissionDeclined": "tooldeck.errors",
    "PermissionRequest": "tooldeck.host.location.permission",
    "QuestionDismissed": "tooldeck.errors",
    "Registration": "tooldeck.host.service",
    "Reject": "tooldeck.host.location.permission",
    "Snapshot": "tooldeck.host.execution.snapshot",
    "TextPart": "tooldeck._tool",
    "Tool": "tooldeck._tool",
    "ToolCall": "tooldeck.host.execution.snapshot",
    "ToolCallOutcome": "tooldeck.host.execution.outcome",
    "ToolContext": "tooldeck._tool",
    "ToolEditor": "tooldeck.host.registry.editor",
    "ToolFailure": "tooldeck._tool",
    "ToolResult": "tooldeck._tool",
    "ToolService": "tooldeck.host.service",
    "TooldeckError": "tooldeck.errors",
    "hookimpl": "tooldeck.hookspecs",
    "hookspec": "tooldeck.hookspecs",
    "run_tool_call": "tooldeck.host.execution.outcome",
    "tool": "tooldeck._function_tool",
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
