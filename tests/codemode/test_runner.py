"""Running programs: results, printed text, nested calls through the snapshot, failures."""

from __future__ import annotations

import asyncio

import pydantic
import pytest

from tooldeck import ImagePart, Tool, ToolFailure, ToolResult, tool
from tooldeck.errors import PermissionCorrected

from .conftest import text_tool

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
    b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff"
    b"\xa6\xf5\x1a\x8c\x00\x00\x00\x00IEND\xaeB`\x82"
)


async def until(condition, seconds=10.0):
    """Poll ``condition`` on the loop until it holds (a wait, not a timing assertion)."""
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class Weather(pydantic.BaseModel):
    city: str
    temp_c: float


@tool(namespace="acme.weather")
def current(city: str) -> Weather:
    """Current weather for a city."""
    return Weather(city=city, temp_c=21.5)


async def test_the_last_expression_is_the_result_and_prints_are_kept(deck):
    snap = deck.snapshot(tool(add))
    outcome = await deck.run(snap, "print('adding')\nx = await tools.add(a=1, b=2)\nx * 10")
    assert outcome.status == "completed", outcome.content
    assert outcome.output == {
        "result": 30,
        "printed": "adding\n",
        "tool_calls": [
            {"name": "add", "status": "completed", "ms": outcome.output["tool_calls"][0]["ms"]}
        ],
    }
    assert [p.text for p in outcome.content] == ["Printed output:\nadding\n", "Result:\n30"]


async def test_declared_outputs_arrive_as_data_and_text_tools_as_str(deck):
    snap = deck.snapshot(current, text_tool("echo", lambda i: f"echo {i['text']}"))
    code = (
        "w = await tools.acme.weather.current(city='Oslo')\n"
        "e = await tools.echo(text='hi')\n"
        "[w['temp_c'] + 1, w['city'].upper(), e]"
    )
    outcome = await deck.run(snap, code)
    assert outcome.output["result"] == [22.5, "OSLO", "echo hi"]


async def test_gather_runs_calls_concurrently(deck):
    running = []

    async def slow(inp, ctx):
        running.append(inp["text"])
        await asyncio.sleep(0.05)
        return ToolResult(f"{inp['text']} while {sorted(running)}")

    snap = deck.snapshot(
        Tool(
            name="slow",
            description="Slow.",
            execute=slow,
            input={
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
        )
    )
    code = "import asyncio\nawait asyncio.gather(tools.slow(text='a'), tools.slow(text='b'))"
    outcome = await deck.run(snap, code)
    assert outcome.output["result"] == ["a while ['a', 'b']", "b while ['a', 'b']"]


async def test_a_tool_failure_is_catchable_with_the_native_message(deck):
    def broken(inp, ctx):
        raise ToolFailure("the disk is full")

    snap = deck.snapshot(
        Tool(name="broken", description="Breaks.", execute=broken), tool(add), type_check=False
    )
    code = (
        "try:\n    await tools.broken()\nexcept Exception as e:\n"
        "    r = [type(e).__name__, str(e)]\n"
        "try:\n    await tools.add(a='x', b=1)\nexcept Exception as e:\n"
        "    r.append(str(e))\nr"
    )
    outcome = await deck.run(snap, code, call_id="c9")
    assert outcome.status == "completed", outcome.content
    kind, message, invalid = outcome.output["result"]
    assert (kind, message) == ("RuntimeError", "the disk is full")
    from tooldeck import ToolCall, run_tool_call

    direct = await run_tool_call(snap, ToolCall("c9.2", "add", {"a": "x", "b": 1}))
    assert invalid == direct.error.message
    assert [c["status"] for c in outcome.output["tool_calls"]] == ["failed", "failed"]


async def test_type_errors_stop_the_program_before_any_call(deck):
    calls = []
    snap = deck.snapshot(text_tool("echo", lambda i: calls.append(i) or "x"))
    outcome = await deck.run(snap, "await tools.echo(text='a')\nawait tools.echo(text=1)")
    assert outcome.status == "failed" and calls == []
    assert "does not type-check" in outcome.error.message
    assert "program.py:2:" in outcome.error.message and "Nothing ran" in outcome.error.message


def last() -> int:
    """The last order's number."""
    return 1


async def test_an_unknown_tool_is_a_type_error_that_suggests_a_search(deck):
    snap = deck.snapshot(tool(add), tool(namespace="shop")(last))
    outcome = await deck.run(snap, "await tools.sendMail(to='a')\nawait tools.shop.first_item()")
    assert outcome.status == "failed" and "does not type-check" in outcome.error.message
    hints = outcome.error.message.splitlines()[-3:-1]
    assert hints == [
        'There is no tool tools.sendMail: await search("send mail") to find the one you '
        "meant, then call it by the name search gives.",
        'There is no tool tools.shop.first_item: await search("shop first item") to find '
        "the one you meant, then call it by the name search gives.",
    ]


async def test_positional_arguments_are_type_errors_or_catchable_type_errors(deck):
    snap = deck.snapshot(tool(add))
    checked = await deck.run(snap, "await tools.add(1, 2)")
    assert checked.status == "failed" and "positional" in checked.error.message
    snap = deck.snapshot(tool(add), type_check=False)
    code = "try:\n    await tools.add(1, 2)\nexcept TypeError as e:\n    r = str(e)\nr"
    unchecked = await deck.run(snap, code)
    assert unchecked.output["result"] == (
        "tools.add() takes keyword arguments only; got 2 positional (write name=value)"
    )


async def test_warnings_are_reported_with_the_result(deck):
    snap = deck.snapshot(tool(add))
    outcome = await deck.run(snap, "tools.add(a=1, b=2)\n5")
    assert outcome.status == "completed" and outcome.output["result"] == 5
    assert outcome.output["tool_calls"] == []  # an un-awaited call never runs
    assert "not awaited" in outcome.content[0].text


@pytest.mark.parametrize(
    ("type_check", "where"), [(True, "program.py:2:6: error[invalid-syntax]"), (False, "line 2")]
)
async def test_syntax_errors_name_the_line(deck, type_check, where):
    snap = deck.snapshot(tool(add), type_check=type_check)
    outcome = await deck.run(snap, "x = 1\ny = (")
    assert outcome.status == "failed"
    assert outcome.error.message.startswith("The program has a syntax error:\n")
    assert where in outcome.error.message and "Nothing ran" in outcome.error.message


async def test_an_uncaught_error_reports_the_traceback_and_the_calls_that_ran(deck):
    snap = deck.snapshot(tool(add))
    outcome = await deck.run(snap, "await tools.add(a=1, b=1)\nx = {}\nx['missing']")
    assert outcome.status == "failed"
    message = outcome.error.message
    assert "KeyError" in message and "line 3" in message
    assert "Tool calls that already ran (their effects stand):\n- add: completed" in message
    assert outcome.metadata["tool_calls"][0]["name"] == "add"


async def test_a_plain_decline_aborts_the_program(deck):
    async def guarded(inp, ctx):
        await ctx.permission.assert_("guarded", ["x"])
        return ToolResult("ran")

    snap = deck.snapshot(
        Tool(name="guarded", description="Asks.", execute=guarded), asker=lambda request: "reject"
    )
    outcome = await deck.run(
        snap, "try:\n    await tools.guarded()\nexcept BaseException:\n    pass\n'after'"
    )
    assert outcome.status == "declined"


async def test_feedback_is_catchable_and_asks_carry_the_outer_ids(deck):
    requests = []

    async def guarded(inp, ctx):
        await ctx.permission.assert_("guarded", ["x"])
        return ToolResult("ran")

    def asker(request):
        requests.append(request)
        from tooldeck import Reject

        return Reject("use the other tool")

    snap = deck.snapshot(Tool(name="guarded", description="Asks.", execute=guarded), asker=asker)
    code = "try:\n    await tools.guarded()\nexcept RuntimeError as e:\n    r = str(e)\nr"
    outcome = await deck.run(snap, code)
    assert outcome.output["result"] == (
        "The user rejected this tool call and said: use the other tool\n"
        "Take this feedback into account before trying again."
    )
    assert requests[0].source == {"type": "tool", "message_id": "m1", "id": "c1.1"}


async def test_feedback_reaches_the_model_when_the_program_does_not_catch_it(deck):
    """The nested path: a ``Reject("use X instead")`` neither the executor nor the
    program catches ends the ``execute`` call as a failure carrying the feedback."""

    async def guarded(inp, ctx):
        await ctx.permission.assert_("guarded", ["x"])
        return ToolResult("ran")

    from tooldeck import Reject

    snap = deck.snapshot(
        Tool(name="guarded", description="Asks.", execute=guarded),
        asker=lambda request: Reject("use X instead"),
    )
    outcome = await deck.run(snap, "await tools.guarded()", progress=True)
    assert outcome.status == "failed"
    assert outcome.error.type == "tool.execution"
    assert "RuntimeError" in outcome.error.message
    assert "The user rejected this tool call and said: use X instead" in outcome.error.message
    assert [e["status"] for e in deck.progress if e.get("id") == "c1.1"] == ["running", "failed"]


async def test_a_leaf_converting_feedback_gives_its_failure_text(deck):
    async def polite(inp, ctx):
        try:
            await ctx.permission.assert_("polite", ["x"])
        except PermissionCorrected as exc:
            raise ToolFailure(f"not allowed: {exc.feedback}") from exc
        return ToolResult("ran")

    from tooldeck import Reject

    snap = deck.snapshot(
        Tool(name="polite", description="Asks.", execute=polite), asker=lambda r: Reject("no")
    )
    code = "try:\n    await tools.polite()\nexcept Exception as e:\n    r = str(e)\nr"
    assert (await deck.run(snap, code)).output["result"] == "not allowed: no"


async def test_a_deny_rule_is_a_catchable_permission_error(deck):
    async def guarded(inp, ctx):
        await ctx.permission.assert_("secret", ["vault"])
        return ToolResult("ran")

    snap = deck.snapshot(
        Tool(name="guarded", description="Asks.", execute=guarded),
        permission=[{"action": "secret", "effect": "deny"}],
    )
    code = "try:\n    await tools.guarded()\nexcept RuntimeError as e:\n    r = str(e)\nr"
    outcome = await deck.run(snap, code)
    assert "denied by rule" in outcome.output["result"]


async def test_a_defect_in_a_nested_tool_is_a_defect_of_execute(deck):
    def buggy(inp, ctx):
        raise ZeroDivisionError("oops")

    snap = deck.snapshot(Tool(name="buggy", description="Bug.", execute=buggy))
    outcome = await deck.run(snap, "try:\n    await tools.buggy()\nexcept Exception:\n    pass\n1")
    assert outcome.status == "failed" and outcome.error.type == "unknown"
    assert "ZeroDivisionError" in outcome.error.message


async def test_progress_reports_each_nested_call_in_order(deck):
    def chatty(inp, ctx):
        ctx.progress({"step": 1})
        return ToolResult("done")

    snap = deck.snapshot(Tool(name="chatty", description="Talks.", execute=chatty))
    await deck.run(snap, "await tools.chatty()", progress=True)
    assert deck.progress == [
        {"type": "tool_call", "status": "running", "id": "c1.1", "name": "chatty", "input": {}},
        {"type": "tool_progress", "id": "c1.1", "name": "chatty", "metadata": {"step": 1}},
        {
            "type": "tool_call",
            "status": "completed",
            "id": "c1.1",
            "name": "chatty",
            "ms": deck.progress[2]["ms"],
        },
    ]


async def test_images_from_nested_results_are_attached_in_call_order(deck):
    def picture(inp, ctx):
        return ToolResult([ImagePart(PNG, "image/png")])

    snap = deck.snapshot(Tool(name="picture", description="A picture.", execute=picture))
    outcome = await deck.run(snap, "await tools.picture()\nawait tools.picture()\n'two'")
    assert [p.type for p in outcome.content] == ["text", "image", "image"]


async def test_unknown_tools_and_names_raise_inside_the_program(deck):
    snap = deck.snapshot(tool(add), type_check=False)
    code = (
        "r = []\ntry:\n    await tools.nope(a=1)\nexcept AttributeError as e:\n"
        "    r.append(str(e))\n"
        "try:\n    await nothing()\nexcept NameError as e:\n    r.append(str(e))\nr"
    )
    outcome = await deck.run(snap, code)
    assert outcome.output["result"] == [
        "tools has no tool 'nope'; use the names in the stubs, or await search(\"nope\") "
        "to find a tool",
        "name 'nothing' is not defined",
    ]


async def test_the_sandbox_reaches_no_files_or_environment(deck):
    snap = deck.snapshot(tool(add), type_check=False)
    catch = "except Exception as e:\n    r.append(type(e).__name__)\n"
    code = (
        "r = []\nimport os\n"
        f"try:\n    open('/etc/passwd').read()\n{catch}"
        f"try:\n    os.environ['HOME']\n{catch}"
        f"try:\n    import subprocess\n{catch}r"
    )
    outcome = await deck.run(snap, code)
    assert outcome.output["result"] == ["PermissionError", "RuntimeError", "ModuleNotFoundError"]


async def test_parameters_that_are_not_identifiers_are_renamed_back(deck):
    snap = deck.snapshot(
        text_tool(
            "find",
            lambda i: f"{i['from']}-{i['my-key']}",
            properties={"from": {"type": "string"}, "my-key": {"type": "string"}},
        )
    )
    outcome = await deck.run(snap, "await tools.find(from_='a', my_key='b')")
    assert outcome.output["result"] == "a-b"


async def test_code_mode_tools_stay_callable_by_effective_name(deck):
    from tooldeck import ToolCall, run_tool_call

    snap = deck.snapshot(current)
    assert "acme_weather_current" not in snap.names
    outcome = await run_tool_call(snap, ToolCall("x", "acme_weather_current", {"city": "Rome"}))
    assert outcome.output == {"city": "Rome", "temp_c": 21.5}


async def test_a_code_mode_tool_named_execute_is_reached_from_programs(deck):
    snap = deck.snapshot(text_tool("execute", lambda i: "inner " + i["text"]))
    assert snap.names == ("execute",)
    outcome = await deck.run(snap, "await tools.execute(text='x')")
    assert outcome.output["result"] == "inner x"


def test_sync_hosts_run_programs_with_execute_sync(deck):
    from tooldeck import ToolCall

    snap = deck.snapshot(tool(add))
    done = snap.execute_sync(ToolCall("c", "execute", {"code": "await tools.add(a=2, b=2)"}))
    assert done.output["result"] == 4


async def test_programs_use_the_executors_their_snapshot_captured(deck):
    from tooldeck import Location, ToolService

    service = ToolService(
        Location(deck.tmp_path, data_dir=deck.tmp_path / "d"), codemode=deck.provider
    )
    registration = service.transform(lambda e: e.add(text_tool("v", lambda i: "old")), source="a")
    before = service.snapshot()
    registration.dispose()
    service.transform(lambda e: e.add(text_tool("v", lambda i: "new")), source="b")
    assert (await deck.run(before, "await tools.v(text='')")).output["result"] == "old"
    assert (await deck.run(service.snapshot(), "await tools.v(text='')")).output["result"] == "new"


async def test_a_cancelled_wait_for_a_worker_gives_the_worker_back(deck):
    async def slow(inp, ctx):
        await asyncio.sleep(0.3)
        return ToolResult("slow")

    snap = deck.snapshot(Tool(name="slow", description="Slow.", execute=slow), tool(add))
    pool = deck.provider._sandbox(snap.location)
    busy = [
        asyncio.ensure_future(deck.run(snap, "await tools.slow()", call_id=f"b{n}"))
        for n in range(pool._max_processes)
    ]
    await until(lambda: pool.busy)  # every worker is held by a program awaiting its tool
    waiting = asyncio.ensure_future(deck.run(snap, "await tools.add(a=1, b=1)", call_id="w"))
    await asyncio.sleep(0.05)
    waiting.cancel()
    assert [(await b).output["result"] for b in busy] == ["slow"] * len(busy)
    await until(lambda: pool.slots.in_use == 0)
    outcome = await deck.run(snap, "await tools.add(a=2, b=2)", call_id="after")
    assert outcome.output["result"] == 4
