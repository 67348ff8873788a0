"""The handles a host holds: a ``Registration`` per transform, a ``SessionScope`` per session.

Both are thin: what a registration does lives in the replayed state it was added to
(``registry.state``, a session's ``registry.session``); the handle only disposes it, and
the scope only adds to, reads and closes its session's state. ``ToolService`` builds
them (``service.transform``, ``service.session``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

from tooldeck._public import public
from tooldeck.errors import SessionError
from tooldeck.host.execution.definitions import Visibility
from tooldeck.host.execution.snapshot import Snapshot
from tooldeck.host.registry.catalog import Catalog
from tooldeck.host.registry.editor import CallHookFn, Diagnostic, ToolEditor
from tooldeck.host.registry.steps import TransformFn

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from tooldeck.host.registry.session import SessionState


class _Registered(Protocol):
    source: str
    disposed: bool


class _Owner(Protocol):
    def dispose(self, item: Any, /) -> None: ...


@public
class Registration:
    """A scoped registration: ``dispose()`` (idempotent) or use it as a context manager."""

    __slots__ = ("_owner", "_transform")

    def __init__(self, owner: _Owner, transform: _Registered) -> None:
        self._owner = owner
        self._transform = transform

    @property
    def source(self) -> str:
        """The source this registration belongs to (a plugin name, ``"mcp"``, ...)."""
        return self._transform.source

    @property
    def active(self) -> bool:
        """False once disposed."""
        return not self._transform.disposed

    def dispose(self) -> None:
        """Remove this registration and reveal whatever it had overridden or removed."""
        self._owner.dispose(self._transform)

    def __enter__(self) -> Registration:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.dispose()

    def __repr__(self) -> str:
        state = "active" if self.active else "disposed"
        return f"<Registration {self.source!r} {state}>"


@public
class SessionScope:
    """The open registrations of one session. Thread-safe; close it once it ends."""

    __slots__ = ("__weakref__", "_cache", "_closed", "_forget", "_state", "id")

    def __init__(
        self, session_id: str, state: SessionState, forget: Callable[[SessionScope], None]
    ) -> None:
        self.id = session_id
        self._state = state
        self._forget = forget
        self._closed = False
        # The last snapshot and the permissions it was taken with (see ToolService).
        self._cache: tuple[Visibility | None, Snapshot] | None = None

    # -- registering -----------------------------------------------------------------------
    def transform(self, fn: TransformFn, *, source: str = "<anonymous>") -> Registration:
        """Register ``fn(editor)`` for this session, after every earlier registration."""
        if not callable(fn):
            raise TypeError(f"transform must be callable, got {type(fn).__name__}")
        return Registration(self._state, self._state.add(fn, source))

    def call_hook(self, fn: CallHookFn, *, source: str = "<anonymous>") -> Registration:
        """Wrap this session's calls in ``fn(call, context)``, a ``tool_call`` wrapper
        generator (``docs/hooks.md``), outside the Location plugins' hooks.

        Other sessions and the Location's snapshots never run it. It is one session
        registration (``editor.add_call_hook`` in a transform): ``dispose()`` or closing
        the session removes it; a defect in it disables ``source`` in this session and
        shows in ``diagnostics``.
        """
        if not callable(fn):
            raise TypeError(f"call_hook must be callable, got {type(fn).__name__}")
        return self.transform(partial(_add_call_hook, fn), source=source)

    def batch(self) -> AbstractContextManager[None]:
        """Coalesce this session's changes into one rebuild; readers see old or new."""
        self._check_open("batch changes")
        return self._state.batch()

    # -- reading ---------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        """True once ``close()`` ran."""
        return self._closed

    @property
    def catalog(self) -> Catalog:
        """The session's replayed catalog: the Location's with the session's changes."""
        self._check_open("read its catalog")
        return self._state.current()

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Refused registrations and failed sources of this session (not the Location's)."""
        if self._closed:
            return ()
        catalog = self._state.current()
        base = catalog.base.diagnostics if catalog.base is not None else ()
        return catalog.diagnostics[len(base) :]

    @property
    def registrations(self) -> tuple[str, ...]:
        """The sources of the session's own active registrations, in registration order."""
        return tuple(t.source for t in self._state.transforms)

    # -- closing ---------------------------------------------------------------------------
    def close(self) -> None:
        """Dispose every registration of the session and forget it. Idempotent.

        Snapshots already taken keep working (they captured their executors); the next
        ``snapshot(session=id)`` is the Location's view, until the id is opened again.
        """
        if self._closed:
            return
        self._closed = True
        self._forget(self)
        self._state.close()
        self._cache = None

    def __enter__(self) -> SessionScope:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _check_open(self, action: str) -> None:
        if self._closed:
            from tooldeck.host.registry.session import closed

            raise SessionError(self.id, closed(action, self._state))

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"{len(self.registrations)} registrations"
        return f"<SessionScope {self.id!r} {state}>"


def _add_call_hook(fn: CallHookFn, editor: ToolEditor) -> None:
    editor.add_call_hook(fn)
