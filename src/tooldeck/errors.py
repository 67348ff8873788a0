"""Every exception a host or a pack author can meet, in one place.

Three families that must never be confused:

* **Usage and runtime errors** derive from ``TooldeckError`` (an ``Exception``). They
  describe a mistake of a host, a pack author or a config file and carry enough context
  to fix it (who, where, what was expected).
* **Tool signals** are how a leaf talks to the model: ``ToolFailure`` is the only
  expected, model-visible failure of a tool call, and ``PermissionCorrected`` is a "no"
  with feedback that leaves turn into one.
* **Decline signals** derive from ``BaseException`` on purpose: a leaf's
  ``except Exception`` blanket cannot swallow them, so a user's "no" always travels to
  the session boundary and resurfaces there as a typed ``declined`` outcome.

Every class below is exported from ``tooldeck``. ``ToolFailure`` and ``FrozenToolError``
are defined with ``Tool`` (this module imports nothing, so every layer can raise its
errors); the others live here. Arguments of the wrong type or value raise Python's own
``TypeError``/``ValueError``, as any library does.

::

    BaseException
     ├── PermissionDeclined            the user rejected a permission ask
     ├── QuestionDismissed             the user dismissed a question (or no one can answer)
     ├── PermissionDeferred            an ask the host chose to answer later (on_ask="defer")
     └── Exception
          ├── ToolFailure              expected, model-visible failure of a tool call
          ├── PermissionCorrected      rejected *with feedback*; leaves turn it into a ToolFailure
          ├── AttributeError
          │    └── FrozenToolError     an attempt to change a Tool: use tool.replace(...)
          └── TooldeckError            root of tooldeck's own errors
               ├── ConfigError          a config key that is unknown, mistyped or not available yet
               ├── PluginError          a plugin that failed to import, register or run a hook
               ├── PermissionBlocked    a deny rule matched a requested resource
               ├── SessionError         a closed session used, or a call of another session
               ├── PendingCallError     a pending call resume refuses: unknown, expired, changed
               └── ToolDefectError      a tool broke its own contract: the author's bug
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tooldeck.host.location.config import PermissionRule

__all__ = [
    "ConfigError",
    "PendingCallError",
    "PermissionBlocked",
    "PermissionCorrected",
    "PermissionDeclined",
    "PermissionDeferred",
    "PluginError",
    "QuestionDismissed",
    "SessionError",
    "ToolDefectError",
    "TooldeckError",
]


class TooldeckError(Exception):
    """Root of every error tooldeck raises about its own usage or runtime."""


class ConfigError(TooldeckError):
    """A config file that does not match the schema: names the file, key and expectation."""

    def __init__(self, path: str, key: str, message: str) -> None:
        super().__init__(f"{path}: {key}: {message}")
        self.path = path
        self.key = key
        self.message = message


class PluginError(TooldeckError):
    """A plugin that could not be loaded or whose hook raised."""

    def __init__(self, plugin: str, message: str) -> None:
        super().__init__(f"plugin {plugin!r}: {message}")
        self.plugin = plugin
        self.message = message


class SessionError(TooldeckError):
    """A session used wrongly: a closed scope, or a session snapshot given another session."""

    def __init__(self, session_id: str, message: str) -> None:
        super().__init__(f"session {session_id!r}: {message}")
        self.session_id = session_id
        self.message = message


class ToolDefectError(TooldeckError):
    """A tool broke its own contract: the tool author's bug, not the model's.

    The one way to signal a defect in what an executor returned: something other than a
    ``ToolResult``, ``output`` from a tool that declares no output schema, content that
    is not text or content parts. ``run_tool_call`` reports it as ``failed`` /
    ``unknown`` and logs the traceback; the model never sees the details.
    """

    def __init__(self, tool: str, message: str) -> None:
        super().__init__(f"tool {tool!r}: {message}")
        self.tool = tool
        self.message = message


class PermissionBlocked(TooldeckError):
    """A deny rule matched: the call fails with ``permission.rejected``, no one is asked."""

    def __init__(
        self, action: str, resources: Sequence[str], rule: PermissionRule | None = None
    ) -> None:
        shown = ", ".join(resources) or "*"
        super().__init__(f"permission denied by rule: {action} on {shown}")
        self.action = action
        self.resources = tuple(resources)
        self.rule = rule


class PermissionCorrected(Exception):
    """The user rejected a permission ask *with feedback*.

    An ordinary ``Exception``: leaves catch it and raise ``ToolFailure`` carrying
    ``feedback`` so the model can change course and continue.
    """

    def __init__(self, feedback: str) -> None:
        super().__init__(feedback)
        self.feedback = feedback


class PermissionDeclined(BaseException):
    """The user rejected a permission ask. Travels past leaf code to the session boundary."""

    def __init__(self, action: str = "", resources: Sequence[str] = ()) -> None:
        super().__init__(f"permission declined: {action} {', '.join(resources)}".rstrip())
        self.action = action
        self.resources = tuple(resources)


class PermissionDeferred(BaseException):
    """An ask the host defers (``on_ask="defer"``): the call stops at its ask and ends
    ``pending``. A ``BaseException`` like the decline signals, so no leaf's
    ``except Exception`` runs on as if the user had said yes. ``request`` is the
    ``PermissionRequest`` that was not answered."""

    def __init__(self, request: object) -> None:
        action = getattr(request, "action", "")
        super().__init__(f"permission ask deferred: {action}".rstrip())
        self.request = request


class PendingCallError(TooldeckError):
    """``host.resume`` cannot answer a pending call: ``reason`` is ``"unknown"`` (no such
    id in the store), ``"expired"`` (older than ``[permissions] pending_ttl_s``) or
    ``"changed"`` (the tool's definition differs from the one the ask was made under)."""

    def __init__(self, pending_id: str, reason: str, message: str) -> None:
        super().__init__(f"pending call {pending_id!r}: {message}")
        self.pending_id = pending_id
        self.reason = reason


class QuestionDismissed(BaseException):
    """The user dismissed a question. Travels past leaf code to the session boundary."""
