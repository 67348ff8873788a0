"""The real OpenTelemetry SDK, reporting to memory: a tracer and a meter provider per test."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tooldeck import Telemetry

from ..warm import warm

SERVERS = Path(__file__).parent / "servers"


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


class TracedServe(NamedTuple):
    """``tooldeck mcp serve`` over stdio with the OpenTelemetry SDK writing its spans to a
    file (``servers/traced_serve.py``): the command to give an SDK client, and the spans."""

    command: list[str]
    env: dict[str, str]
    spans_file: Path

    def spans(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.spans_file.read_text().splitlines()]


def traced_serve(where: Path, plugin: str, source: str) -> TracedServe:
    """A trusted project at ``where / "project"`` with telemetry on and one local plugin
    file ``plugin``.py holding ``source``, served by ``traced_serve.py``."""
    from tooldeck import grant_trust, trust_status

    root = where / "project"
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / f"{plugin}.py").write_text(source)
    (root / "tooldeck.toml").write_text("[telemetry]\nenabled = true\n")
    grant_trust(trust_status(root))
    spans_file = where / "spans.jsonl"
    env = {
        **{k: v for k, v in os.environ.items() if k.startswith(("XDG_", "TOOLDECK_TRUST"))},
        "PYTHONPATH": os.pathsep.join(sys.path),
        "TRACED_SPANS": str(spans_file),
    }
    command = warm([sys.executable, str(SERVERS / "traced_serve.py"), "--location", str(root)])
    return TracedServe(command, env, spans_file)
