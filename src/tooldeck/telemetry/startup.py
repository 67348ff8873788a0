"""Spans of opening a host: discovering plugins, loading each one, replaying the catalog.

``Host`` calls ``spans(name, attributes)`` around each step; without telemetry that is
``no_spans``, a context manager that does nothing, so what made startup slow is visible
only when someone looks, and costs nothing otherwise. Span names:

* ``tooldeck.host.open``: ``Host.open`` from config read to the first catalog;
* ``tooldeck.plugins.refresh``: one ``refresh_plugins`` (inside the first);
* ``tooldeck.plugins.discover``: listing the candidates of every layer;
* ``tooldeck.plugin.load``: importing and wiring one plugin (``tooldeck.plugin.name``);
* ``tooldeck.catalog.replay``: replaying every registration into the catalog.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooldeck.telemetry.settings import Telemetry

Spans = Callable[[str, Mapping[str, Any]], AbstractContextManager[Any]]
"""``spans(name, attributes)``: a context manager around one step of opening a host."""

_NOTHING: AbstractContextManager[None] = nullcontext()


def no_spans(name: str, attributes: Mapping[str, Any]) -> AbstractContextManager[None]:
    """The ``Spans`` of a host without telemetry: nothing is recorded."""
    return _NOTHING


def startup_spans(telemetry: Telemetry) -> Spans:
    """The ``Spans`` reporting to ``telemetry``'s tracer provider (imports OpenTelemetry)."""
    from opentelemetry import trace

    from tooldeck import __version__
    from tooldeck.telemetry import semconv

    tracer = trace.get_tracer(
        semconv.INSTRUMENTATION, __version__, tracer_provider=telemetry.tracer_provider
    )

    @contextmanager
    def spans(name: str, attributes: Mapping[str, Any]) -> Iterator[trace.Span]:
        with tracer.start_as_current_span(name, attributes=dict(attributes)) as span:
            yield span

    return spans
