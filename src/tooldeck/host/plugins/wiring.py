"""How one plugin becomes one registration.

The steps are separate on purpose, and each is data until the last:

1. *candidates* (``discovery``) describe every plugin that exists (built-ins, the MCP
   slot, entry points, plugin objects, Location files) without importing anything;
2. ``Selection`` (``selection``) decides from names alone which of them load, so a
   plugin the user did not select is never imported;
3. ``ordered`` (``selection``) sorts them by layer and explicit keys, then applies
   ``plugins.order``;
4. ``PluginWiring`` imports a candidate, validates it with pluggy and turns its two
   Location hooks into **one** transform function for ``ToolService.transform``, and
   its ``session_transform`` into one for ``ToolService.session_transform``; its
   ``tool_call`` wrapper, if any, becomes a ``CallHook`` tied to that registration.

Everything that can go wrong with one plugin raises ``PluginError`` naming it, so the
host can mark that plugin failed and load the rest.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

import pluggy

from tooldeck import hookspecs
from tooldeck.errors import PluginError
from tooldeck.hookspecs import HOOKS
from tooldeck.host.plugins.discovery import brief
from tooldeck.host.registry.editor import ToolEditor

if TYPE_CHECKING:
    from tooldeck.host.boundary.hooks import CallHook
    from tooldeck.host.location.location import Location

HookCall = tuple[str, Callable[..., object], tuple[str, ...]]

LOCATION_HOOKS = ("namespace_descriptions", "tool_transform")
"""The hooks of a plugin's one Location registration, in the order it calls them; the
rest (``session_transform``) make its registration of every session."""


class PluginTransforms(NamedTuple):
    """What one plugin registers: its Location transform, its session transform, and
    its ``tool_call`` wrapper."""

    location: Callable[[ToolEditor], None]
    session: Callable[[ToolEditor, str, dict[str, Any]], None] | None
    call: CallHook | None = None


# -- pluggy wiring ---------------------------------------------------------------------------
class PluginWiring:
    """One pluggy ``PluginManager`` per host: validates plugins and builds transforms."""

    def __init__(self, location: Location, *, trace: bool = False) -> None:
        self._location = location
        self._trace = trace
        self._pm = pluggy.PluginManager(hookspecs.PROJECT)
        self._pm.add_hookspecs(hookspecs)

    def register(self, name: str, plugin: object) -> PluginTransforms:
        """Validate and register ``plugin``; return the transforms running its hooks.

        Raises ``PluginError`` (and leaves nothing registered) for a hookimpl whose
        signature does not match its spec, an unknown hook, a hook wrapper, or a plugin
        without any hookimpl.
        """
        try:
            self._pm.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:
            message = "invalid hookimpl: " + _flat(exc) + self._accepted(plugin)
            raise PluginError(name, message) from exc
        except (Exception, SystemExit) as exc:
            raise PluginError(name, f"cannot register: {_flat(exc)}") from exc
        try:
            calls = self._calls(name, plugin)
        except PluginError:
            self._pm.unregister(name=name)
            raise
        located = tuple(c for c in calls if c[0] in LOCATION_HOOKS)
        session = tuple(c for c in calls if c[0] == "session_transform")
        wrapper = next((_call_hook(name, c) for c in calls if c[0] == "tool_call"), None)
        return PluginTransforms(
            partial(_transform, name, located, self._location, self._trace),
            partial(_session_transform, name, session, self._location, self._trace)
            if session
            else None,
            wrapper,
        )

    def _accepted(self, plugin: object) -> str:
        """For a refused signature: the arguments each hook the plugin implements with an
        unknown one would take, so a misspelt name is fixed without opening the docs."""
        said = []
        for hook in HOOKS:
            function = getattr(plugin, hook, None)
            spec = getattr(self._pm.hook, hook).spec
            if not callable(function) or spec is None:
                continue
            try:
                taken = [p for p in inspect.signature(function).parameters if p != "self"]
            except (TypeError, ValueError):  # a callable without a readable signature
                continue
            if not set(taken) <= set(spec.argnames):
                said.append(f"; {hook} takes any of: {', '.join(spec.argnames)}")
        return "".join(said)

    def unregister(self, name: str) -> None:
        """Forget ``name`` (idempotent)."""
        if self._pm.has_plugin(name):
            self._pm.unregister(name=name)

    def _calls(self, name: str, plugin: object) -> tuple[HookCall, ...]:
        by_hook: dict[str, list[Any]] = {}
        for caller in self._pm.get_hookcallers(plugin) or []:
            impls = [i for i in reversed(caller.get_hookimpls()) if i.plugin is plugin]
            _check_impls(name, caller.name, caller.has_spec(), impls)
            if caller.has_spec():
                by_hook[caller.name] = impls
        if not by_hook:
            raise PluginError(name, _no_hooks(plugin))
        return tuple(
            (hook, impl.function, tuple(impl.argnames))
            for hook in HOOKS
            for impl in by_hook.get(hook, ())
        )


def _check_impls(name: str, hook: str, has_spec: bool, impls: list[Any]) -> None:
    if not has_spec and not all(i.optionalhook for i in impls):
        raise PluginError(name, f"unknown hook {hook!r}; tooldeck's hooks are {', '.join(HOOKS)}")
    if hook == "tool_call":
        if len(impls) > 1:
            raise PluginError(name, "hook 'tool_call': one implementation per plugin")
        if not all(i.wrapper and inspect.isgeneratorfunction(i.function) for i in impls):
            raise PluginError(
                name,
                "hook 'tool_call' must be a generator marked @tooldeck.hookimpl(wrapper=True)",
            )
        return
    if any(i.wrapper or i.hookwrapper for i in impls):
        raise PluginError(name, f"hook {hook!r}: wrappers are not supported")
    if any(inspect.iscoroutinefunction(i.function) for i in impls):
        raise PluginError(
            name, f"hook {hook!r} must be a plain function, not async: replays run it synchronously"
        )


def _call_hook(name: str, call: HookCall) -> CallHook:
    """The plugin's ``tool_call`` wrapper (the hooks module loads only for a plugin with one)."""
    from tooldeck.host.boundary.hooks import CallHook

    return CallHook(name, call[1], call[2])


def _no_hooks(plugin: object) -> str:
    bare = [h for h in HOOKS if callable(getattr(plugin, h, None))]
    if bare:
        return f"no @hookimpl found; is {bare[0]!r} missing its @tooldeck.hookimpl decorator?"
    return f"no @hookimpl found; define one of {', '.join(HOOKS)} with @tooldeck.hookimpl"


def _flat(exc: BaseException) -> str:
    return "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())


def _transform(
    name: str,
    calls: tuple[HookCall, ...],
    location: Location,
    trace: bool,
    editor: ToolEditor,
) -> None:
    """One plugin's registration: its namespace_descriptions, then its tool_transform."""
    _run(name, calls, trace, {"editor": editor, "location": location})


def _session_transform(
    name: str,
    calls: tuple[HookCall, ...],
    location: Location,
    trace: bool,
    editor: ToolEditor,
    session_id: str,
    state: dict[str, Any],
) -> None:
    """One plugin's registration in a session: its session_transform, given the plugin's
    own ``state`` in that session."""
    _run(
        name,
        calls,
        trace,
        {"editor": editor, "session_id": session_id, "state": state, "location": location},
    )


def _run(name: str, calls: tuple[HookCall, ...], trace: bool, args: dict[str, Any]) -> None:
    for hook, function, argnames in calls:
        call = _call_text(name, hook, argnames, args) if trace else ""
        try:
            function(*[args[a] for a in argnames])
        except Exception as exc:
            if trace:
                _trace(f"{call} -> raised {brief(exc)}")
            raise PluginError(name, f"hook {hook!r} raised {brief(exc)}") from exc
        if trace:
            _trace(f"{call} -> ok")


def _call_text(name: str, hook: str, argnames: tuple[str, ...], args: dict[str, Any]) -> str:
    shown = ", ".join(f"{a}={_shown(args[a])}" for a in argnames)
    return f"{name}: {hook}({shown})"


def _trace(line: str) -> None:
    print(f"tooldeck: trace: {line}", file=sys.stderr)


def _shown(value: object) -> str:
    if isinstance(value, ToolEditor):
        return f"<ToolEditor with {len(value.list())} tools>"
    if isinstance(value, dict):  # a plugin's session state: its keys say enough
        return f"<state with keys {sorted(map(str, value))}>"
    return repr(value)
