"""``TestHost``: a real ``Host`` holding only the plugins a test names, and helpers to
call its tools and assert on its catalog.

Nothing is faked: plugins load through the host's own discovery, selection and pluggy
wiring, calls go through ``run_tool_call`` against a fresh snapshot, and permission
asks and questions reach the Location's asker and answerer. What the helpers add is a
short way to say "call this tool" and "this tool should be here, from that plugin",
with failure messages that show what was found instead.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from tooldeck._tool import AnyTool, ProgressCallback, TextPart
from tooldeck.codemode.provider import CodeMode
from tooldeck.errors import UsageError
from tooldeck.host.boundary.boundary import run_tool_call
from tooldeck.host.boundary.outcome import ToolCallOutcome
from tooldeck.host.call.values import ToolCall
from tooldeck.host.plugins.discovery import (
    Candidate,
    builtin_candidates,
    entry_point_candidates,
    local_candidates,
    normalize_dist,
    object_candidates,
    scan_entry_points,
)
from tooldeck.host.plugins.host import Host
from tooldeck.host.plugins.selection import Selection
from tooldeck.host.service import ToolService
from tooldeck.testing import _report

if TYPE_CHECKING:
    from tooldeck.host.execution.snapshot import Snapshot
    from tooldeck.host.location.location import Location
    from tooldeck.host.location.questions import Answerer
    from tooldeck.host.permissions.request import Asker
    from tooldeck.host.plugins.report import PluginInfo

__all__ = ["Builtins", "Mode", "TestHost", "text_of"]

Builtins: TypeAlias = bool | Sequence[str]
"""``True``: every built-in; ``False``: none; a list: these (``"read"`` or ``"builtin:read"``)."""

Mode: TypeAlias = Literal["native", "code"]


class TestHost:
    """A ``Host`` for tests. Build one with ``TestHost.open`` or ``TestHost.for_location``
    (or the ``tooldeck_host`` fixture, which calls ``open`` in a temp project).

    ``visibility=True`` (the default) snapshots what a model would be offered: a tool
    whose permission action is wholly denied is hidden, and calling it fails as an
    unknown tool. ``visibility=False`` snapshots every registered tool, so a call reaches
    the tool and its own permission check (``failed`` / ``permission.rejected``).
    """

    __test__ = False  # a helper, not a test class, whatever pytest thinks of the name

    def __init__(self, host: Host, *, visibility: bool = True) -> None:
        self.host = host
        self.visibility = visibility
        self.session_id = "s1"
        self.message_id = "m1"
        self._calls = 0

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] = ".",
        *,
        plugins: Sequence[str | object] = (),
        builtins: Builtins = True,
        disable: Sequence[str] = (),
        asker: Asker | None = None,
        answerer: Answerer | None = None,
        data_dir: str | os.PathLike[str] | None = None,
        visibility: bool = True,
        trust: bool | None = True,
    ) -> TestHost:
        """``Host.open(path, plugins=[...])`` with exactly these third-party plugins.

        ``plugins``: plugin objects (modules, classes, instances with hookimpls) and
        names of installed ones (``dist``, ``dist:ep``, ``local:stem``); none by default.
        Built-ins not wanted are passed to ``disable``. The config is read from ``path``
        as ``Host.open`` reads it, environment variables included (the ``tooldeck_host``
        fixture clears ``TOOLDECK_*`` and the user config first).

        ``trust``: passed to ``Host.open``. A test writes its own project, so it is
        trusted by default and its ``local:stem`` plugins load; ``None`` decides as a
        user's host would (``TOOLDECK_TRUST``, then the trust store).
        """
        modules = _builtin_modules(builtins, strict=True)
        off = [f"builtin:{m}" for m in _shipped() if m not in modules]
        host = Host.open(
            path,
            plugins=_listed(plugins),
            disable=[*off, *disable],
            asker=asker,
            answerer=answerer,
            data_dir=data_dir,
            trust=trust,
        )
        return cls(host, visibility=visibility)

    @classmethod
    def for_location(
        cls,
        location: Location,
        *,
        plugins: Sequence[str | object] = (),
        builtins: Builtins = True,
        visibility: bool = True,
    ) -> TestHost:
        """A host on an existing ``Location`` (one built with a ``Config`` object, say).

        Same host class, discovery and wiring as ``open``, but the selection ignores the
        environment, entry points are scanned only when ``plugins`` names some, and
        ``builtins`` may name any module of ``tooldeck.builtin_plugins`` (one that is
        not in ``BUILTIN_PLUGINS`` yet, too), loaded in ``BUILTIN_PLUGINS`` order first.
        """
        listed = _listed(plugins)
        names = [p for p in listed if isinstance(p, str)]
        objects = [p for p in listed if not isinstance(p, str)]
        selection = Selection.build(
            plugins=names,
            disable=(),
            config=location.config.plugins,
            environ={},
            project=location.project.plugins,
        )
        discover = partial(
            _candidates,
            location.root,
            _builtin_modules(builtins, strict=False),
            objects,
            bool(names),
        )
        host = Host(location, ToolService(location, codemode=CodeMode()), selection, discover)
        host.refresh_plugins()
        return cls(host, visibility=visibility)

    # -- reading ---------------------------------------------------------------------------
    @property
    def location(self) -> Location:
        return self.host.location

    @property
    def root(self) -> Path:
        """The project directory."""
        return self.host.location.root

    @property
    def service(self) -> ToolService:
        return self.host.service

    @property
    def plugins(self) -> list[PluginInfo]:
        """The host's load report, in load order."""
        return self.host.plugins

    def snapshot(self) -> Snapshot:
        """A fresh snapshot: the offered tools (``visibility``) or every registered one."""
        return self.host.snapshot("location" if self.visibility else None)

    @property
    def tools(self) -> dict[str, Mode]:
        """The offered tools by effective name, sorted, each ``"native"`` or ``"code"``."""
        return _modes(self.snapshot())

    # -- calling ---------------------------------------------------------------------------
    async def call(self, name: str, /, **input: Any) -> ToolCallOutcome:
        """Call ``name`` with ``input`` through ``run_tool_call`` on a fresh snapshot."""
        return await self.call_with(name, input)

    async def call_with(
        self,
        name: str,
        input: Mapping[str, Any] | str | None = None,
        /,
        *,
        call_id: str | None = None,
        session_id: str | None = None,
        message_id: str | None = None,
        agent: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> ToolCallOutcome:
        """``call`` with the input as a mapping or JSON text, and the call's ids.

        Call ids default to ``call_1``, ``call_2``, ...; session and message ids to
        ``self.session_id`` (``"s1"``) and ``self.message_id`` (``"m1"``).
        """
        self._calls += 1
        call = ToolCall(call_id or f"call_{self._calls}", name, {} if input is None else input)
        return await run_tool_call(
            self.snapshot(),
            call,
            session_id=self.session_id if session_id is None else session_id,
            message_id=self.message_id if message_id is None else message_id,
            agent=agent,
            progress=progress,
        )

    def call_sync(self, name: str, /, **input: Any) -> ToolCallOutcome:
        """``call`` for a test without an event loop (runs one with ``asyncio.run``)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.call(name, **input))
        raise UsageError(
            f"call_sync({name!r}) was called inside a running event loop; "
            f"use 'await host.call({name!r}, ...)' there"
        )

    # -- asserting -------------------------------------------------------------------------
    def assert_tool(
        self,
        name: str,
        *,
        mode: Mode | None = None,
        provided_by: str | None = None,
        overrides: str | Sequence[str] | None = None,
    ) -> AnyTool:
        """Assert ``name`` is offered (and how); return its effective ``Tool``.

        ``provided_by``: the plugin whose definition is effective. ``overrides``: a name
        checks the plugin it directly replaced; a list checks every replaced plugin,
        newest first (``[]``: it replaced nothing).
        """
        if mode not in (None, "native", "code"):
            raise ValueError(f"mode must be 'native' or 'code', not {mode!r}")
        snapshot = self.snapshot()
        modes, catalog = _modes(snapshot), snapshot.catalog
        if name not in modes:
            raise AssertionError(
                _report.missing_tool(name, catalog, modes, self.plugins, self.service.diagnostics)
            )
        problems = _report.mismatches(
            catalog, name, modes[name], want_mode=mode, provided_by=provided_by, overrides=overrides
        )
        if problems:
            found = _report.describe(catalog, name, modes[name])
            raise AssertionError(f"tool {name!r}: {'; '.join(problems)}\n  found: {found}")
        return catalog.tools[name].tool

    def assert_no_tool(self, name: str) -> None:
        """Assert ``name`` is not offered to the model (removed, hidden or never added)."""
        snapshot = self.snapshot()
        modes = _modes(snapshot)
        if name in modes:
            found = _report.describe(snapshot.catalog, name, modes[name])
            raise AssertionError(f"tool {name!r} is offered: {found}")

    def plugin(self, name: str) -> PluginInfo:
        """The load report entry for ``name`` (``"my-pack"``, ``"My_Pack"``, ``"builtin:read"``)."""
        plugins = self.plugins
        for info in plugins:
            if info.name == name or info.name == normalize_dist(name):
                return info
        raise AssertionError(_report.missing_plugin(name, plugins))

    def assert_plugin(self, name: str, status: str = "active") -> PluginInfo:
        """Assert ``name`` loaded with ``status``; a failure shows the reason and traceback."""
        info = self.plugin(name)
        if info.status != status:
            raise AssertionError(_report.wrong_status(info, status))
        return info

    def __repr__(self) -> str:
        return f"<TestHost {str(self.root)!r} tools={list(self.tools)}>"


def text_of(outcome: ToolCallOutcome) -> str:
    """The text parts of an outcome's content, joined with newlines."""
    return "\n".join(part.text for part in outcome.content if isinstance(part, TextPart))


def _modes(snapshot: Snapshot) -> dict[str, Mode]:
    """Offered tools, as ``tooldeck tools`` lists them (the code-mode runner itself is not
    a catalog tool, so it is left out)."""
    catalog = snapshot.catalog
    modes: dict[str, Mode] = {e.name: "code" for e in snapshot.codemode_catalog}
    native = (n for n in snapshot.names if n in catalog.tools and n not in modes)
    modes.update((name, "native") for name in native)
    return dict(sorted(modes.items()))


def _listed(plugins: Sequence[str | object]) -> list[str | object]:
    if isinstance(plugins, str):
        raise TypeError(f"plugins must be a list of names or plugin objects, not {plugins!r}")
    return list(plugins)


def _shipped() -> tuple[str, ...]:
    from tooldeck.builtin_plugins import BUILTIN_PLUGINS

    return BUILTIN_PLUGINS


def _builtin_modules(builtins: Builtins, *, strict: bool) -> tuple[str, ...]:
    """Built-in module names: shipped ones in ``BUILTIN_PLUGINS`` order, then the rest."""
    shipped = _shipped()
    if builtins is True or builtins is False:
        return shipped if builtins else ()
    if isinstance(builtins, str):
        raise TypeError(f"builtins must be True, False or a list of names, not {builtins!r}")
    wanted = [name.removeprefix("builtin:") for name in builtins]
    unknown = [name for name in wanted if name not in shipped]
    if strict and unknown:
        raise ValueError(
            f"unknown built-in {', '.join(map(repr, unknown))}; "
            f"tooldeck's built-ins are {', '.join(shipped)}"
        )
    return (*(m for m in shipped if m in wanted), *dict.fromkeys(unknown))


def _candidates(
    root: Path, modules: Sequence[str], objects: Sequence[object], named: bool
) -> list[Candidate]:
    """``discover`` limited to what a ``for_location`` host asked for."""
    found = [*builtin_candidates(modules), *object_candidates(objects)]
    if named:
        found += [*entry_point_candidates(scan_entry_points()), *local_candidates(root)]
    return found
