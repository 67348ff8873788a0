"""``ToolService``: the Location-scoped facade over the replayed state.

Thin on purpose: registration order and replay live in ``state``, frozen catalogs in
``snapshot``. The service adds scoped ``Registration`` handles and caches one snapshot
per visibility filter, so taking a snapshot of an unchanged state is a dictionary hit.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Literal

from tooldeck._tool import AnyTool
from tooldeck.host.execution.snapshot import CodeModeProvider, Snapshot, Visibility
from tooldeck.host.registry.editor import Diagnostic
from tooldeck.host.registry.state import Catalog, ToolState, Transform, TransformFn

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from tooldeck.host.location.location import Location


class Registration:
    """A scoped registration: ``dispose()`` (idempotent) or use it as a context manager."""

    __slots__ = ("_state", "_transform")

    def __init__(self, state: ToolState, transform: Transform) -> None:
        self._state = state
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
        self._state.dispose(self._transform)

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

    def snapshot(self, permissions: Visibility | Literal["location"] | None = None) -> Snapshot:
        """An immutable snapshot of the effective catalog for one model request.

        ``permissions`` decides which tools are advertised; each value means the same
        here and in ``Host.snapshot`` (only the defaults differ):

        * ``None`` (the default here): every registered tool;
        * ``"location"`` (the default of ``Host.snapshot``): the Location's own rules,
          ``location.policy``, hide the tools whose action is wholly denied;
        * any ``Visibility`` (a ``Ruleset``, say) hides what its ``hidden`` says.

        Visibility only: a visible tool still asserts its permissions when it runs.
        One snapshot is kept per ``permissions`` value, so it must be hashable.
        """
        if isinstance(permissions, str):
            permissions = self._location_rules(permissions)
        catalog = self._state.current()
        try:
            cached = self._snapshots.get(permissions)
        except TypeError:
            raise TypeError(
                f"snapshot(permissions=...) must be hashable (snapshots are cached per "
                f"value), got an unhashable {type(permissions).__name__}"
            ) from None
        if cached is not None and cached.catalog is catalog:
            return cached
        snap = Snapshot(catalog, self.location, permissions=permissions, codemode=self._codemode)
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
