"""One plugin's place in a ``Host``: what loading it gave and where it is registered.

``Host.refresh_plugins`` keeps a record per candidate across refreshes while the
candidate is unchanged, so an unchanged plugin is never imported or registered again.
``collector_paused`` is the garbage-collector pause loading runs under.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import TYPE_CHECKING

from tooldeck.host.handles import Registration
from tooldeck.host.plugins.discovery import Candidate
from tooldeck.host.plugins.wiring import PluginTransforms
from tooldeck.host.service import ToolService

if TYPE_CHECKING:
    from tooldeck.host.boundary.hooks import CallHooks
    from tooldeck.host.plugins.report import PluginStatus


class PluginRecord:
    """One plugin's load outcome; kept across refreshes while its candidate is unchanged."""

    # A plain class: a dataclass costs a millisecond of every Host.open to create.
    __slots__ = (
        "candidate",
        "hooks",
        "reason",
        "registrations",
        "status",
        "traceback",
        "transform",
    )

    def __init__(
        self,
        candidate: Candidate,
        status: PluginStatus,
        *,
        reason: str | None = None,
        traceback: str | None = None,
        transform: PluginTransforms | None = None,
    ) -> None:
        self.candidate = candidate
        self.status = status
        self.reason = reason
        self.traceback = traceback
        self.transform = transform
        # The Location registration, then the session one (if the plugin has the hook).
        self.registrations: tuple[Registration, ...] = ()
        self.hooks: CallHooks | None = None  # where its ``tool_call`` hook is registered

    @property
    def registration(self) -> Registration | None:
        """The plugin's Location registration (``None`` before it registers)."""
        return self.registrations[0] if self.registrations else None

    @property
    def registered(self) -> bool:
        return bool(self.registrations) and self.registrations[0].active

    def register(self, service: ToolService) -> None:
        assert self.transform is not None
        name = self.candidate.name
        location, session, call = self.transform
        if call is not None:  # before the transform: the catalog it makes has the hook
            self.hooks = service._hooks()
            self.hooks.add(call)
        self.registrations = (service.transform(location, source=name),)
        if session is not None:
            self.registrations += (service.session_transform(session, source=name),)

    def unregister(self) -> None:
        for registration in self.registrations:
            registration.dispose()
        if self.hooks is not None:
            self.hooks.remove(self.candidate.name)
            self.hooks = None


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while plugins load, if it is running.

    Loading creates modules, classes and schemas that live as long as the process;
    the dozens of collections their allocations trigger find next to no garbage and
    cost about a tenth of opening a host with 50 plugins. Nothing is lost by waiting:
    the next collection after the load sees whatever cycles it left.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
