"""Per-call overhead of a tooldeck tool called through each integration, against the
framework's own function tool doing the same work (W3's shape: ``add(a, b)`` from the
JSON string ``{"a": 1, "b": 2}``, an ``async def`` on both sides).

    .venv/bin/python bench/integrations_overhead.py [ROUNDS]

Two levels per framework, each the best of ROUNDS (default 15) rounds, run in turn,
GC off in the timed sections, CPU time of the thread (steadier than wall time on a
shared, loaded machine):

* **the call path** the framework takes for one call, with nothing else around it:
  pydantic-ai ``ToolManager.handle_call`` (argument validation, hooks, retries
  bookkeeping, then the toolset's ``call_tool``); the Agents SDK's approval evaluation
  (``needs_approval``) and ``on_invoke_tool``, as its runner calls them;
* **one agent run** whose (scripted, offline) model asks for ``CALLS_PER_RUN`` calls in
  one turn and then answers: the run's time, less that of the same run with no calls,
  divided by the calls.

Prints JSON: microseconds per call for each side and the ratio tooldeck / framework.
Target (issue #27): ratio <= 1.5. With ``--write`` it also replaces the section
``SECTION`` of ``bench/RESULTS.md`` (``report_tooldeck.py`` does not write it: run this
again after regenerating that file).
"""

from __future__ import annotations

import asyncio
import gc
import json
import platform
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

from tooldeck import Host, tool

ARGS = '{"a": 1, "b": 2}'
CALLS = 2_000
CALLS_PER_RUN = 200
RUNS = 5
LOOP = asyncio.new_event_loop()
BUILTINS = [
    f"builtin:{name}"
    for name in ("edit", "glob", "grep", "patch", "question", "read", "shell", "webfetch", "write")
]


async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def open_host() -> Host:
    root = Path(tempfile.mkdtemp())
    host = Host.open(root, plugins=[], disable=BUILTINS, data_dir=root / ".data")
    host.service.transform(lambda e: e.add(tool(add, codemode=False)), source="bench")
    return host


def per_call(body: Callable[[], Awaitable[Any]], calls: int) -> Callable[[], float]:
    async def timed() -> float:
        start = time.thread_time()
        for _ in range(calls):
            await body()
        return (time.thread_time() - start) / calls

    return lambda: LOOP.run_until_complete(timed())


# -- pydantic-ai ------------------------------------------------------------------------
def pydantic_ai_call_path(toolset: Any) -> Callable[[], float]:
    from pydantic_ai.messages import ToolCallPart
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.tool_manager import ToolManager
    from pydantic_ai.tools import RunContext
    from pydantic_ai.usage import RunUsage

    ctx = RunContext(deps=None, model=TestModel(), usage=RunUsage())
    manager = LOOP.run_until_complete(ToolManager(toolset).for_run_step(ctx))
    part = ToolCallPart(tool_name="add", args=ARGS, tool_call_id="c1")
    assert int(str(LOOP.run_until_complete(manager.handle_call(part)))) == 3
    return per_call(lambda: manager.handle_call(part), CALLS)


def pydantic_ai_run(toolset: Any, calls: int) -> Callable[[], float]:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    turn = ModelResponse(
        parts=[ToolCallPart("add", ARGS, tool_call_id=f"c{i}") for i in range(calls)]
    )

    def model(messages: Any, info: Any) -> ModelResponse:
        return turn if len(messages) == 1 and calls else ModelResponse(parts=[TextPart("3")])

    agent = Agent(FunctionModel(model), toolsets=[toolset])
    return per_call(lambda: agent.run("add"), RUNS)


def pydantic_ai_rows(host: Host) -> dict[str, Callable[[], float]]:
    from pydantic_ai.toolsets import FunctionToolset

    from tooldeck.integrations.pydantic_ai import TooldeckToolset

    own = FunctionToolset()
    own.add_function(add, name="add")
    ours = TooldeckToolset(host)
    return {
        "pydantic-ai call path: FunctionToolset": pydantic_ai_call_path(own),
        "pydantic-ai call path: TooldeckToolset": pydantic_ai_call_path(ours),
        "pydantic-ai run: FunctionToolset": pydantic_ai_run(own, CALLS_PER_RUN),
        "pydantic-ai run: TooldeckToolset": pydantic_ai_run(ours, CALLS_PER_RUN),
        "pydantic-ai run: FunctionToolset, no calls": pydantic_ai_run(own, 0),
        "pydantic-ai run: TooldeckToolset, no calls": pydantic_ai_run(ours, 0),
    }


# -- OpenAI Agents SDK ------------------------------------------------------------------
def agents_call_path(function_tool: Any) -> Callable[[], float]:
    from agents.tool_context import ToolContext
    from agents.util._approvals import evaluate_function_tool_approval

    ctx = ToolContext(context=None, tool_name="add", tool_call_id="c1", tool_arguments=ARGS)

    async def call() -> Any:
        approval = await evaluate_function_tool_approval(function_tool, ctx, ARGS, "c1")
        assert approval.outcome == "invoke"
        return await function_tool.on_invoke_tool(ctx, ARGS)

    assert int(str(LOOP.run_until_complete(call()))) == 3
    return per_call(call, CALLS)


def agents_run(function_tool: Any, calls: int) -> Callable[[], float]:
    from agents import Agent, RunConfig, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    turn = [function_call("add", ARGS, call_id=f"c{i}") for i in range(calls)]
    config = RunConfig(tracing_disabled=True)

    async def run() -> Any:
        steps = [turn, [assistant_message("3")]] if calls else [[assistant_message("3")]]
        agent = Agent(name="bench", model=ScriptedModel(steps), tools=[function_tool])
        return await Runner.run(agent, "add", run_config=config)

    return per_call(run, RUNS)


def agents_rows(host: Host) -> dict[str, Callable[[], float]]:
    from agents import function_tool

    from tooldeck.integrations.openai_agents import function_tools

    own = function_tool(add)
    (ours,) = function_tools(host)
    return {
        "agents call path: function_tool": agents_call_path(own),
        "agents call path: function_tools": agents_call_path(ours),
        "agents run: function_tool": agents_run(own, CALLS_PER_RUN),
        "agents run: function_tools": agents_run(ours, CALLS_PER_RUN),
        "agents run: function_tool, no calls": agents_run(own, 0),
        "agents run: function_tools, no calls": agents_run(ours, 0),
    }


def best_of(timers: dict[str, Callable[[], float]], rounds: int) -> dict[str, float]:
    gc.disable()
    best = dict.fromkeys(timers, float("inf"))
    for _ in range(rounds):
        for name, timer in timers.items():
            best[name] = min(best[name], timer())
    gc.enable()
    return best


def report(best: dict[str, float]) -> dict[str, Any]:
    """Microseconds per call and the ratios, the runs' fixed cost taken out."""
    out: dict[str, Any] = {}
    for framework, own, ours in (
        ("pydantic-ai", "FunctionToolset", "TooldeckToolset"),
        ("agents", "function_tool", "function_tools"),
    ):
        path = [best[f"{framework} call path: {side}"] * 1e6 for side in (own, ours)]
        run = [
            (best[f"{framework} run: {side}"] - best[f"{framework} run: {side}, no calls"])
            / CALLS_PER_RUN
            * 1e6
            for side in (own, ours)
        ]
        out[framework] = {
            "call path us": {own: round(path[0], 2), ours: round(path[1], 2)},
            "call path ratio": round(path[1] / path[0], 2),
            "in a run us per call": {own: round(run[0], 2), ours: round(run[1], 2)},
            "in a run ratio": round(run[1] / run[0], 2),
        }
    return out


SECTION = "## Integrations — per-call overhead through each framework"
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def markdown(measured: dict[str, Any], rounds: int) -> str:
    """The RESULTS.md section: one row per framework and level, target 1.5x."""
    versions = ", ".join(
        f"{d} {version(d)}" for d in ("pydantic-ai-slim", "openai-agents", "tooldeck")
    )
    lines = [
        SECTION,
        "",
        f"_{datetime.now(UTC).isoformat(timespec='seconds')} · Python "
        f"{platform.python_version()} · best of {rounds} rounds ({CALLS:,} calls per round "
        f"on the call path; {RUNS} runs of {CALLS_PER_RUN} calls in one turn) · thread CPU "
        f"time · GC off · {versions} · `bench/integrations_overhead.py`_",
        "",
        'W3\'s `add(a, b)` from `\'{"a": 1, "b": 2}\'`, an `async def` on both sides: '
        "a tooldeck tool through the integration against the framework's own function tool. "
        "Target (issue #27): ≤ 1.5x.",
        "",
        "| framework | level | framework's own | through tooldeck | ratio | |",
        "|---|---|---|---|---|---|",
    ]
    for framework, row in measured.items():
        for level, key in (("call path", "call path"), ("in an agent run", "in a run")):
            own, ours = row[f"{key} us" if key == "call path" else f"{key} us per call"].values()
            ratio = row[f"{key} ratio"]
            lines.append(
                f"| {framework} | {level} | {own:.2f} µs | {ours:.2f} µs | **{ratio:.2f}x** "
                f"| {'✓' if ratio <= 1.5 else '✗'} |"
            )
    return "\n".join(lines) + "\n"


def write(section: str) -> None:
    text = RESULTS.read_text(encoding="utf-8")
    start = text.find(SECTION)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(SECTION))
        text = text[:start] + section + (text[end + 1 :] if end >= 0 else "")
    RESULTS.write_text(text, encoding="utf-8")


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--write"]
    rounds = int(args[0]) if args else 15
    with open_host() as host:
        timers = {**pydantic_ai_rows(host), **agents_rows(host)}
        measured = report(best_of(timers, rounds))
    print(json.dumps(measured, indent=2))
    if "--write" in sys.argv:
        write(markdown(measured, rounds))


if __name__ == "__main__":
    main()
