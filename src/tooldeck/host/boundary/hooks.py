"""The ``tool_call`` wrappers of plugins, run around a call at the one call boundary.

A plugin's ``@hookimpl(wrapper=True) def tool_call(call, context)`` is a generator in
pluggy's wrapper style. pluggy itself calls hooks synchronously, and a call awaits its
tool, so this module drives the generators: it starts each one, runs the layer below
where it yields, sends the result in (or throws what the layer raised) and reads what it
returns. The chain is the catalog's plugin order; the last loaded plugin is outermost.

Zero cost without hooks: a snapshot holds ``call_hooks = None`` when no registered plugin
implements ``tool_call``; then this layer is not among its layers and no call reaches
this module.

What a hook may raise is the *signals* (``ToolFailure``, the permission and question
signals, cancellation, ``KeyboardInterrupt``) or what the layers below raised; anything
else, ``SystemExit`` included, is a defect of that plugin: ``HookChain.failed`` reports
it (the host marks the plugin failed) and the call ends with a ``PluginError`` naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any, NamedTuple

from tooldeck._public import public
from tooldeck._tool import ToolFailure, ToolResult
from tooldeck.errors import (
    PermissionBlocked,
    PermissionCorrected,
    PermissionDeclined,
    PermissionDeferred,
    PluginError,
    QuestionDismissed,
)
from tooldeck.host.call.path import finish
from tooldeck.host.call.values import CallScope, CallVia, ExecutedTool, ToolCall
from tooldeck.host.execution.snapshot import named_record
from tooldeck.host.registry.editor import Diagnostic

if TYPE_CHECKING:
    from tooldeck.host.call.layers import Layer, Next
    from tooldeck.host.execution.snapshot import Snapshot
    from tooldeck.host.registry.catalog import Catalog

SIGNALS = (
    ToolFailure,
    PermissionBlocked,
    PermissionCorrected,
    PermissionDeclined,
    PermissionDeferred,
    QuestionDismissed,
    KeyboardInterrupt,
)
"""What a hook may raise itself: the call ends as these end any call (and a
cancellation). ``import tooldeck`` and a snapshot never import asyncio themselves.

``SystemExit`` is not among them: a hook calling ``sys.exit`` is that plugin's defect, as
it is when a plugin is loaded; only the person at the keyboard stops the host."""

MOUNTED_SOURCE = "mcp"
"""The registration source of mounted MCP tools (``tooldeck.mcp.client.layer.SOURCE``)."""

Wrapper = Generator[Any, Any, Any]


Failed = Callable[[str, str, BaseException], None]
"""Whom a hook's defect is reported to: ``failed(plugin, message, exc)``."""


class CallHook(NamedTuple):
    """One plugin's ``tool_call``: the plugin's name, the function and its argument names.

    ``failed`` is set for a session's own hook: its defect fails the source in that
    session, not the Location's plugin of the same name.
    """

    plugin: str
    function: Callable[..., Any]
    argnames: tuple[str, ...]
    failed: Failed | None = None


@dataclass(frozen=True, slots=True)
class HookChain:
    """The ``tool_call`` hooks of one catalog, innermost first, and whom to tell of a defect.

    ``failed(plugin, message, exc)`` is the host's: it marks the plugin failed.
    """

    hooks: tuple[CallHook, ...]
    failed: Failed


@public
class ToolCallContext:
    """What a ``tool_call`` hook knows of the call besides its ``ToolCall``.

    ``name``: the effective name; ``source``: the plugin (registration source) that
    supplied the tool, ``""`` for a tool no plugin registered (``execute``);
    ``overrides``: the sources of the definitions it overrides, newest first;
    ``mounted``: the tool is an MCP server's; ``session_id``, ``message_id``, ``agent``;
    ``via``: ``native``, ``nested`` (inside a code-mode program) or ``served`` (from an
    MCP client of ``tooldeck mcp serve``); ``parent_id``: the ``execute`` call a nested
    call runs in; ``snapshot``: the ``Snapshot`` the call runs against.
    """

    __slots__ = ("__dict__", "_scope", "name", "snapshot", "source")

    def __init__(self, snapshot: Snapshot, name: str, source: str, scope: CallScope) -> None:
        self.snapshot = snapshot
        self.name = name
        self.source = source
        self._scope = scope

    @cached_property
    def overrides(self) -> tuple[str, ...]:
        """The sources this tool's definition overrides, newest first (read on first use)."""
        if not self.source:
            return ()
        return tuple(s for s in self.snapshot.catalog.lineage(self.name)[1:] if s != self.source)

    @property
    def mounted(self) -> bool:
        return self.source == MOUNTED_SOURCE

    @property
    def session_id(self) -> str:
        return self._scope.session_id

    @property
    def message_id(self) -> str:
        return self._scope.message_id

    @property
    def agent(self) -> str | None:
        return self._scope.agent

    @property
    def via(self) -> CallVia:
        return self._scope.via

    @property
    def parent_id(self) -> str:
        return self._scope.parent_id

    def __repr__(self) -> str:
        return (
            f"ToolCallContext(name={self.name!r}, source={self.source!r}, via={self.via!r}, "
            f"session_id={self.session_id!r}, message_id={self.message_id!r})"
        )


def layer(snapshot: Snapshot) -> Layer | None:
    """The hooks layer of ``snapshot``'s calls; ``None`` when no plugin has a ``tool_call``."""
    chain = snapshot.call_hooks
    return None if chain is None else partial(_hooked, chain, snapshot)


async def _hooked(
    chain: HookChain, snapshot: Snapshot, call: ToolCall, scope: CallScope, call_next: Next
) -> ExecutedTool:
    """Run ``call`` inside every hook of ``chain`` (outermost = last), then ``call_next``."""
    record = named_record(snapshot, call.name)
    if record is None:  # not a tool here: the tool's own path fails it, saying what is
        return await call_next(call)
    entry = snapshot.catalog.tools.get(record.effective)
    context = ToolCallContext(
        snapshot, record.effective, entry.source if entry is not None else "", scope
    )
    images = snapshot.location.config.images

    async def wrapped(index: int, current: ToolCall) -> ExecutedTool:
        if index < 0:
            return await call_next(current)
        hook = chain.hooks[index]
        args = {"call": current, "context": context}
        try:
            wrapper: Wrapper = hook.function(*[args[a] for a in hook.argnames])
            if not isinstance(wrapper, Generator):
                raise TypeError("tool_call must be a generator (@hookimpl(wrapper=True))")
            sent = next(wrapper)
        except StopIteration as stop:  # answered without running the tool
            return _checked(record, stop.value, None, images, hook, chain)
        except BaseException as exc:
            raise _own(hook, chain, exc, None) from exc
        inner_call = _rewritten(hook, chain, current, sent)
        try:
            below = await wrapped(index - 1, inner_call)
        except BaseException as exc:
            try:
                wrapper.throw(exc)
            except StopIteration as stop:  # the hook turned the failure into a result
                return _checked(record, stop.value, None, images, hook, chain)
            except BaseException as raised:
                raise _own(hook, chain, raised, exc) from raised
            raise _defect(hook, chain, RuntimeError("tool_call yielded more than once")) from exc
        given = ToolResult(*below)
        try:
            wrapper.send(given)
        except StopIteration as stop:
            return _checked(record, stop.value, (given, below), images, hook, chain)
        except BaseException as exc:
            raise _own(hook, chain, exc, None) from exc
        raise _defect(hook, chain, RuntimeError("tool_call yielded more than once"))

    return await wrapped(len(chain.hooks) - 1, call)


def _rewritten(hook: CallHook, chain: HookChain, call: ToolCall, sent: Any) -> ToolCall:
    if sent is None:
        return call
    if not isinstance(sent, ToolCall):
        problem = f"tool_call yielded {type(sent).__name__}; yield None or a ToolCall"
        raise _defect(hook, chain, TypeError(problem))
    if sent.name != call.name or sent.id != call.id:
        raise _defect(hook, chain, ValueError("tool_call may rewrite a call's input only"))
    return sent


def _checked(
    record: Any,
    value: Any,
    given: tuple[ToolResult, ExecutedTool] | None,
    images: Any,
    hook: CallHook,
    chain: HookChain,
) -> ExecutedTool:
    """What a hook returned, as the boundary's ``ExecutedTool``: checked like an executor's."""
    if given is not None and (value is None or value is given[0]):
        return given[1]
    if not isinstance(value, ToolResult):
        problem = f"tool_call returned {type(value).__name__}, expected tooldeck.ToolResult"
        raise _defect(hook, chain, TypeError(problem))
    return finish(record, value, images)


def _own(
    hook: CallHook, chain: HookChain, raised: BaseException, passed: BaseException | None
) -> BaseException:
    """What a hook's exception becomes: a signal or what it let through travels on."""
    import asyncio  # loaded already: a hook runs inside a coroutine

    if raised is passed or isinstance(raised, (*SIGNALS, asyncio.CancelledError)):
        return raised
    return _defect(hook, chain, raised)


def _defect(hook: CallHook, chain: HookChain, exc: BaseException) -> PluginError:
    detail = str(exc)
    message = f"its tool_call hook raised {type(exc).__name__}{': ' + detail if detail else ''}"
    (hook.failed or chain.failed)(hook.plugin, message, exc)
    return PluginError(hook.plugin, message)


class CallHooks:
    """A service's ``tool_call`` hooks by plugin name; ``chain`` picks a catalog's.

    A hook runs only while its plugin's registration is replayed into the catalog, so
    disabling, uninstalling or failing the plugin removes the hook with its tools.
    ``fail`` is the state's: a defective hook fails its plugin's registration.
    """

    __slots__ = ("_fail", "_hooks")

    def __init__(self, fail: Callable[[Diagnostic], None]) -> None:
        self._fail = fail
        self._hooks: dict[str, CallHook] = {}

    def add(self, hook: CallHook) -> None:
        """Register ``hook`` (before its plugin's transform, so the next catalog has it)."""
        self._hooks[hook.plugin] = hook

    def remove(self, plugin: str) -> None:
        """Forget ``plugin``'s hook (idempotent)."""
        self._hooks.pop(plugin, None)

    def chain(self, catalog: Catalog) -> HookChain | None:
        """The hooks of the plugins replayed into ``catalog``, in order; ``None`` if none."""
        hooks = self._hooks
        if not hooks:
            return None
        found = tuple(hooks[s] for s in dict.fromkeys(catalog.sources) if s in hooks)
        return HookChain(found, self._failed) if found else None

    def _failed(self, plugin: str, message: str, exc: BaseException) -> None:
        _report(self._fail, plugin, message, exc)


def session_chain(
    base: HookChain | None,
    own: tuple[tuple[str, Callable[..., Any]], ...],
    fail: Callable[[Diagnostic], None],
) -> HookChain | None:
    """A session's chain: the Location's hooks, then (outside them) the session's own.

    ``own`` is the session catalog's ``call_hooks`` in replay order, so the last
    registered is outermost, as among plugins. ``fail`` is the session state's: a
    defective session hook disables its source in that session only.
    """
    if not own:
        return base
    failed = partial(_report, fail)
    added = tuple(CallHook(source, fn, ("call", "context"), failed) for source, fn in own)
    if base is None:
        return HookChain(added, failed)
    return HookChain(base.hooks + added, base.failed)


def _report(
    fail: Callable[[Diagnostic], None], plugin: str, message: str, exc: BaseException
) -> None:
    import traceback  # only for a defect: opening a host never imports it

    text = "".join(traceback.format_exception(exc))
    fail(Diagnostic(plugin, f"{message}; source disabled", traceback=text))
