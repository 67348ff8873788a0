"""``ToolService``: the Location-scoped facade over the replayed state.

Thin on purpose: registration order and replay live in ``state`` (a session's in
``registry.session``), frozen catalogs in ``snapshot`` (a session's in ``layered``).
The service adds scoped ``Registration`` handles, holds the open sessions
(``SessionScope``), and caches one snapshot per visibility filter (and one per
session), so taking a snapshot of an unchanged state is a dictionary hit.

Sessions: a host opens a scope per conversation (``service.session(id)``) and registers
transforms into it exactly as into the Location: the same editor, validation,
diagnostics and ``Registration`` handles. They apply to ``snapshot(session=id)`` only,
replayed after every Location registration and every session template
(``session_transform``). Closing the scope disposes all of them, and drops the state
each template kept in that session. The service holds open scopes by id until they are
closed: a scope object that goes out of scope is still open, and ``session(id)``
returns it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from tooldeck._public import public
from tooldeck._tool import AnyTool
from tooldeck.host.boundary.active import layers
from tooldeck.host.boundary.gates import Gates
from tooldeck.host.boundary.limits import CallLimits, declares_limits
from tooldeck.host.execution.definitions import CodeModeProvider, Visibility
from tooldeck.host.execution.snapshot import Snapshot
from tooldeck.host.handles import Registration, SessionScope
from tooldeck.host.registry.catalog import Catalog
from tooldeck.host.registry.editor import Diagnostic
from tooldeck.host.registry.state import ToolState
from tooldeck.host.registry.steps import TransformFn
from tooldeck.host.search import deferral

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from tooldeck.host.boundary.hooks import CallHooks
    from tooldeck.host.location.location import Location
    from tooldeck.host.registry.session import SessionTransformFn, Templates


@public
class ToolService:
    """One per Location: registrations, replay, and snapshots for model requests.

    Thread-safe. ``location=None`` opens a Location on the current directory.
    """

    def __init__(
        self,
        location: Location | None = None,
        *,
        codemode: CodeModeProvider | None = None,
    ) -> None:
        if location is None:
            from tooldeck.host.location.location import Location

            location = Location(".")
        self.location = location
        self._codemode = codemode
        self._state = ToolState()
        self._snapshots: dict[Visibility | None, Snapshot] = {}
        self._sessions: dict[str, SessionScope] = {}
        self._sessions_lock = threading.Lock()
        self._templates: Templates | None = None  # created with the first session template
        self._call_hooks: CallHooks | None = None
        self._gates = Gates()
        deferral.set_loader(location, self._load_deferred)

    def _hooks(self) -> CallHooks:
        """The plugins' ``tool_call`` hooks, each active while its registration is (made
        for the first plugin that has one: without one, no hook module is loaded)."""
        if self._call_hooks is None:
            from tooldeck.host.boundary.hooks import CallHooks

            self._call_hooks = CallHooks(self._state.fail)
        return self._call_hooks

    def transform(self, fn: TransformFn, *, source: str = "<anonymous>") -> Registration:
        """Register ``fn(editor)``; it is replayed after every earlier registration."""
        if not callable(fn):
            raise TypeError(f"transform must be callable, got {type(fn).__name__}")
        return Registration(self._state, self._state.add(fn, source))

    def reload(self) -> None:
        """Replay every transform from its source's current data, keeping precedence."""
        self._state.reload()

    def batch(self) -> AbstractContextManager[None]:
        """Context manager coalescing changes into one rebuild; readers see old or new."""
        return self._state.batch()

    def snapshot(
        self,
        permissions: Visibility | Literal["location"] | None = None,
        *,
        session: str | None = None,
    ) -> Snapshot:
        """An immutable snapshot of the effective catalog for one model request.

        ``permissions`` decides which tools are advertised; each value means the same
        here and in ``Host.snapshot`` (only the defaults differ):

        * ``None`` (the default here): every registered tool;
        * ``"location"`` (the default of ``Host.snapshot``): the Location's own rules,
          ``location.policy``, hide the tools whose action is wholly denied;
        * any ``Visibility`` (a ``Ruleset``, say) hides what its ``hidden`` says.

        Visibility only: a visible tool still asserts its permissions when it runs.
        One snapshot is kept per ``permissions`` value, so it must be hashable.

        ``session``: the snapshot of that session: the Location's catalog with the
        session's registrations replayed on top, hiding by the same ``permissions``,
        and knowing its session id. For an id that is not open it is the Location's
        catalog (still knowing the id).
        """
        if isinstance(permissions, str):
            permissions = self._location_rules(permissions)
        if session is None:
            return self._snapshot_of(self._state.current(), permissions)
        # An open session's unchanged snapshot: a dictionary hit and identity checks.
        scope = self._sessions.get(session) if isinstance(session, str) else None
        if scope is not None:
            catalog = scope._state.current()
            cached = scope._cache
            if cached is not None and cached[1].catalog is catalog and cached[0] is permissions:
                return cached[1]
        return self._session_snapshot(_session_id(session), permissions)

    def _snapshot_of(self, catalog: Catalog, permissions: Visibility | None) -> Snapshot:
        try:
            cached = self._snapshots.get(permissions)
        except TypeError:
            raise TypeError(
                f"snapshot(permissions=...) must be hashable (snapshots are cached per "
                f"value), got an unhashable {type(permissions).__name__}"
            ) from None
        if cached is not None and cached.catalog is catalog:
            return cached
        snap = Snapshot(
            catalog,
            self.location,
            permissions=permissions,
            codemode=self._codemode,
            call_hooks=None if self._call_hooks is None else self._call_hooks.chain(catalog),
            call_limits=CallLimits.of(catalog, self.location.config.tools, self._gates),
            bind_layers=layers,
            previous=cached if type(cached) is Snapshot else None,
        )
        if len(self._snapshots) > 16:
            self._snapshots.clear()
        self._snapshots[permissions] = snap
        return snap

    def _location_rules(self, name: str) -> Visibility:
        if name != "location":
            raise ValueError(
                f"snapshot(permissions={name!r}): expected 'location', None or a Visibility"
            )
        return self.location.policy

    def _session_snapshot(self, session_id: str, permissions: Visibility | None) -> Snapshot:
        from tooldeck.host.execution.layered import LayeredSnapshot

        scope = self._sessions.get(session_id)
        if scope is None:
            base = self._snapshot_of(self._state.current(), permissions)
            return LayeredSnapshot(
                base.catalog,
                base,
                permissions=permissions,
                codemode=self._codemode,
                session_id=session_id,
                call_hooks=base.call_hooks,
                call_limits=base.call_limits,
                bind_layers=layers,
            )
        catalog = scope._state.current()
        assert catalog.base is not None
        base = self._snapshot_of(catalog.base, permissions)
        hooks = base.call_hooks  # the Location's plugins wrap a session's calls
        if catalog.call_hooks:  # and the session's own, outside them
            from tooldeck.host.boundary.hooks import session_chain

            hooks = session_chain(base.call_hooks, catalog.call_hooks, scope._state.fail)
        limits = base.call_limits
        if limits is None and declares_limits(catalog.changes.values()):
            # Limits only the session's own tools declare: waiting at the service's gates.
            limits = CallLimits.of(catalog, self.location.config.tools, self._gates)
        snap = LayeredSnapshot(
            catalog,
            base,
            permissions=permissions,
            codemode=self._codemode,
            session_id=session_id,
            call_hooks=hooks,
            call_limits=limits,
            bind_layers=layers,
        )
        scope._cache = (permissions, snap)
        if scope.closed:  # closed meanwhile: hold nothing for it
            scope._cache = None
        return snap

    # -- sessions --------------------------------------------------------------------------
    def session(self, session_id: str) -> SessionScope:
        """The open scope of ``session_id``, opening it if needed (the same id, the same scope).

        Its registrations apply to ``snapshot(session=session_id)`` only. Opening it
        runs the session templates (``session_transform``) at once, so a failing one is
        in ``scope.diagnostics`` right away. The service holds the scope until
        ``scope.close()`` (or ``close_sessions()``).
        """
        session_id = _session_id(session_id)
        scope = self._sessions.get(session_id)
        if scope is not None:
            return scope
        from tooldeck.host.registry.session import SessionState

        templates = self._session_templates()
        with self._sessions_lock:
            scope = self._sessions.get(session_id)
            if scope is not None:
                return scope
            state = SessionState(self._state, templates, session_id)
            scope = self._sessions[session_id] = SessionScope(session_id, state, self._forget)
        if templates.current:
            state.current()  # the session templates (plugins' hooks) run as the scope opens
        return scope

    def session_transform(
        self, fn: SessionTransformFn, *, source: str = "<anonymous>"
    ) -> Registration:
        """Register ``fn(editor, session_id, state)`` into every session, before its own ones.

        Each session replays it after the Location's registrations and before the
        session's own; disposing it removes it from every session's next snapshot.
        ``state`` is this registration's own dict in that session: empty when the
        session opens (an id opened again starts empty), the same dict on every replay
        while it is open, and dropped by the service when the scope closes or the
        registration is disposed.
        """
        if not callable(fn):
            raise TypeError(f"session transform must be callable, got {type(fn).__name__}")
        templates = self._session_templates()
        return Registration(templates, templates.add(fn, source))

    @property
    def sessions(self) -> tuple[str, ...]:
        """The ids of the open sessions, in the order they were opened."""
        return tuple(self._sessions)

    def close_sessions(self) -> None:
        """Close every open session (``Host.close()`` does). Idempotent."""
        with self._sessions_lock:
            scopes = list(self._sessions.values())
        for scope in scopes:
            scope.close()

    def _session_templates(self) -> Templates:
        if self._templates is None:
            from tooldeck.host.registry.session import Templates

            with self._sessions_lock:
                if self._templates is None:
                    self._templates = Templates()
        return self._templates

    def _load_deferred(self, session_id: str, names: Sequence[str]) -> bool:
        """``search_tools``: advertise ``names`` natively in an open session from its next
        snapshot on (one session registration); ``False`` when it is not open."""
        scope = self._sessions.get(session_id)
        if scope is None or scope.closed:
            return False
        scope.transform(deferral.undefer(tuple(names)), source=deferral.LOADED_SOURCE)
        return True

    def _forget(self, scope: SessionScope) -> None:
        with self._sessions_lock:
            if self._sessions.get(scope.id) is scope:
                del self._sessions[scope.id]

    def list(self) -> list[AnyTool]:
        """The effective tools (all of them, unfiltered), sorted by effective name."""
        catalog = self._state.current()
        return [catalog.tools[name].tool for name in sorted(catalog.tools)]

    @property
    def catalog(self) -> Catalog:
        """The current replayed catalog, with provenance (for reports and the CLI)."""
        return self._state.current()

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Refused registrations and failed sources of the current state."""
        return self._state.current().diagnostics

    @property
    def registrations(self) -> tuple[str, ...]:
        """The sources of the active registrations, in registration order."""
        return tuple(t.source for t in self._state.transforms)


def _session_id(session_id: object) -> str:
    if not isinstance(session_id, str):
        raise TypeError(f"a session id must be a str, got {type(session_id).__name__}")
    if not session_id:
        raise ValueError("a session id must be a non-empty str")
    return session_id
