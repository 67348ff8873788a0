"""Whether a host is traced, and what that adds: startup spans and the tracing plugin.

``Host.open`` asks ``instrumentation`` once. Off (the default), the host gets
``no_spans`` and no extra plugin, so neither opening it nor a call does any telemetry
work and OpenTelemetry is never imported. On (``Host.open(telemetry=...)`` or config
``[telemetry] enabled``), the host gets startup spans and the ``telemetry`` plugin,
which ``Host`` always loads last so its ``tool_call`` wrapper is the outermost.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

from tooldeck.errors import PluginError, UsageError
from tooldeck.host.plugins.discovery import Candidate
from tooldeck.telemetry.startup import Spans, no_spans, startup_spans

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location
    from tooldeck.host.service import ToolService
    from tooldeck.telemetry.settings import Telemetry

NAME = "telemetry"
"""The tracing plugin's name in ``host.plugins`` (and for ``plugins.disable``)."""

MISSING = "OpenTelemetry is not installed: pip install 'tooldeck[otel]'"


class Instrumentation(NamedTuple):
    """What tracing adds to one host: its startup spans and plugin candidates."""

    spans: Spans
    candidates: tuple[Candidate, ...]


OFF = Instrumentation(no_spans, ())


def instrumentation(location: Location, requested: bool | Telemetry | None) -> Instrumentation:
    """The instrumentation of a host at ``location`` (see the module doc).

    Raises ``UsageError`` when ``Host.open(telemetry=...)`` asks for tracing and
    OpenTelemetry is not installed; turned on by config alone, the ``telemetry`` plugin
    is reported failed with that reason instead and the host opens untraced.
    """
    if requested is False or (requested is None and not location.config.telemetry.enabled):
        return OFF  # what ``resolve`` says, without loading it
    from tooldeck.telemetry.settings import resolve

    telemetry = resolve(requested, location.config.telemetry)
    if telemetry is None:
        return OFF
    origin = "[telemetry] enabled" if requested is None else "Host.open(telemetry=...)"
    try:
        spans = startup_spans(telemetry)
    except ImportError:
        if requested is not None:
            raise UsageError(f"Host.open(telemetry=...): {MISSING}") from None
        spans = no_spans
    return Instrumentation(spans, (_candidate(location, telemetry, origin),))


def _candidate(location: Location, telemetry: Telemetry, origin: str) -> Candidate:
    from tooldeck import __version__

    return Candidate(
        NAME,
        NAME,
        (),
        frozenset({NAME}),
        (NAME,),
        partial(_load, location, telemetry),
        "tooldeck",
        __version__,
        origin,
    )


def _load(location: Location, telemetry: Telemetry) -> object:
    """The tracing plugin; the Location's permission asks are reported on the call's span."""
    try:
        from tooldeck.telemetry.asks import TracedAsks
        from tooldeck.telemetry.tracing import ToolTracing
    except ImportError as exc:
        raise PluginError(NAME, MISSING) from exc
    location.permission.observer = TracedAsks()
    return ToolTracing(telemetry)


@contextlib.contextmanager
def replayed(service: ToolService, spans: Spans) -> Iterator[None]:
    """``service.batch()``, with the replay its end runs inside a ``tooldeck.catalog.replay``
    span (when the changes inside succeeded)."""
    with contextlib.ExitStack() as after, service.batch():
        yield
        after.enter_context(spans("tooldeck.catalog.replay", {}))
