"""The real OpenTelemetry SDK, reporting to memory: a tracer and a meter provider per test."""

from __future__ import annotations

from typing import NamedTuple

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tooldeck import Telemetry


class Otel(NamedTuple):
    """Providers to hand to ``Host.open`` and what they recorded."""

    tracer_provider: TracerProvider
    exporter: InMemorySpanExporter
    meter_provider: MeterProvider
    reader: InMemoryMetricReader

    def telemetry(self, **options: object) -> Telemetry:
        return Telemetry(self.tracer_provider, self.meter_provider, **options)

    def spans(self, prefix: str = "") -> list[ReadableSpan]:
        """Finished spans whose name starts with ``prefix``, in the order they ended."""
        return [s for s in self.exporter.get_finished_spans() if s.name.startswith(prefix)]

    def span(self, name: str) -> ReadableSpan:
        (found,) = [s for s in self.exporter.get_finished_spans() if s.name == name]
        return found


@pytest.fixture
def otel() -> Otel:
    tracer_provider = TracerProvider()
    exporter = InMemorySpanExporter()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    yield Otel(tracer_provider, exporter, meter_provider, reader)
    tracer_provider.shutdown()
    meter_provider.shutdown()
