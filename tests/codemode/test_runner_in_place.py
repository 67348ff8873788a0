"""Calls that finish without awaiting run on the program's sandbox thread
(``_Program._settle_here``): the same outcomes as on the loop, where each runs, and what
still holds there."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from typing import Any

import pydantic
import pytest

from tooldeck import Host, Tool, ToolCall, ToolFailure, ToolResult, hookimpl, run_tool_call, tool
from tooldeck.errors import PermissionDeclined

from .test_limits import still_serving


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def shout(text: str) -> str:
    """The text in capitals."""
    return text.upper()


class Weather(pydantic.BaseModel):
    city: str
    temp_c: float


@tool(namespace="acme.weather")
def current(city: str) -> Weather:
    """Current weather for a city."""
    return Weather(city=city, temp_c=21.5)


def broken() -> str:
    """Always fails."""
    raise ToolFailure("the disk is full")


def boom() -> str:
    """A defect."""
    raise ZeroDivisionError("oops")


def refuse() -> str:
    """Declined by the user."""
    raise PermissionDeclined("refuse", ["x"])


async def later(x: int) -> int:
    """An async tool: always on the loop."""
    await asyncio.sleep(0)
    return x * 10


TOOLS = [tool(f) for f in (add, shout, broken, boom, refuse, later)] + [current]

PROGRAMS = {
    "loop of calls": "total = 0\nfor i in range(5):\n    total += await tools.add(a=i, b=1)\ntotal",
    "declared output": "w = await tools.acme.weather.current(city='Oslo')\n[w, w['city']]",
    "gather": (
        "import asyncio\n"
        "await asyncio.gather(tools.add(a=1, b=2), tools.shout(text='x'), tools.add(a=3, b=4))"
    ),
    "failures caught": (
        "r = []\n"
        "for call in [lambda: tools.broken(), lambda: tools.add(a='x', b=1),\n"
        "             lambda: tools.shout(text='x' * 600_000)]:\n"
        "    try:\n        await call()\n    except RuntimeError as e:\n"
        "        r.append(str(e)[:80])\nr"
    ),
    "a defect": "await tools.add(a=1, b=1)\nawait tools.boom()",
    "a decline": "await tools.add(a=1, b=1)\nawait tools.refuse()",
    "a decline in a gather": (
        "import asyncio\n"
        "await asyncio.gather(tools.add(a=1, b=2), tools.refuse(), tools.shout(text='y'))"
    ),
    "search": "hits = await search('add two numbers')\n[h['name'] for h in hits][:3]",
    "with an async tool": "a = await tools.add(a=1, b=2)\nb = await tools.later(x=a)\n[a, b]",
    "never awaited": "tools.add(a=1, b=2)\n1",
}


def comparable(outcome: Any) -> Any:
    """An outcome without what differs between any two runs (each call's milliseconds)."""

    def calls(value: Any) -> Any:
        if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
            value = {**value, "tool_calls": [{**c, "ms": 0} for c in value["tool_calls"]]}
        return value

    texts = [getattr(part, "text", part) for part in outcome.content]
    metadata, output = calls(dict(outcome.metadata)), calls(outcome.output)
    return outcome.status, texts, metadata, output, outcome.error


@pytest.mark.parametrize("name", list(PROGRAMS))
async def test_a_program_ends_as_it_does_with_its_calls_on_the_loop(deck, name):
    snap = deck.snapshot(*TOOLS, type_check=False)
    on_the_loop = await deck.run(snap, PROGRAMS[name], progress=True)
    in_place = await deck.run(snap, PROGRAMS[name])
    assert comparable(in_place) == comparable(on_the_loop)


async def where_add_runs(deck, snap, *, progress: bool = False) -> int:
    threads: list[int] = []

    def where(a: int) -> int:
        """Where it ran."""
        threads.append(threading.get_ident())
        return a

    snap = deck.snapshot(tool(where), *snap)
    outcome = await deck.run(snap, "await tools.where(a=1)", progress=progress)
    assert outcome.status == "completed", outcome.content
    return threads[0]


async def test_a_plain_function_runs_on_the_program_thread_unless_the_loop_is_needed(deck):
    loop_thread = threading.get_ident()
    assert await where_add_runs(deck, ()) != loop_thread
    assert await where_add_runs(deck, (), progress=True) == loop_thread
    limited = Tool(name="limited", description="Has a limit.", execute=lambda i, c: None)
    assert await where_add_runs(deck, (limited.replace(timeout_s=5),)) == loop_thread


async def test_an_async_tool_and_an_executor_run_on_the_loop(deck):
    threads: list[int] = []

    async def awaited(x: int) -> int:
        """Async."""
        threads.append(threading.get_ident())
        return x

    def executor(inp: Any, ctx: Any) -> ToolResult:
        threads.append(threading.get_ident())
        return ToolResult("ok")

    snap = deck.snapshot(tool(awaited), Tool(name="ex", description="Ex.", execute=executor))
    outcome = await deck.run(snap, "await tools.awaited(x=1)\nawait tools.ex()")
    assert outcome.status == "completed", outcome.content
    assert threads == [threading.get_ident()] * 2


@pytest.mark.usefixtures("clean_env", "no_builtins")
async def test_a_plugins_tool_call_hook_keeps_the_programs_calls_on_the_loop(tmp_path):
    # A snapshot with an active layer (here the hooks layer) runs every nested call on
    # the loop, through that layer: the in-place path is only for ``snapshot.layers == ()``.
    threads: list[int] = []
    seen: list[tuple[str, str]] = []

    def where(a: int) -> int:
        """Where it ran."""
        threads.append(threading.get_ident())
        return a

    class Hooked:
        @hookimpl
        def tool_transform(self, editor: Any) -> None:
            editor.add(tool(where))

        @hookimpl(wrapper=True)
        def tool_call(self, call: Any, context: Any) -> Any:
            seen.append((context.name, context.via))
            return (yield)

    with Host.open(tmp_path, plugins=[Hooked()], trust=True) as host:
        snap = host.snapshot()
        assert snap.layers
        code = "await tools.where(a=1)"
        outcome = await run_tool_call(snap, ToolCall("c1", "execute", {"code": code}))
    assert outcome.status == "completed", outcome.content
    assert threads == [threading.get_ident()]
    assert seen == [("execute", "native"), ("where", "nested")]


REQUEST = contextvars.ContextVar("REQUEST", default="none")


async def test_the_sandbox_thread_sees_the_callers_context(deck):
    def request() -> str:
        """The caller's request id."""
        return REQUEST.get()

    REQUEST.set("r-42")
    snap = deck.snapshot(tool(request))
    assert (await deck.run(snap, "await tools.request()")).output["result"] == "r-42"


async def test_a_slow_plain_function_keeps_the_loop_free_and_the_time_limit(deck):
    def slow() -> str:
        """Blocks its thread for a second."""
        time.sleep(1)
        return "late"

    snap = deck.snapshot(tool(slow), tool(add), timeout_s=0.3)
    outcome = await deck.run(snap, "await tools.add(a=1, b=1)\nawait tools.slow()\n1")
    assert outcome.status == "failed"
    assert "[codemode] timeout_s = 0.3" in outcome.error.message
    await still_serving(deck, snap)


@pytest.mark.parametrize("progress", [False, True])
async def test_gathered_calls_run_in_the_order_the_program_made_them(deck, progress):
    snap = deck.snapshot(*TOOLS, type_check=False)
    for _ in range(3):
        outcome = await deck.run(snap, PROGRAMS["gather"], progress=progress)
        assert [c["name"] for c in outcome.output["tool_calls"]] == ["add", "shout", "add"]
