"""Every exception tooldeck raises, in one place.

Three families that must never be confused:

* **Usage and runtime errors** derive from ``TooldeckError`` (an ``Exception``). They
  describe a mistake of a host, a pack author or a config file and carry enough context
  to fix it (who, where, what was expected).
* **Tool signals** are how a leaf talks to the model: ``ToolFailure`` is the only
  expected, model-visible failure of a tool call. It lives in ``tooldeck.tool``.
* **Decline signals** derive from ``BaseException`` on purpose: a leaf's
  ``except Exception`` blanket cannot swallow them, so a user's "no" always travels to
  the session boundary and resurfaces there as a typed ``declined`` outcome.

::

    BaseException
     ├── PermissionDeclined            the user rejected a permission ask
     ├── QuestionDismissed             the user dismissed a question
     └── Exception
          ├── PermissionCorrected      rejected *with feedback*; leaves turn it into a ToolFailure
          ├── ToolFailure              (tooldeck._tool) expected, model-visible failure
          └── TooldeckError            root of tooldeck's own errors
               ├── InvalidToolError     a Tool that add/update refused (names, schema, ...)
               ├── ConfigError          a config file with an unknown key or a wrong type
               ├── PluginError          a plugin that failed to import, register or run a hook
               ├── PermissionBlocked    a deny rule matched a requested resource
               └── ToolDefectError      a tool broke its own contract (e.g. output without schema)
"""

from __future__ import annotations

from collections.abc import Sequence


class TooldeckError(Exception):
    """Root of every error tooldeck raises about its own usage or runtime."""


class InvalidToolError(TooldeckError):
    """A tool definition that ``add``/``update`` refused; ``reason`` says why."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"invalid tool {name!r}: {reason}")
        self.name = name
        self.reason = reason


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


class ToolDefectError(TooldeckError):
    """A tool broke its own contract; this is the tool author's bug, not the model's."""

    def __init__(self, tool: str, message: str) -> None:
        super().__init__(f"tool {tool!r}: {message}")
        self.tool = tool
        self.message = message


class PermissionBlocked(TooldeckError):
    """A deny rule matched: the call fails with ``permission.rejected``, no one is asked."""

    def __init__(self, action: str, resources: Sequence[str], rule: object = None) -> None:
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


class QuestionDismissed(BaseException):
    """The user dismissed a question. Travels past leaf code to the session boundary."""
