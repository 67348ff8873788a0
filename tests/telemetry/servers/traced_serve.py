"""``tooldeck mcp serve`` in its own process, with the OpenTelemetry SDK configured the way
a host application would: a global tracer provider. Each span, as it ends, is appended as
one JSON line to the file named by ``TRACED_SPANS`` (the test reads them there).

    python traced_serve.py --location DIR     (the rest as for ``tooldeck mcp serve``)
"""

from __future__ import annotations

import json
import os
import sys

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider

from tooldeck.cli import main


class JsonLines(SpanProcessor):
    """Writes each ended span as a line: enough to check names, parents and attributes."""

    def on_end(self, span: ReadableSpan) -> None:
        line = {
            "name": span.name,
            "kind": span.kind.name,
            "scope": span.instrumentation_scope.name if span.instrumentation_scope else "",
            "trace_id": f"{span.context.trace_id:032x}",
            "span_id": f"{span.context.span_id:016x}",
            "parent_id": f"{span.parent.span_id:016x}" if span.parent is not None else None,
            "attributes": dict(span.attributes or {}),
            "status": span.status.status_code.name,
        }
        with open(os.environ["TRACED_SPANS"], "a") as file:
            file.write(json.dumps(line, default=list) + "\n")


provider = TracerProvider()
provider.add_span_processor(JsonLines())
trace.set_tracer_provider(provider)
sys.exit(main(["mcp", "serve", *sys.argv[1:]]))
