"""Every exception a host or a pack author can meet, in one place.

Two kinds that must never be confused:

* **Signals** are how a tool call ends other than with a result, and the call boundary
  (``run_tool_call``) turns each into an outcome the model reads. ``ToolFailure`` is
  the expected, model-visible failure; ``PermissionCorrected`` a "no" with feedback
  (a failure carrying the feedback); ``PermissionBlocked`` a deny rule (a failure). The
  decline signals derive from ``BaseException`` on purpose: a leaf's ``except
  Exception`` blanket cannot swallow them, so a user's "no" always travels to the
  boundary and resurfaces there as a typed ``declined`` outcome.
* **Errors** derive from ``TooldeckError`` (an ``Exception``; ``PermissionBlocked``
  is the one signal among them, so ``except TooldeckError`` also sees a deny rule).
  They describe a mistake of a host, a pack author, a config file or a program tooldeck
  runs, and carry enough context to fix it (who, where, what was expected). Each is
  raised as its specific class, never as ``TooldeckError`` itself.

Every class below is exported from ``tooldeck``. ``ToolFailure``, ``AwaitingInput`` and
``FrozenToolError`` are defined with ``Tool`` (this module imports nothing, so every
layer can raise its errors); the others live here. Arguments of the wrong type or value
raise Python's own ``TypeError``/``ValueError``, as any library does.

::

    BaseException
     ├── PermissionDeclined            signal: the user rejected a permission ask
     ├── QuestionDismissed             signal: the user dismissed a question (or no one can answer)
     ├── PermissionDeferred            signal: an ask the host answers later (on_ask="defer")
     └── Exception
          ├── ToolFailure              signal: expected, model-visible failure of a tool call
          │    └── AwaitingInput       signal: stopped at a question answered in its next run
          ├── PermissionCorrected      signal: rejected *with feedback*; a failure carrying it
          ├── AttributeError
          │    └── FrozenToolError     error: an attempt to change a Tool: use tool.replace(...)
          └── TooldeckError            root of tooldeck's own errors (never raised itself)
               ├── PermissionBlocked    signal: a deny rule matched a requested resource
               ├── ConfigError          a config key that is unknown, mistyped or not available yet
               ├── PluginError          a plugin that failed to import, register or run a hook
               ├── SessionError         a closed session used, or a call of another session
               ├── ToolDefectError      a tool broke its own contract: the author's bug
               ├── PendingCallError     a pending call resume refuses: unknown, expired, changed
               ├── UsageError           tooldeck called the wrong way or at the wrong time
               ├── ReplyError           an asker or answerer returned something that is no reply
               ├── ExternalError        a program or service tooldeck runs failed
               │    └── StoreUnavailable  the store did not answer in time: retry later
               └── PackBuildError       tooldeck.testing could not build or install a pack
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tooldeck.host.config.config import PermissionRule

__all__ = [
    "ConfigError",
    "ExternalError",
    "PackBuildError",
    "PendingCallError",
    "PermissionBlocked",
    "PermissionCorrected",
    "PermissionDeclined",
    "PermissionDeferred",
    "PluginError",
    "QuestionDismissed",
    "ReplyError",
    "SessionError",
    "StoreUnavailable",
    "ToolDefectError",
    "TooldeckError",
    "UsageError",
]


class TooldeckError(Exception):
    """Root of every error tooldeck raises about its own usage or runtime.

    Catch it to catch them all; tooldeck raises only its subclasses.
    """


class UsageError(TooldeckError):
    """tooldeck called the wrong way or at the wrong time: ``execute_sync`` inside a
    running event loop, a resource used after it was closed, options that cannot work
    together. The message says what to do instead."""


class ReplyError(TooldeckError):
    """A host's asker or answerer returned something that is not a reply: the message
    shows what it returned and what was expected. The call it answered fails as a
    defect; the host keeps serving."""


class ExternalError(TooldeckError):
    """A program or service tooldeck runs failed in a way no input explains (ripgrep
    exiting with an error, the MCP event loop not starting); the message names it and
    quotes what it said."""


class StoreUnavailable(ExternalError):
    """The store (approvals, pending calls) could not be reached within its bound
    (``[store] timeout_s``): the server is down or restarting, the network or a disk
    stalled, every pooled connection is busy. Nothing was half-done on tooldeck's side:
    an operation that met a dropped connection was checked, and retried or reported, so
    the same request can simply be sent again. The message names the store and what
    failed."""


class PackBuildError(TooldeckError):
    """``tooldeck.testing`` could not build or install a pack: the message names the
    project or wheel and what to change (a missing build requirement, a failed build)."""


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
    id in the store), ``"expired"`` (older than ``[permissions] pending_ttl_s``),
    ``"changed"`` (the tool's definition differs from the one the ask was made under) or
    ``"principal"`` (a served principal answering another principal's question)."""

    def __init__(self, pending_id: str, reason: str, message: str) -> None:
        super().__init__(f"pending call {pending_id!r}: {message}")
        self.pending_id = pending_id
        self.reason = reason


class QuestionDismissed(BaseException):
    """The user dismissed a question. Travels past leaf code to the session boundary."""
