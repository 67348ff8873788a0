"""The numbers behind design choices the code comments refer to (``bench/DECISIONS.md``).

    .venv/bin/python bench/decisions.py          # prints the Markdown table

Each row times the choice the code made against the plain alternative it avoids, in this
process (timeit, best of 5) or, for imports, in fresh subprocesses (median of 7).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import timeit
from collections.abc import Callable

TWO_FIELDS = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "string", "description": "B."}},
    "required": ["a"],
}


def best(fn: Callable[[], object], number: int) -> float:
    """Seconds per call, best of 5 repeats."""
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def fresh(code: str) -> float:
    """Median seconds of ``python -c code`` in a fresh process."""
    script = f"import time; t = time.perf_counter(); {code}; print(time.perf_counter() - t)"
    runs = [
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(7)
    ]
    return statistics.median(float(out) for out in runs)


def rows() -> list[tuple[str, str, str]]:
    from jsonschema import Draft202012Validator

    from tooldeck import ToolContext
    from tooldeck._tool import tuple_new
    from tooldeck.host.schema.jsonschema_fast import SchemaValidator
    from tooldeck.host.schema.metaschema import schema_problem

    plain = Draft202012Validator(TWO_FIELDS)
    fast = SchemaValidator(TWO_FIELDS)
    value = {"a": 1, "b": "x"}
    host_open = "import tooldeck; tooldeck.Host.open('.', plugins=[]).snapshot()"
    fields = (None, "session", "message", "call_1", None, None)
    return [
        (
            "`_tool.tuple_new`: building a `ToolContext` (one of ~5 per-call named tuples)",
            f"{best(lambda: tuple_new(ToolContext, fields), 200000) * 1e9:.0f} ns",
            f"`ToolContext(...)`: {best(lambda: ToolContext(*fields), 200000) * 1e9:.0f} ns",
        ),
        (
            "`host/schema/metaschema.py`: meta-validating one two-field schema",
            f"{best(lambda: schema_problem(TWO_FIELDS), 50) * 1e3:.2f} ms",
            f"`Draft202012Validator.check_schema`: "
            f"{best(lambda: Draft202012Validator.check_schema(TWO_FIELDS), 20) * 1e3:.2f} ms",
        ),
        (
            "`host/schema/jsonschema_fast`: validating a two-field object",
            f"{best(lambda: fast.validate(value), 20000) * 1e6:.2f} µs",
            f"`jsonschema` (compiled once): {best(lambda: plain.validate(value), 2000) * 1e6:.1f} µs",
        ),
        (
            "`host/execution/snapshot.py` `_loop_running`: `Host.open` (no plugins) + snapshot",
            f"{fresh(host_open) * 1e3:.0f} ms",
            f"`import asyncio` alone: {fresh('import asyncio') * 1e3:.0f} ms",
        ),
    ]


def main() -> None:
    print("| choice | measured | the alternative |")
    print("|---|---|---|")
    for choice, measured, alternative in rows():
        print(f"| {choice} | {measured} | {alternative} |")


if __name__ == "__main__":
    main()
