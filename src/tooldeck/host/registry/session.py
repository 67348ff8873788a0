"""A session's replayed state: its transforms on top of the Location's catalog.

A session (one conversation) sees the Location's effective catalog with its own
transforms replayed **after** every Location registration. Replaying the Location's
transforms again for each session would cost every session as much as the Location, so
a ``SessionState`` starts from the Location's *final* catalog, which is exactly the
state after the last Location transform, a checkpoint like any other, and edits an
``Overlay`` of it: the session holds only what it changed.

Everything else is ``ToolState``'s: the same editor, diagnostics, failing sources,
checkpoints, pure-transform deltas, batches, locking and all-or-nothing publication.
A session replays when its own transforms change, when the Location publishes a new
catalog (its pure transforms are then re-applied from their deltas, the others are
called again), when the session templates change, and in full after the Location's
``reload()``.

Templates are transforms every session replays first, before its own: the plugins'
``session_transform`` hooks, registered once per service. Each session binds each
template to its id once, so a template's step is recorded and reused like any other.
The binding also owns the template's *state* in that session: a dict the template gets
on every replay, so per-session data lives exactly as long as the open session (per
service, so per Location) instead of in some process-wide table keyed by session id.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from tooldeck.errors import SessionError
from tooldeck.host.registry.catalog import Catalog
from tooldeck.host.registry.editor import (
    CallHookFn,
    CatalogEntry,
    Diagnostic,
    NamespaceEntry,
    ToolEditor,
)
from tooldeck.host.registry.features import FeatureEntry
from tooldeck.host.registry.overlay import Draft, Overlay
from tooldeck.host.registry.state import ToolState
from tooldeck.host.registry.steps import Transform, TransformFn

SessionTransformFn = Callable[[ToolEditor, str, dict[str, Any]], Any]
"""A template: ``fn(editor, session_id, state)``, replayed in every session; ``state`` is
the template's own dict in that session (the same one on every replay)."""


class Template:
    """One session template: a callback and the source it belongs to."""

    __slots__ = ("disposed", "fn", "source")

    def __init__(self, fn: SessionTransformFn, source: str) -> None:
        self.fn = fn
        self.source = source
        self.disposed = False

    def __repr__(self) -> str:
        return f"<Template {self.source!r}{' disposed' if self.disposed else ''}>"


class Templates:
    """The ordered session templates of one service. Thread-safe.

    ``current`` is replaced (never mutated) on every change, so a session tells in one
    identity check whether the templates changed since its last replay.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.current: tuple[Template, ...] = ()

    def add(self, fn: SessionTransformFn, source: str) -> Template:
        """Append a template: every session replays it after the earlier ones."""
        template = Template(fn, source)
        with self._lock:
            self.current = (*self.current, template)
        return template

    def dispose(self, template: Template) -> None:
        """Remove ``template`` from every session's next replay; idempotent."""
        with self._lock:
            if template.disposed:
                return
            template.disposed = True
            self.current = tuple(t for t in self.current if t is not template)


class Binding:
    """One template bound to one session, with the template's state in that session.

    The session's recorded steps (and so every catalog and snapshot taken from them)
    refer to the binding; ``release()`` drops the state from it, so what a template kept
    there is freed when the session closes even while an older snapshot is still in use.
    """

    __slots__ = ("session_id", "state", "template")

    def __init__(self, template: Template, session_id: str) -> None:
        self.template = template
        self.session_id = session_id
        self.state: dict[str, Any] = {}

    def __call__(self, editor: ToolEditor) -> None:
        self.template.fn(editor, self.session_id, self.state)

    def release(self) -> None:
        """Forget the state: the session closed, or the template left it."""
        self.state = {}


class SessionState(ToolState):
    """One session's transforms replayed on ``base``'s current catalog. Thread-safe."""

    takes_call_hooks = True

    def __init__(self, base: ToolState, templates: Templates, session_id: str) -> None:
        super().__init__()
        self._base = base
        self._templates = templates
        self.session_id = session_id
        self._seen: tuple[Template, ...] = ()  # the templates ``_prelude`` was bound from
        self._bound: dict[Template, Transform] = {}
        self._prelude: tuple[Transform, ...] = ()
        self._on: Catalog | None = None  # the base catalog ``_steps`` were replayed on
        self._reloads = base.reloads
        self.closed = False

    def add(self, fn: TransformFn, source: str) -> Transform:
        """Append a session transform; refused once the session is closed."""
        with self._lock:
            if self.closed:
                raise SessionError(self.session_id, closed("register a transform", self))
            return super().add(fn, source)

    def current(self) -> Catalog:
        """The session's catalog on the base's current one, replaying if anything changed."""
        base = self._base.current()
        version, catalog = self._published
        if (
            version == self._version
            and catalog.base is base
            and self._templates.current is self._seen
        ):
            return catalog
        with self._lock:
            if self._replaying_thread == threading.get_ident():
                raise RuntimeError("a transform must not read the tool service it is part of")
            base = self._base.current()
            version, catalog = self._published
            templates = self._templates.current
            if version != self._version or catalog.base is not base or templates is not self._seen:
                if templates is not self._seen:
                    self._bind(templates)
                version = self._version
                catalog = self._rebuild_on(base)
                self._published = (version, catalog)
            return catalog

    def close(self) -> None:
        """Dispose every transform and drop every replayed step; the state stays empty."""
        with self._lock:
            self.closed = True
            for transform in self._working:
                transform.disposed = True
            self._working.clear()
            for transform in self._bound.values():
                _binding(transform).release()
            self._committed = self._prelude = self._seen = ()
            self._bound = {}
            self._steps.clear()
            self._failed.clear()
            self._on = None
            self._version += 1
            self._published = (self._version, _CLOSED)

    # -- replay ----------------------------------------------------------------------------
    def _bind(self, templates: tuple[Template, ...]) -> None:
        """Bind each template to this session once; a kept template keeps its transform
        (and so its state), a template that left releases its state."""
        bound = {
            template: self._bound.get(template)
            or Transform(Binding(template, self.session_id), template.source)
            for template in templates
        }
        for template, transform in self._bound.items():
            if template not in bound:
                _binding(transform).release()
        self._bound, self._prelude, self._seen = bound, tuple(bound.values()), templates
        present = {t.source for t in self._prelude} | {t.source for t in self._committed}
        for source in [s for s in self._failed if s not in present]:
            del self._failed[source]

    def _rebuild_on(self, base: Catalog) -> Catalog:
        if self._base.reloads != self._reloads:
            self._reloads = self._base.reloads
            self._failed.clear()
            self._full_replay = True
        if base is not self._on:
            # Recorded steps stay valid as deltas; checkpoints were drafts of the old base.
            for step in self._steps:
                step.tools = step.namespaces = step.extras = None
            self._on = base
        return self._rebuild()

    def _order(self) -> tuple[Transform, ...]:
        # A plugin that failed in the Location (its transform or its ``tool_call`` hook
        # raised) is failed as a whole: its session template sits out too, tools and hooks.
        failed = self._on.failed if self._on is not None else None
        if not failed:
            return self._prelude + self._committed
        return tuple(t for t in self._prelude if t.source not in failed) + self._committed

    def _empty(self) -> tuple[Draft[CatalogEntry], Draft[NamespaceEntry], Draft[FeatureEntry]]:
        base = self._on
        assert base is not None
        return Overlay(base.tools), Overlay(base.namespaces), Overlay(base._extras)

    def _own_diagnostics(self, catalog: Catalog) -> tuple[Diagnostic, ...]:
        if catalog.base is None:
            return catalog.diagnostics
        return catalog.diagnostics[len(catalog.base.diagnostics) :]

    def _catalog(self) -> Catalog:
        base = self._on
        assert base is not None
        failed = dict(self._failed)
        own = [*failed.values()]
        hooks: list[tuple[str, CallHookFn]] = []
        for step in self._steps:
            own.extend(step.diagnostics)
            hooks.extend(step.hooks)
        if self._steps:
            # The last step's checkpoint: replays copy checkpoints and never edit them.
            last = self._steps[-1]
            assert isinstance(last.tools, Overlay) and isinstance(last.namespaces, Overlay)
            assert isinstance(last.extras, Overlay)
            tools, namespaces, extras = last.tools, last.namespaces, last.extras
        else:
            tools, namespaces = Overlay(base.tools), Overlay(base.namespaces)
            extras = Overlay(base._extras)
        return Catalog(
            tools,
            namespaces,
            base.diagnostics + tuple(own),
            failed,
            tuple(self._steps),
            base=base,
            changes=MappingProxyType(tools.changes),
            call_hooks=tuple(hooks),
            extras=extras,
        )


def closed(action: str, state: SessionState) -> str:
    """What a closed session's error says about ``action``."""
    return (
        f"cannot {action}: the session is closed; open it again with session({state.session_id!r})"
    )


def _binding(transform: Transform) -> Binding:
    binding = transform.fn
    assert isinstance(binding, Binding)
    return binding


_CLOSED = Catalog({}, {}, (), {})
