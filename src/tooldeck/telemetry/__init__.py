"""OpenTelemetry traces and metrics of tool calls and of opening a host (``tooldeck[otel]``).

tooldeck uses the OpenTelemetry *API* only; the host application configures the SDK
(exporters, sampling, resources). Tracing is on for a ``Host`` when
``Host.open(telemetry=...)`` says so, else when config ``[telemetry] enabled = true``
(``settings.resolve`` is the rule). Off, nothing of this package but ``settings`` is
imported, no hook is registered and a call does no telemetry work.

The modules, one job each: ``settings`` (``Telemetry`` and the rule that turns it on),
``semconv`` (the attribute names), ``tracing`` (the ``tool_call`` plugin: one span per
call, the duration histogram), ``asks`` (permission asks as span events), ``startup``
(spans of plugin discovery, loading and catalog replay) and ``propagation`` (W3C trace
context in an MCP request's ``params._meta``, both ways). Only ``settings`` and
``propagation`` load without OpenTelemetry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooldeck.telemetry.settings import Telemetry

__all__ = ["Telemetry"]


def __getattr__(name: str) -> Any:
    # ``Telemetry`` is loaded on first use: opening a host imports this package's
    # ``semconv`` and ``startup``, and with tracing off never needs ``settings``.
    if name == "Telemetry":
        from tooldeck.telemetry.settings import Telemetry

        return Telemetry
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
