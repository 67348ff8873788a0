"""What tracing costs a call: ``run_tool_call`` of ``tool(add)`` through ``Host.open``
with telemetry off, on with an SDK that samples nothing, and on with every span
exported to memory. CPU time, best of ROUNDS rounds of CALLS calls, ns per call.

    .venv/bin/python bench/telemetry_overhead.py [ROUNDS]

Off must equal a host without any ``tool_call`` hook (the snapshot's ``call_hooks`` is
``None``); the two other rows are the price of turning tracing on.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import tempfile
import time
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

from tooldeck import Host, Telemetry, ToolCall, hookimpl, run_tool_call, tool

CALLS = 5_000


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class Pack:
    @hookimpl
    def tool_transform(self, editor: Any) -> None:
        editor.add(add.replace(codemode=False))


def per_call(telemetry: Telemetry | bool, rounds: int) -> float:
    with Host.open(tempfile.mkdtemp(), plugins=[Pack()], trust=True, telemetry=telemetry) as host:
        snapshot = host.snapshot()
        call = ToolCall("c1", "add", '{"a": 1, "b": 2}')

        async def calls() -> None:
            for _ in range(CALLS):
                await run_tool_call(snapshot, call)

        best = float("inf")
        loop = asyncio.new_event_loop()
        for _ in range(rounds):
            gc.collect()
            start = time.thread_time()
            loop.run_until_complete(calls())
            best = min(best, time.thread_time() - start)
        loop.close()
    return best / CALLS * 1e9


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    exported = TracerProvider()
    exported.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
    rows = {
        "off": per_call(False, rounds),
        "on, sampled out": per_call(Telemetry(TracerProvider(sampler=ALWAYS_OFF)), rounds),
        "on, exported": per_call(Telemetry(exported, MeterProvider()), rounds),
    }
    print(json.dumps({k: round(v) for k, v in rows.items()}, indent=1))


if __name__ == "__main__":
    main()
