"""The numbers behind design choices the code comments refer to (``bench/DECISIONS.md``).

    .venv/bin/python bench/decisions.py          # prints the Markdown table

Each row times the choice the code made against the plain alternative it avoids, in this
process (timeit, best of 5) or, for imports, in fresh subprocesses (median of 7). Rows of
the call path also say what the difference is worth against one whole W3 call
(``snap.execute_sync`` of ``tool(add)``, timed in the same run): a trick worth less
than 3% of its workload is removed rather than kept (``DECISIONS.md``).
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


def call_rows() -> list[tuple[str, str, str]]:
    """The tricks of one call, each against its plain path and a whole W3 call."""
    import asyncio
    import json
    import tempfile

    from pydantic import TypeAdapter

    from tooldeck import Location, ToolCall, ToolService, run_tool_call, tool
    from tooldeck.host.call.arguments import _model_arguments, arguments_of
    from tooldeck.host.call.content import normalize_content, render_output
    from tooldeck.host.call.path import _executor_path
    from tooldeck.host.registry.record import record_of
    from tooldeck.host.schema.validators import _loads

    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    def snapshot() -> object:
        service = ToolService(Location(tempfile.gettempdir(), data_dir=tempfile.mkdtemp()))
        service.transform(lambda editor: editor.add(tool(add)), source="bench")
        return service.snapshot()

    args = '{"a": 1, "b": 2}'
    call = ToolCall("c1", "add", args)
    fast, general = snapshot(), snapshot()
    record = record_of(general.get("add"))  # type: ignore[attr-defined]
    record.call_path = _executor_path(record)  # the general path, for this snapshot only
    whole = best(lambda: fast.execute_sync(call), 20000)  # type: ignore[attr-defined]
    execute = record.tool.execute
    core = execute.model.__pydantic_validator__
    record.output_validator(3)  # derived on first use
    output = record.output_validator
    plain_int = TypeAdapter(int).validate_python
    loop = asyncio.new_event_loop()
    unbounded = snapshot()
    unbounded.text_budget = -1  # type: ignore[attr-defined]  # every text is measured

    def per_call(fn: Callable[[], object], number: int = 20000) -> float:
        return best(fn, number)

    def awaited(snap: object) -> float:
        async def calls(number: int) -> None:
            for _ in range(number):
                await run_tool_call(snap, call)  # type: ignore[arg-type]

        return (
            min(timeit.repeat(lambda: loop.run_until_complete(calls(20000)), number=1, repeat=5))
            / 20000
        )

    def row(choice: str, trick: float, plain: float, plain_name: str) -> tuple[str, str, str]:
        share = (plain - trick) / whole * 100
        return (
            choice,
            f"{trick * 1e9:.0f} ns",
            f"{plain_name}: {plain * 1e9:.0f} ns ({share:+.0f}% of a {whole * 1e9:.0f} ns call)",
        )

    return [
        row(
            "`host/call/path.py` `_function_path`: a whole `tool(add)` call",
            whole,
            per_call(lambda: general.execute_sync(call)),  # type: ignore[attr-defined]
            "the general executor path",
        ),
        row(
            "`host/call/arguments.py`: the call's JSON into keyword arguments",
            per_call(lambda: arguments_of(execute)(args)),
            per_call(lambda: _model_arguments(core.validate_json, core.validate_python, args)),
            "a model instance, fields copied out",
        ),
        row(
            "`host/schema/validators.py` `_loads`: JSON text parsed by pydantic-core",
            per_call(lambda: _loads(args)),
            per_call(lambda: json.loads(args)),
            "`json.loads`",
        ),
        row(
            "`validators.py` exact-class output check: `3` against `int`",
            per_call(lambda: output(3)),
            per_call(lambda: plain_int(3)),
            "`TypeAdapter.validate_python`",
        ),
        row(
            "`call.py` `_finished`: `tool(fn)` output rendered straight to a `TextPart`",
            per_call(lambda: render_output(3)),
            per_call(lambda: normalize_content("add", None, 3)),
            "`normalize_content`",
        ),
        row(
            "`outcome.py`: one short `TextPart` kept unmeasured (`text_budget`)",
            awaited(fast),
            awaited(unbounded),
            "every text measured by `bound_output`",
        ),
    ]


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
    every_name = "import tooldeck; [getattr(tooldeck, n) for n in tooldeck.__all__]"
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
            "`jsonschema` (compiled once): "
            f"{best(lambda: plain.validate(value), 2000) * 1e6:.1f} µs",
        ),
        (
            "`host/execution/lazy.py` `loop_running`: `Host.open` (no plugins) + snapshot",
            f"{fresh(host_open) * 1e3:.0f} ms",
            f"`import asyncio` alone: {fresh('import asyncio') * 1e3:.0f} ms",
        ),
        (
            "imports inside functions (`import tooldeck`, names resolved lazily)",
            f"{fresh('import tooldeck') * 1e3:.0f} ms",
            f"every public name imported: {fresh(every_name) * 1e3:.0f} ms",
        ),
        *call_rows(),
    ]


def main() -> None:
    print("| choice | measured | the alternative |")
    print("|---|---|---|")
    for choice, measured, alternative in rows():
        print(f"| {choice} | {measured} | {alternative} |")


if __name__ == "__main__":
    main()
