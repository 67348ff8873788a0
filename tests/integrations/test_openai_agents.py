"""``function_tools`` in real Agents SDK runs, driven by the SDK's ``ScriptedModel``."""

from __future__ import annotations

import pytest
from agents import Agent, RunConfig, Runner, RunState
from agents.testing import ScriptedModel, assistant_message, function_call

from tooldeck import Reject, Tool, ToolResult
from tooldeck.integrations.openai_agents import answer, function_tools, pending_call

from .conftest import LAUNCHED

DECLINED = "The user declined this tool call. Do not retry it; ask the user how to proceed."
OFFLINE = RunConfig(tracing_disabled=True)


def turn(*calls):
    return [function_call(name, args, call_id=call_id) for call_id, name, args in calls]


DONE = [assistant_message("done")]


def outputs(model):
    """The ``function_call_output`` items of the model's last request, by call id."""
    items = model.calls[-1].input
    return {i["call_id"]: i["output"] for i in items if i.get("type") == "function_call_output"}


async def run(agent, given):
    return await Runner.run(agent, given, run_config=OFFLINE)


def agent_for(host, *steps, **options):
    model = ScriptedModel(steps)
    return Agent(name="a", model=model, tools=function_tools(host, **options)), model


async def test_a_two_turn_run_calls_a_pack_tool_and_reads_its_result(host):
    agent, model = agent_for(host, turn(("c1", "add", {"a": 2, "b": 3})), DONE)
    result = await run(agent, "add")
    assert result.final_output == "done"
    assert [t.name for t in model.calls[0].tools] == ["add", "broken", "launch", "photo", "execute"]
    assert outputs(model) == {"c1": "5"}


def test_schemas_are_strict_where_the_tool_has_a_strict_form(host):
    host.service.transform(
        lambda editor: editor.add(
            Tool(
                name="free",
                description="Takes anything.",
                input={"type": "object", "additionalProperties": True},
                execute=lambda args, ctx: ToolResult("ok"),
                codemode=False,
            )
        ),
        source="test",
    )
    strict = {t.name: t.strict_json_schema for t in function_tools(host)}
    assert strict["add"] is True and strict["free"] is False


async def test_a_code_mode_program_runs_through_execute(host):
    code = "await tools.mul(a=6, b=7)"
    agent, model = agent_for(host, turn(("c1", "execute", {"code": code})), DONE)
    await run(agent, "multiply")
    assert outputs(model) == {"c1": "42"}


async def test_a_failing_tool_gives_the_model_tooldecks_failure_text(host):
    agent, model = agent_for(host, turn(("c1", "broken", {})), DONE)
    await run(agent, "break")
    assert outputs(model) == {"c1": "Error: the disk is full"}


async def test_images_reach_the_model_as_image_output(host):
    agent, model = agent_for(host, turn(("c1", "photo", {})), DONE)
    await run(agent, "photo")
    text, image = outputs(model)["c1"]
    assert text == {"type": "input_text", "text": "a red pixel"}
    assert image["type"] == "input_image" and image["image_url"].startswith("data:image/png")


async def paused(host):
    """A run interrupted at ``launch``'s ask, its state sent through JSON."""
    agent, model = agent_for(host, turn(("c1", "launch", {"target": "moon"})), DONE)
    result = await run(agent, "launch")
    assert [i.tool_name for i in result.interruptions] == ["launch"]
    state = await RunState.from_string(agent, result.to_state().to_string())
    return agent, model, state


async def test_an_ask_interrupts_the_run_and_approving_resumes_it_through_tooldeck(host):
    agent, model, state = await paused(host)
    assert LAUNCHED == []
    waiting = pending_call(host, state.get_interruptions()[0])  # what the user is shown
    assert waiting is not None and waiting.request.resources == ("moon",)
    assert dict(waiting.request.metadata)["note"] == "one way to moon"
    answer(state, state.get_interruptions()[0], "once")
    result = await run(agent, state)
    assert result.final_output == "done"
    assert LAUNCHED == ["moon"]
    assert outputs(model) == {"c1": "launched moon"}


async def test_approving_resumes_the_pending_call_exactly_once_from_a_saved_state(host):
    launch = turn(("c1", "launch", {"target": "moon"}))
    agent, model = agent_for(host, launch, DONE, DONE)
    result = await run(agent, "launch")
    [waiting] = host.pending()
    assert waiting.call.id == "c1" and LAUNCHED == []
    state = result.to_state()
    answer(state, result.interruptions[0], "once")
    saved = state.to_string()  # the approved run, as another process would load it
    await run(agent, state)
    assert (LAUNCHED, host.pending()) == (["moon"], [])
    assert pending_call(host, result.interruptions[0]) is None  # answered: waits no more
    await run(agent, await RunState.from_string(agent, saved))  # delivered twice
    assert LAUNCHED == ["moon"]  # the second resume returned the recorded outcome
    assert outputs(model) == {"c1": "launched moon"}


async def test_rejecting_gives_the_model_tooldecks_decline_text(host):
    agent, model, state = await paused(host)
    answer(state, state.get_interruptions()[0], "reject")
    await run(agent, state)
    assert LAUNCHED == []
    assert outputs(model) == {"c1": f"Error: {DECLINED}"}


async def test_rejecting_with_feedback_passes_the_feedback_on(host):
    agent, model, state = await paused(host)
    answer(state, state.get_interruptions()[0], Reject("try mars"))
    await run(agent, state)
    assert LAUNCHED == []
    assert "said: try mars" in outputs(model)["c1"]


async def rejected_outcome(host, pending_id):
    """The outcome recorded for a pending call (a later resume returns it, running nothing)."""
    outcome = await host.resume(pending_id, "once")
    assert LAUNCHED == []
    return outcome


async def test_a_rejection_resolves_the_pending_call_in_tooldeck(host):
    agent, _, state = await paused(host)
    [waiting] = host.pending()
    answer(state, state.get_interruptions()[0], "reject")
    await run(agent, state)
    assert host.pending() == []  # resolved, not left to expire
    outcome = await rejected_outcome(host, waiting.id)
    assert (outcome.status, outcome.content[0].text) == ("declined", DECLINED)


async def test_a_rejection_with_feedback_is_recorded_with_it(host):
    agent, _, state = await paused(host)
    [waiting] = host.pending()
    answer(state, state.get_interruptions()[0], Reject("try mars"))
    await run(agent, state)
    assert host.pending() == []
    outcome = await rejected_outcome(host, waiting.id)
    assert outcome.status == "failed" and "said: try mars" in outcome.content[0].text


async def test_a_rejection_in_another_process_reaches_tooldeck(host):
    first, _ = agent_for(host, turn(("c1", "launch", {"target": "moon"})), DONE)
    saved = (await run(first, "launch")).to_state().to_string()
    [waiting] = host.pending()
    # another process: a fresh tool list, which never saw the call, loads the run
    second, model = agent_for(host, DONE)
    state = await RunState.from_string(second, saved)
    answer(state, state.get_interruptions()[0], "reject")
    await run(second, state)
    assert host.pending() == []
    assert outputs(model) == {"c1": f"Error: {DECLINED}"}
    outcome = await rejected_outcome(host, waiting.id)
    assert (outcome.status, outcome.content[0].text) == ("declined", DECLINED)


async def test_the_sdks_own_rejection_reaches_tooldeck_too(host):
    agent, _, state = await paused(host)
    [waiting] = host.pending()
    state.reject(state.get_interruptions()[0], rejection_message="not today")
    await run(agent, state)
    assert host.pending() == []
    outcome = await rejected_outcome(host, waiting.id)
    assert outcome.status == "failed" and "said: not today" in outcome.content[0].text


async def test_an_ask_inside_a_program_interrupts_the_execute_call(host):
    code = 'await tools.land(target="mars")'
    agent, model = agent_for(host, turn(("c1", "execute", {"code": code})), DONE)
    result = await run(agent, "land")
    assert [i.tool_name for i in result.interruptions] == ["execute"]
    state = result.to_state()
    answer(state, result.interruptions[0], "once")
    await run(agent, state)
    assert LAUNCHED == ["mars"]
    assert outputs(model) == {"c1": "launched mars"}


async def test_a_second_ask_after_an_approval_is_declined(host):
    code = 'await tools.land(target="mars")\nawait tools.land(target="venus")'
    agent, model = agent_for(host, turn(("c1", "execute", {"code": code})), DONE)
    result = await run(agent, "land twice")
    state = result.to_state()
    answer(state, result.interruptions[0], "once")
    await run(agent, state)
    assert LAUNCHED == ["mars"]  # the resumed program ran once, up to its second ask
    assert outputs(model) == {"c1": f"Error: {DECLINED}"}
    assert host.pending() == []  # both asks' pending calls are resolved


def test_answer_refuses_what_is_not_a_reply(host):
    with pytest.raises(ValueError, match="'maybe' is not a tooldeck reply"):
        answer(None, None, "maybe")


async def test_a_catalog_change_reaches_the_next_run_and_a_removed_tool_is_disabled(host):
    first, model = agent_for(host, DONE)
    await run(first, "hi")
    registration = host.service.transform(lambda editor: editor.remove("add"), source="later")
    second, model = agent_for(host, DONE)
    await run(second, "hi")
    assert "add" not in [t.name for t in model.calls[0].tools]
    registration.dispose()
    third, model = agent_for(host, DONE)
    host.service.transform(lambda editor: editor.remove("add"), source="again")
    await run(third, "hi")  # built before the removal: the stale tool is disabled
    assert "add" not in [t.name for t in model.calls[0].tools]


async def test_calls_run_in_the_named_session(host):
    host.session("s1").transform(
        lambda editor: editor.update(
            "add", lambda tool: tool.replace(execute=lambda args, ctx: ToolResult(ctx.session_id))
        ),
        source="session",
    )
    agent, model = agent_for(host, turn(("c1", "add", {"a": 1, "b": 1})), DONE, session="s1")
    await run(agent, "add")
    assert outputs(model) == {"c1": "s1"}


def test_a_session_of_the_wrong_type_is_refused(host):
    with pytest.raises(TypeError, match="expected a session id, got 3"):
        function_tools(host, session=3)
