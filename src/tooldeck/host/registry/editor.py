"""``ToolEditor``: what a transform sees while the state is being replayed.

The editor works on a draft catalog and never performs I/O. Invalid operations are
skipped with a ``Diagnostic`` and the rest of the transform still applies; only an
exception raised *by the transform itself* disables its source (see ``state``).

Every accepted edit is also appended to a log. The state uses the log to re-apply a
transform that never read the draft without calling it again, and reports use it to
reconstruct who overrode or removed what.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, MutableMapping
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from tooldeck._public import public
from tooldeck._tool import AnyTool, Tool
from tooldeck.host.registry import names
from tooldeck.host.registry.features import (
    FeatureEntry,
    PromptEntry,
    ResourceEntry,
    is_feature_key,
    prompt_key,
    resource_key,
)
from tooldeck.host.registry.record import record_of

if TYPE_CHECKING:
    from tooldeck._prompt import Prompt
    from tooldeck._resource import Resource, ResourceTemplate


@public
class CatalogEntry(NamedTuple):
    """One effective definition: its effective name, the tool and who provided it."""

    name: str
    tool: AnyTool
    source: str


@public
class NamespaceEntry(NamedTuple):
    """A namespace description, the source that registered it, and whether its native
    tools are deferred (advertised behind a tool search)."""

    description: str
    source: str
    defer_loading: bool = False


@public
class Diagnostic(NamedTuple):
    """A registration the state refused, a transform that raised, or an edit that missed.

    ``traceback`` is set only for a raising transform (the whole source is disabled).
    ``level`` is ``"warning"`` for an ``update``/``remove`` whose target does not exist:
    nothing changed (that is the contract), but a typo in an override should be visible.
    """

    source: str
    reason: str
    tool: str | None = None
    namespace: str | None = None
    traceback: str | None = None
    level: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        where = [f"source {self.source!r}"]
        if self.tool is not None:
            where.append(f"tool {self.tool!r}")
        if self.namespace is not None:
            where.append(f"namespace {self.namespace!r}")
        return f"{', '.join(where)}: {self.reason}"


UpdateFn = Callable[[AnyTool], AnyTool]
CallHookFn = Callable[..., Any]
"""A session's ``tool_call`` wrapper: a generator function of ``(call, context)``."""
Op = tuple[str, "CatalogEntry | NamespaceEntry | FeatureEntry | None"]
"""A logged edit: (name, entry) for add/update, (name, None) for remove,
(namespace, NamespaceEntry) for a namespace description; a resource's or prompt's key
(``features``) with its entry, or None, for theirs."""


@public
class ToolEditor:
    """The narrow object a transform (``tool_transform(editor)``) edits the catalog with.

    ``add`` creates or overrides (the latest valid add wins), ``update`` replaces an
    existing definition through a callback, ``remove`` deletes one; ``update`` and
    ``remove`` target effective names and do nothing for missing tools.

    Resources and prompts are edited the same way (``add_resource``, ``remove_resource``,
    ``get_resource``, ``list_resources``, and the same for prompts): the latest valid add
    of a URI (or prompt name) wins, and disposing its registration reveals the previous.
    """

    __slots__ = (
        "_diagnostics",
        "_extras",
        "_hooks",
        "_log",
        "_namespaces",
        "_pure",
        "_source",
        "_tools",
    )

    def __init__(
        self,
        tools: MutableMapping[str, CatalogEntry] | None = None,
        namespaces: MutableMapping[str, NamespaceEntry] | None = None,
        extras: MutableMapping[str, ResourceEntry | PromptEntry] | None = None,
    ) -> None:
        # A dict, or a session's overlay on the Location's catalog (``overlay``).
        self._tools: MutableMapping[str, CatalogEntry] = tools if tools is not None else {}
        self._namespaces: MutableMapping[str, NamespaceEntry] = (
            namespaces if namespaces is not None else {}
        )
        # Resources and prompts, by ``features`` key.
        self._extras: MutableMapping[str, FeatureEntry] = extras if extras is not None else {}
        self._source = "<editor>"
        self._diagnostics: list[Diagnostic] = []
        self._log: list[Op] = []
        # False once the current transform read the draft (get/list/update): its edits
        # may then depend on what came before it, so it must be called on every replay.
        self._pure = True
        # The current step's call hooks in a session's replay; ``None`` in the Location's.
        self._hooks: list[tuple[str, CallHookFn]] | None = None

    # -- reading ---------------------------------------------------------------------------
    def list(self) -> list[AnyTool]:
        """The current tools, sorted by effective name."""
        self._pure = False
        return [self._tools[name].tool for name in sorted(self._tools)]

    def get(self, name: str) -> AnyTool | None:
        """The current tool with effective name ``name``, or ``None``."""
        self._pure = False
        entry = self._tools.get(name)
        return entry.tool if entry is not None else None

    # -- writing ---------------------------------------------------------------------------
    def add(self, tool: AnyTool) -> None:
        """Add ``tool``; it replaces any current tool with the same effective name."""
        # Hot path of every first replay: read the cached record straight from the slot.
        record = getattr(tool, "_record", None)
        if record is None:
            if not isinstance(tool, Tool):
                self._refuse(f"expected a Tool, got {type(tool).__name__}", tool)
                return
            record = record_of(tool)
        if record.problem is not None:
            self._refuse(record.problem, tool)
            return
        name = record.effective
        entry = CatalogEntry(name, tool, self._source)
        self._tools[name] = entry
        self._log.append((name, entry))

    def update(self, name: str, fn: UpdateFn) -> None:
        """Replace tool ``name`` by ``fn(current)``; a no-op (fn not called) if missing.

        Name and namespace are forced back to the current ones; a replacement that is
        not a valid tool is skipped and the current definition stays.
        """
        self._pure = False
        current = self._tools.get(name)
        if current is None:
            self._missed("update", name)
            return
        replacement = fn(current.tool)
        if not isinstance(replacement, Tool):
            self._refuse(
                f"update must return a Tool, got {type(replacement).__name__}", current.tool
            )
            return
        old = current.tool
        if replacement.name != old.name or replacement.namespace != old.namespace:
            replacement = replacement.replace(name=old.name, namespace=old.namespace)
        problem = record_of(replacement).problem
        if problem is not None:
            self._refuse(f"update skipped: {problem}", replacement)
            return
        entry = CatalogEntry(name, replacement, self._source)
        self._tools[name] = entry
        self._log.append((name, entry))

    def remove(self, name: str) -> None:
        """Remove tool ``name``; a no-op if missing (recorded as a warning diagnostic)."""
        # Whether the target exists depends on the draft, and so does the warning: a
        # transform that removes is replayed by calling it, never from its delta.
        self._pure = False
        if self._tools.pop(name, None) is None:
            self._missed("remove", name)
        self._log.append((name, None))

    def namespace(self, name: str, description: str, *, defer_loading: bool = False) -> None:
        """Describe namespace ``name`` (tools reference namespaces by name; optional).

        ``defer_loading=True`` defers its native tools (``Tool.defer_loading``)."""
        problem = names.namespace_problem(name)
        if problem is None and not (isinstance(description, str) and description.strip()):
            problem = "namespace description must be a non-empty string"
        if problem is not None:
            self._diagnostics.append(Diagnostic(self._source, problem, namespace=str(name)))
            return
        entry = NamespaceEntry(description, self._source, bool(defer_loading))
        self._namespaces[name] = entry
        self._log.append((name, entry))

    def add_call_hook(self, fn: CallHookFn) -> None:
        """Wrap every call of **this session** in ``fn(call, context)``, a ``tool_call``
        wrapper generator (``docs/hooks.md``), inside the Location plugins' hooks.

        Only a session's replay takes one (``session_transform``, ``scope.transform``);
        the hook belongs to this registration and leaves with it, or when the session
        closes. In a Location's replay it is refused with a diagnostic: there a plugin's
        ``tool_call`` hookimpl wraps every session's calls.
        """
        # A hook is not an edit of the draft: the transform is called on every replay, so
        # its step always holds the hooks of its latest run.
        self._pure = False
        if self._hooks is None:
            reason = "add_call_hook works in a session's replay only; use a tool_call hookimpl"
            self._diagnostics.append(Diagnostic(self._source, reason))
            return
        import inspect  # on use only: most replays never add a call hook

        if not inspect.isgeneratorfunction(fn):
            reason = (
                f"add_call_hook expects a generator function (call, context) that yields "
                f"once, got {type(fn).__name__} {getattr(fn, '__qualname__', fn)!r}"
            )
            self._diagnostics.append(Diagnostic(self._source, reason))
            return
        self._hooks.append((self._source, fn))

    # -- resources and prompts ----------------------------------------------------------------
    def add_resource(self, resource: Resource | ResourceTemplate) -> None:
        """Add a resource or template; it replaces any current one with the same URI."""
        from tooldeck.host.registry.feature_checks import resource_problem, resource_uri

        problem = resource_problem(resource)
        if problem is not None:
            uri = getattr(resource, "uri", None) or getattr(resource, "uri_template", None)
            self._diagnostics.append(Diagnostic(self._source, f"resource {uri!r}: {problem}"))
            return
        uri = resource_uri(resource)
        self._set_extra(resource_key(uri), ResourceEntry(uri, resource, self._source))

    def remove_resource(self, uri: str) -> None:
        """Remove the resource (or template) registered under ``uri``; a no-op if missing."""
        self._remove_extra(resource_key(uri), "remove_resource", "resource")

    def get_resource(self, uri: str) -> Resource | ResourceTemplate | None:
        """The current resource (or template) registered under ``uri``, or ``None``."""
        self._pure = False
        entry = self._extras.get(resource_key(uri))
        return entry.resource if isinstance(entry, ResourceEntry) else None

    def list_resources(self) -> builtins.list[Resource | ResourceTemplate]:
        """The current resources and templates, sorted by URI."""
        self._pure = False
        found = [e for e in self._extras.values() if isinstance(e, ResourceEntry)]
        return [e.resource for e in sorted(found, key=lambda e: e.uri)]

    def add_prompt(self, prompt: Prompt) -> None:
        """Add ``prompt``; it replaces any current prompt with the same effective name."""
        from tooldeck.host.registry.feature_checks import prompt_name, prompt_problem

        problem = prompt_problem(prompt)
        if problem is not None:
            name = getattr(prompt, "name", None)
            self._diagnostics.append(Diagnostic(self._source, f"prompt {name!r}: {problem}"))
            return
        name = prompt_name(prompt)
        self._set_extra(prompt_key(name), PromptEntry(name, prompt, self._source))

    def remove_prompt(self, name: str) -> None:
        """Remove prompt ``name`` (its effective name); a no-op if missing."""
        self._remove_extra(prompt_key(name), "remove_prompt", "prompt")

    def get_prompt(self, name: str) -> Prompt | None:
        """The current prompt with effective name ``name``, or ``None``."""
        self._pure = False
        entry = self._extras.get(prompt_key(name))
        return entry.prompt if isinstance(entry, PromptEntry) else None

    def list_prompts(self) -> builtins.list[Prompt]:
        """The current prompts, sorted by effective name."""
        self._pure = False
        found = [e for e in self._extras.values() if isinstance(e, PromptEntry)]
        return [e.prompt for e in sorted(found, key=lambda e: e.name)]

    def _set_extra(self, key: str, entry: FeatureEntry) -> None:
        self._extras[key] = entry
        self._log.append((key, entry))

    def _remove_extra(self, key: str, operation: str, kind: str) -> None:
        self._pure = False  # like ``remove``: whether it misses depends on the draft
        if self._extras.pop(key, None) is None:
            name = key.partition(":")[2]
            reason = f"{operation}({name!r}) did nothing: no {kind} is registered as that here"
            self._diagnostics.append(Diagnostic(self._source, reason, level="warning"))
        self._log.append((key, None))

    def _missed(self, operation: str, name: str) -> None:
        reason = f"{operation}({name!r}) did nothing: no tool has that effective name here"
        self._diagnostics.append(Diagnostic(self._source, reason, tool=name, level="warning"))

    def _refuse(self, reason: str, tool: object) -> None:
        name = getattr(tool, "name", None)
        namespace = getattr(tool, "namespace", None)
        self._diagnostics.append(
            Diagnostic(
                self._source,
                reason,
                tool=name if isinstance(name, str) else repr(name),
                namespace=namespace if isinstance(namespace, str) else None,
            )
        )


class Delta(NamedTuple):
    """The net effect of a pure transform: independent of the state it is applied to.

    ``extras``: the resources and prompts it set, by key (``None``: removed)."""

    removed: tuple[str, ...]
    tools: dict[str, CatalogEntry]
    namespaces: dict[str, NamespaceEntry]
    extras: dict[str, FeatureEntry | None]

    @classmethod
    def of(cls, log: list[Op]) -> Delta:
        """Fold a log into names to drop first, then entries to set."""
        removed: dict[str, None] = {}
        tools: dict[str, CatalogEntry] = {}
        namespaces: dict[str, NamespaceEntry] = {}
        extras: dict[str, FeatureEntry | None] = {}
        for name, value in log:
            if isinstance(value, CatalogEntry):
                tools[name] = value
            elif isinstance(value, NamespaceEntry):
                namespaces[name] = value
            elif value is not None or is_feature_key(name):
                extras[name] = value
            else:
                removed[name] = None
                tools.pop(name, None)
        return cls(tuple(removed), tools, namespaces, extras)
