"""``Telemetry``: which providers tooldeck reports to, and the rule that turns it on.

Nothing here imports OpenTelemetry: a host that never turns tracing on never loads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tooldeck._public import public

if TYPE_CHECKING:  # annotations only: this module never imports OpenTelemetry
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import TracerProvider

    from tooldeck.host.config.config import TelemetryConfig


@public
@dataclass(frozen=True, slots=True)
class Telemetry:
    """Where a host's spans and metrics go: ``Host.open(..., telemetry=Telemetry(...))``.

    ``tracer_provider`` / ``meter_provider``: OpenTelemetry providers (``None``: the
    global ones, ``opentelemetry.trace.get_tracer_provider()`` and
    ``opentelemetry.metrics.get_meter_provider()``, read when the host opens).
    ``capture_content``: record each call's arguments and result on its span
    (``gen_ai.tool.call.arguments`` / ``.result``); ``None`` takes config
    ``[telemetry] capture_content`` (default off: they may hold secrets).
    """

    tracer_provider: TracerProvider | None = None
    meter_provider: MeterProvider | None = None
    capture_content: bool | None = None


def resolve(requested: bool | Telemetry | None, config: TelemetryConfig) -> Telemetry | None:
    """The telemetry of a host, or ``None`` when tracing is off.

    ``requested`` is ``Host.open(telemetry=...)``: a ``Telemetry`` or ``True`` turns it on,
    ``False`` off, ``None`` leaves it to config ``[telemetry] enabled``. The config's
    ``capture_content`` fills in a ``Telemetry`` that leaves it ``None``.
    """
    if requested is None:
        requested = config.enabled
    if requested is False:
        return None
    if requested is True:
        requested = Telemetry()
    if not isinstance(requested, Telemetry):
        raise TypeError(
            f"Host.open(telemetry=...) takes True, False, None or a tooldeck.Telemetry, "
            f"not {type(requested).__name__}"
        )
    if requested.capture_content is None:
        tracer, meter = requested.tracer_provider, requested.meter_provider
        return Telemetry(tracer, meter, config.capture_content)
    return requested
