from __future__ import annotations

import asyncio
import logging

import pytest
from pydantic import BaseModel

from tooldeck import (
    Location,
    PermissionBlocked,
    PermissionDeclined,
    QuestionDismissed,
    TextPart,
    Tool,
    ToolCall,
    ToolFailure,
    ToolResult,
    ToolService,
    run_tool_call,
)
from tooldeck.errors import PermissionCorrected
from tooldeck.host.boundary.outcome import (
    CORRECTED_TEXT,
    DECLINED_TEXT,
    DISMISSED_TEXT,
    INTERRUPTED_TEXT,
    ToolCallOutcome,
    ToolError,
)
from tooldeck.host.call.values import CallScope
from tooldeck.host.config.config import Config, OutputConfig, PermissionRule


class Args(BaseModel):
    value: str = ""


def make_snapshot(tmp_path, *executors, config=None, asker=None, answerer=None, **outputs):
    """A snapshot of native tools ``execute`` → fn(input, ctx), one per keyword."""
    location = Location(
        tmp_path, data_dir=tmp_path / "data", config=config, asker=asker, answerer=answerer
    )
    service = ToolService(location)
    tools = [
        Tool(
            name=name,
            description=f"The {name} tool.",
            input=Args,
            execute=fn,
            codemode=False,
            output=outputs.get(f"{name}_output"),
        )
        for name, fn in executors
    ]
    service.transform(lambda editor: [editor.add(t) for t in tools], source="test")
    return service.snapshot()


def run(snapshot, name, args="{}", **options):
    return asyncio.run(run_tool_call(snapshot, ToolCall("call_1", name, args), **options))


# -- completed --------------------------------------------------------------------------------
def test_sync_executor_completes_with_content_metadata_and_output(tmp_path):
    def echo(args, ctx):
        return ToolResult(f"got {args.value}", {"seen": args.value})

    result = run(make_snapshot(tmp_path, ("echo", echo)), "echo", '{"value": "x"}')
    assert result == ToolCallOutcome("completed", (TextPart("got x"),), {"seen": "x"}, None)
    assert result.error is None


def test_async_executor_completes(tmp_path):
    async def echo(args, ctx):
        await asyncio.sleep(0)
        return ToolResult([TextPart("a"), TextPart("b")])

    result = run(make_snapshot(tmp_path, ("echo", echo)), "echo")
    assert result.status == "completed"
    assert result.content == (TextPart("a"), TextPart("b"))


def test_an_empty_result_still_answers_the_model_with_one_text_part(tmp_path):
    snapshot = make_snapshot(tmp_path, ("quiet", lambda args, ctx: ToolResult("")))
    result = run(snapshot, "quiet")
    assert result.status == "completed" and result.content == (TextPart(""),)


def test_declared_output_is_returned(tmp_path):
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}

    def count(args, ctx):
        return ToolResult(output={"n": 3})

    result = run(make_snapshot(tmp_path, ("count", count), count_output=schema), "count")
    assert result.status == "completed"
    assert result.output == {"n": 3}
    assert result.content == (TextPart('{\n  "n": 3\n}'),)


def test_the_context_carries_the_call_and_session(tmp_path):
    seen = {}

    def spy(args, ctx):
        seen.update(
            session=ctx.session_id, message=ctx.message_id, call=ctx.call_id, agent=ctx.agent
        )
        ctx.progress({"step": 1})
        return ToolResult("ok")

    reports = []
    result = run(
        make_snapshot(tmp_path, ("spy", spy)),
        "spy",
        session_id="s1",
        message_id="m1",
        agent="build",
        progress=reports.append,
    )
    assert result.status == "completed"
    assert seen == {"session": "s1", "message": "m1", "call": "call_1", "agent": "build"}
    assert reports == [{"step": 1}]


# -- failed -----------------------------------------------------------------------------------
def test_tool_failure_is_failed_tool_execution_with_its_message_and_metadata(tmp_path):
    def missing(args, ctx):
        raise ToolFailure("File not found: a.txt", metadata={"path": "a.txt"})

    result = run(make_snapshot(tmp_path, ("read", missing)), "read")
    assert result.status == "failed"
    assert result.error == ToolError("tool.execution", "File not found: a.txt")
    assert result.content == (TextPart("File not found: a.txt"),)
    assert result.metadata == {"path": "a.txt"}
    assert result.output is None


def test_async_tool_failure_is_failed_tool_execution(tmp_path):
    async def missing(args, ctx):
        raise ToolFailure("nope")

    result = run(make_snapshot(tmp_path, ("read", missing)), "read")
    assert (result.status, result.error) == ("failed", ToolError("tool.execution", "nope"))


def test_unknown_tool_and_invalid_input_are_tool_execution_failures(tmp_path):
    snapshot = make_snapshot(tmp_path, ("echo", lambda args, ctx: ToolResult("x")))
    unknown = run(snapshot, "nope")
    invalid = run(snapshot, "echo", '{"value": 5}')
    assert unknown.error.type == invalid.error.type == "tool.execution"
    assert "'nope' is not available" in unknown.error.message
    assert invalid.error.message.startswith("Invalid input for tool 'echo':")


def test_permission_corrected_turned_into_a_failure_by_the_leaf(tmp_path):
    async def edit(args, ctx):
        try:
            await ctx.permission.assert_("edit", ["a.txt"])
        except PermissionCorrected as exc:
            raise ToolFailure(f"The user said: {exc.feedback}") from exc
        return ToolResult("edited")

    from tooldeck import Reject

    snapshot = make_snapshot(tmp_path, ("edit", edit), asker=lambda request: Reject("use b"))
    result = run(snapshot, "edit")
    assert result.error == ToolError("tool.execution", "The user said: use b")


def test_feedback_the_executor_lets_through_reaches_the_model_as_a_failure(tmp_path, caplog):
    """The native path: a ``Reject("use X instead")`` the executor does not catch."""

    async def edit(args, ctx):
        await ctx.permission.assert_("edit", ["a.txt"])
        return ToolResult("edited")

    from tooldeck import Reject

    snapshot = make_snapshot(
        tmp_path, ("edit", edit), asker=lambda request: Reject("use X instead")
    )
    with caplog.at_level(logging.ERROR, logger="tooldeck"):
        result = run(snapshot, "edit")
    assert result.status == "failed"
    assert result.error == ToolError(
        "permission.rejected", CORRECTED_TEXT.format(feedback="use X instead")
    )
    assert result.content == (TextPart(result.error.message),)
    assert "The user rejected this tool call and said: use X instead" in result.error.message
    assert caplog.records == []  # a signal, never a defect


def test_one_scope_serves_many_calls_and_reaches_the_context(tmp_path):
    seen = []

    def probe(args, ctx):
        seen.append((ctx.session_id, ctx.message_id, ctx.call_id, ctx.agent))
        return ToolResult("ok")

    snapshot = make_snapshot(tmp_path, ("probe", probe))
    scope = snapshot.scope("s1", "m1", "planner")
    assert scope == CallScope("s1", "m1", "planner")
    for call_id in ("a", "b"):
        call = ToolCall(call_id, "probe", "{}")
        assert asyncio.run(run_tool_call(snapshot, call, scope=scope)).status == "completed"
    assert seen == [("s1", "m1", "a", "planner"), ("s1", "m1", "b", "planner")]
    assert snapshot.scope() is snapshot.scope()  # the snapshot's own, built once
    with pytest.raises(ValueError, match="not both"):
        run(snapshot, "probe", scope=scope, session_id="s1")


def test_a_deny_rule_is_failed_permission_rejected(tmp_path):
    async def bash(args, ctx):
        await ctx.permission.assert_("bash", ["rm -rf /"])
        return ToolResult("ran")

    rules = (PermissionRule(action="bash", resource="rm *", effect="deny"),)
    result = run(make_snapshot(tmp_path, ("bash", bash), config=Config(permission=rules)), "bash")
    assert result.status == "failed"
    assert result.error.type == "permission.rejected"
    assert "rm -rf /" in result.error.message
    assert result.content == (TextPart(result.error.message),)


def test_permission_blocked_raised_by_a_leaf_is_permission_rejected(tmp_path):
    def blocked(args, ctx):
        raise PermissionBlocked("edit", ["/etc/passwd"])

    result = run(make_snapshot(tmp_path, ("edit", blocked)), "edit")
    assert result.error.type == "permission.rejected"


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_defect_is_failed_unknown_and_logged_with_its_traceback(tmp_path, caplog, kind):
    def broken(args, ctx):
        raise ZeroDivisionError("division by zero")

    async def broken_async(args, ctx):
        return broken(args, ctx)

    snapshot = make_snapshot(tmp_path, ("calc", broken if kind == "sync" else broken_async))
    with caplog.at_level(logging.ERROR, logger="tooldeck"):
        result = run(snapshot, "calc")
    assert result.status == "failed"
    assert result.error.type == "unknown"
    assert "ZeroDivisionError: division by zero" in result.error.message
    [record] = [r for r in caplog.records if r.name == "tooldeck"]
    assert record.exc_info is not None and record.exc_info[0] is ZeroDivisionError
    assert "calc" in record.getMessage()
    assert "in broken" in caplog.text  # the traceback itself was logged


class Abort(BaseException):
    """What a library might raise to unwind: a BaseException that is no signal of ours."""


@pytest.mark.parametrize("raised", [Abort("stop here"), GeneratorExit()], ids=["custom", "genexit"])
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_base_exception_that_is_no_signal_is_a_defect_too(tmp_path, caplog, raised, kind):
    def broken(args, ctx):
        raise raised

    async def broken_async(args, ctx):
        return broken(args, ctx)

    def fine(args, ctx):
        return ToolResult("still here")

    snapshot = make_snapshot(
        tmp_path, ("calc", broken if kind == "sync" else broken_async), ("echo", fine)
    )
    with caplog.at_level(logging.ERROR, logger="tooldeck"):
        result = run(snapshot, "calc")
    assert result.status == "failed" and result.error.type == "unknown"
    name = type(raised).__name__
    assert result.error.message.startswith(f"Tool 'calc' failed unexpectedly ({name}")
    assert caplog.records[0].exc_info[0] is type(raised)
    assert run(snapshot, "echo").status == "completed"  # and the loop goes on


def test_a_contract_defect_is_failed_unknown(tmp_path, caplog):
    def undeclared_output(args, ctx):
        return ToolResult("x", output={"n": 1})

    result = run(make_snapshot(tmp_path, ("calc", undeclared_output)), "calc")
    assert result.error.type == "unknown"
    assert "ToolDefectError" in result.error.message
    assert "ToolDefectError" in caplog.text


def test_a_wrong_return_type_is_a_defect_not_a_crash(tmp_path, caplog):
    result = run(make_snapshot(tmp_path, ("calc", lambda args, ctx: "not a ToolResult")), "calc")
    assert result.error.type == "unknown"


def test_malformed_content_is_a_defect_not_a_crash(tmp_path, caplog):
    def bad_part(args, ctx):
        return ToolResult([TextPart(12345)])  # type: ignore[arg-type]

    result = run(make_snapshot(tmp_path, ("calc", bad_part)), "calc")
    assert (result.status, result.error.type) == ("failed", "unknown")
    assert "ToolDefectError: tool 'calc': TextPart.text must be a str" in result.error.message
    assert "ToolDefectError" in caplog.text


def test_a_huge_failure_message_is_bounded_too(tmp_path):
    def noisy(args, ctx):
        raise ToolFailure("\n".join(f"error {i}" for i in range(50)))

    config = Config(output=OutputConfig(max_lines=10))
    result = run(make_snapshot(tmp_path, ("noisy", noisy), config=config), "noisy")
    assert result.status == "failed"
    [part] = result.content
    assert part.text.startswith("error 0\n") and "error 10\n" not in part.text
    assert "[output truncated: 40 more lines" in part.text
    assert result.metadata["truncated"] is True
    assert result.error.message.count("\n") == 49  # the error keeps the whole message


def test_a_snapshot_bounds_with_the_limits_and_data_dir_of_when_it_was_taken(tmp_path):
    def lines(args, ctx):
        return ToolResult("\n".join(f"line {i}" for i in range(50)))

    config = Config(output=OutputConfig(max_lines=10))
    snapshot = make_snapshot(tmp_path, ("lines", lines), config=config)
    snapshot.location.config = Config(output=OutputConfig(max_lines=3))
    snapshot.location.data_dir = tmp_path / "elsewhere"
    result = run(snapshot, "lines")
    [part] = result.content
    assert "line 9\n" in part.text and "line 10\n" not in part.text
    assert "[output truncated: 40 more lines" in part.text
    assert result.metadata["output_path"].startswith(str(tmp_path / "data"))


# -- declined ---------------------------------------------------------------------------------
def test_a_rejected_ask_is_declined_even_through_an_except_exception_blanket(tmp_path):
    reached = []

    async def careless(args, ctx):
        try:
            await ctx.permission.assert_("bash", ["make"])
        except Exception as exc:  # a leaf's blanket: must not see the decline
            raise ToolFailure(f"swallowed {exc}") from exc
        reached.append("after")
        return ToolResult("ran")

    snapshot = make_snapshot(tmp_path, ("bash", careless), asker=lambda request: "reject")
    result = run(snapshot, "bash")
    assert result == ToolCallOutcome("declined", (TextPart(DECLINED_TEXT),))
    assert reached == []


def test_a_decline_raised_directly_by_a_sync_leaf_is_declined(tmp_path):
    def careless(args, ctx):
        try:
            raise PermissionDeclined("edit", ["a"])
        except Exception:
            return ToolResult("swallowed")

    assert run(make_snapshot(tmp_path, ("edit", careless)), "edit").status == "declined"


def test_a_dismissed_question_is_declined(tmp_path):
    async def ask(args, ctx):
        try:
            await ctx.question.ask([{"question": "Which?", "header": "Pick"}])
        except Exception:
            return ToolResult("swallowed")
        return ToolResult("answered")

    result = run(make_snapshot(tmp_path, ("ask", ask), answerer=lambda request: None), "ask")
    assert result == ToolCallOutcome("declined", (TextPart(DISMISSED_TEXT),))


def test_question_dismissed_raised_directly_is_declined(tmp_path):
    def ask(args, ctx):
        raise QuestionDismissed()

    assert run(make_snapshot(tmp_path, ("ask", ask)), "ask").status == "declined"


# -- propagating ------------------------------------------------------------------------------
@pytest.mark.parametrize("signal", [KeyboardInterrupt, SystemExit])
def test_keyboard_interrupt_and_system_exit_propagate(tmp_path, signal):
    def stop(args, ctx):
        raise signal()

    with pytest.raises(signal):
        run(make_snapshot(tmp_path, ("stop", stop)), "stop")


# -- interrupted ------------------------------------------------------------------------------
def cancelled_inside(args, ctx):
    """A tool whose own inner work was cancelled (the caller's task is not)."""

    async def inner():
        raise asyncio.CancelledError()

    return inner()


def test_a_cancellation_raised_by_the_tool_is_interrupted(tmp_path):
    result = run(make_snapshot(tmp_path, ("work", cancelled_inside)), "work")
    assert result == ToolCallOutcome("interrupted", (TextPart(INTERRUPTED_TEXT),))
    assert result.error is None


def test_propagate_cancel_reraises_the_tools_cancellation(tmp_path):
    with pytest.raises(asyncio.CancelledError):
        run(make_snapshot(tmp_path, ("work", cancelled_inside)), "work", propagate_cancel=True)


def waiting_snapshot(tmp_path, started, never):
    async def wait(args, ctx):
        started.set()
        await never.wait()
        return ToolResult("done")

    return make_snapshot(tmp_path, ("wait", wait))


def test_cancelling_the_calling_task_always_propagates(tmp_path):
    async def scenario():
        started, never = asyncio.Event(), asyncio.Event()
        snapshot = waiting_snapshot(tmp_path, started, never)
        task = asyncio.create_task(run_tool_call(snapshot, ToolCall("1", "wait")))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return task

    assert asyncio.run(scenario()).cancelled()


def test_asyncio_timeout_still_works_around_a_call(tmp_path):
    async def scenario():
        started, never = asyncio.Event(), asyncio.Event()
        snapshot = waiting_snapshot(tmp_path, started, never)
        async with asyncio.timeout(0.01):
            await run_tool_call(snapshot, ToolCall("1", "wait"))

    with pytest.raises(TimeoutError):
        asyncio.run(scenario())


def test_a_task_group_sibling_failure_cancels_the_call_and_surfaces(tmp_path):
    calls = []

    async def scenario():
        started, never = asyncio.Event(), asyncio.Event()
        snapshot = waiting_snapshot(tmp_path, started, never)

        async def sibling():
            await started.wait()
            raise ValueError("sibling failed")

        async with asyncio.TaskGroup() as group:
            calls.append(group.create_task(run_tool_call(snapshot, ToolCall("1", "wait"))))
            group.create_task(sibling())

    with pytest.raises(ExceptionGroup) as caught:
        asyncio.run(scenario())
    assert caught.group_contains(ValueError, match="sibling failed")
    assert calls[0].cancelled()


def test_an_uncancelled_task_gets_an_outcome_after_a_tool_cancellation(tmp_path):
    async def scenario():
        outcome_ = await run_tool_call(
            make_snapshot(tmp_path, ("work", cancelled_inside)), ToolCall("1", "work")
        )
        await asyncio.sleep(0)  # the task is not being cancelled: it keeps running
        return outcome_, asyncio.current_task().cancelling()

    assert asyncio.run(scenario()) == (
        ToolCallOutcome("interrupted", (TextPart(INTERRUPTED_TEXT),)),
        0,
    )


# -- the outcome value ------------------------------------------------------------------------
def test_outcome_is_immutable_with_contract_defaults():
    built = ToolCallOutcome("completed", (TextPart("x"),), {"a": 1}, 5)
    assert (built.status, built.content, built.output, built.error) == (
        "completed",
        (TextPart("x"),),
        5,
        None,
    )
    with pytest.raises(AttributeError):
        built.status = "failed"  # type: ignore[misc]
    assert ToolCallOutcome("declined").metadata == {}
